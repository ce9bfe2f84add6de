// Command preparer_options must not compile: NewPreparer takes the options
// that apply without a tool call and refuses the others, which Register
// takes. preparer_option_test.go pins the compiler's errors.
package main

import (
	"log/slog"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/gosdk"
)

func main() {
	// Every PreparerOption is accepted by both.
	shared := []runtime.PreparerOption{
		runtime.WithLimits(runtime.Limits{}),
		runtime.WithClock(nil),
		runtime.WithRand(nil),
		runtime.WithSecrets(nil, nil),
		runtime.WithVocabulary(nil),
		runtime.WithoutRequestCheck(),
		runtime.WithLogger(slog.Default()),
	}
	_, _ = runtime.NewPreparer(nil, shared...)
	_ = gosdk.Register(nil, nil, runtime.WithLimits(runtime.Limits{}), runtime.WithObserver(nil))

	// Options only a tool call uses are refused.
	_, _ = runtime.NewPreparer(nil, runtime.WithObserver(nil))
	_, _ = runtime.NewPreparer(nil, runtime.WithLimits(runtime.Limits{}), runtime.WithPolicy(nil))
	var opts []runtime.Option
	_, _ = runtime.NewPreparer(nil, opts...)
}
