// Package demo is a tiny workspace for agentls's demo turn.
package demo

// Greet returns a greeting for name.
func Greet(name string) string {
	if name == "" {
		name = "world"
	}
	return "hello, " + name
}
