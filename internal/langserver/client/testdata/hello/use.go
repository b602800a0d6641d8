package hello

// Use calls Hello after non-ASCII text on the same line.
func Use() string { return "é😀 " + Hello("wörld") }
