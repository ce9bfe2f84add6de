package cycle3

// Z is used by y.go.
type Z struct{ X *X }
