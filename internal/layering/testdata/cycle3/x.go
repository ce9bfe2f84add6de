// Package cycle3 is a fixture: x.go uses y.go, y.go uses z.go and z.go
// uses x.go, a cycle of three files with no pair that uses each other.
package cycle3

// X is used by z.go.
type X struct{ Y Y }
