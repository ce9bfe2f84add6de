// Package cycle is a fixture: a.go and b.go use each other, c.go uses a.go,
// gen.go is generated and test files are not measured.
package cycle

// A is used by b.go and c.go.
type A struct{ N int }

func (a *A) grow() { a.N += B }

// Long is a function of eight lines.
func Long() int {
	x := 1
	x++
	x++
	x++
	return x
}
