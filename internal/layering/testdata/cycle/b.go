package cycle

// B is used by a.go.
const B = 2

func useA(a *A) { a.grow() }
