package cycle3

// Y is used by x.go.
type Y struct{ Z Z }
