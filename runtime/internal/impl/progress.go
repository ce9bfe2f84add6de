package impl

import "context"

// Progress sends a notifications/progress for the call's progress token;
// an adapter for another MCP library sets it on the call's context
// (WithProgress), since its requests carry no go-sdk session.
type Progress func(ctx context.Context, token any, progress, total float64, message string) error

type progressKey struct{}

// WithProgress returns ctx carrying p.
func WithProgress(ctx context.Context, p Progress) context.Context {
	return context.WithValue(ctx, progressKey{}, p)
}

// ProgressFrom is the Progress ctx carries, or nil.
func ProgressFrom(ctx context.Context) Progress {
	p, _ := ctx.Value(progressKey{}).(Progress)
	return p
}
