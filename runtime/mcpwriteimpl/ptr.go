package mcpwriteimpl

// Ptr returns a pointer to v; generated code uses it for fields with
// explicit presence.
func Ptr[T any](v T) *T { return &v }
