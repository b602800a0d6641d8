package hello

// Hello greets someone.
func Hello(name string) string {
	return "hello " + name
}

// Greeter greets with a prefix.
type Greeter struct {
	Prefix string
}

// Greet greets name.
func (g Greeter) Greet(name string) string {
	return g.Prefix + Hello(name)
}
