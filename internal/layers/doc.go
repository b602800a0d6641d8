// Package layers keeps the imports pointing down: its test reads the layer
// list in docs/architecture.md and the import graph from `go list`, and
// fails on any import of a package drawn above the importer, or on a
// package the list does not place.
package layers
