package runtime

import (
	"context"
	"errors"

	"google.golang.org/protobuf/proto"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/impl"
)

// The envelope crosses between the user's types (envelope_types.go) and
// the decoder's copies in runtime/internal/impl here, and only here: an
// entry a handler, resolver or hook returns becomes the decoder's when the
// runtime reads it (impl.EntriesOf finds it through userEntries), and an
// entry the runtime hands to user code (the error hook, the Preparer)
// becomes the user's.

func init() {
	impl.UserEntries = userEntries
	impl.UserReference = userReference
}

// userEntries finds the user's Errors or *ErrorEntry in err, converted.
func userEntries(err error) (es impl.Errors, list, ok bool) {
	var l Errors
	if errors.As(err, &l) {
		return l.impl(), true, true
	}
	var one *ErrorEntry
	if errors.As(err, &one) && one != nil {
		return impl.Errors{one.impl()}, false, true
	}
	return nil, false, false
}

// userReference converts a resolver's Reference.
func userReference(answer any) (impl.Reference, bool) {
	ref, ok := answer.(Reference)
	if !ok {
		return impl.Reference{}, false
	}
	return impl.Reference{Matches: referents(ref.Matches), Known: referents(ref.Known)}, true
}

func referents(rs []Referent) []impl.Referent {
	if rs == nil {
		return nil
	}
	out := make([]impl.Referent, len(rs))
	for i, r := range rs {
		out[i] = impl.Referent(r)
	}
	return out
}

// impl is e as the decoder's entry; the Suggestions are shared.
func (e *ErrorEntry) impl() *impl.ErrorEntry {
	if e == nil {
		return nil
	}
	return &impl.ErrorEntry{Code: e.Code, Message: e.Message, Field: e.Field, Details: e.Details, TraceID: e.TraceID, Suggestions: (*impl.Suggestions)(e.Suggestions), Rejected: e.Rejected}
}

// impl is es as the decoder's entries.
func (es Errors) impl() impl.Errors {
	if es == nil {
		return nil
	}
	out := make(impl.Errors, len(es))
	for i, e := range es {
		out[i] = e.impl()
	}
	return out
}

// userEntry is the decoder's entry e as the user's; the Suggestions are
// shared.
func userEntry(e *impl.ErrorEntry) *ErrorEntry {
	if e == nil {
		return nil
	}
	return &ErrorEntry{Code: e.Code, Message: e.Message, Field: e.Field, Details: e.Details, TraceID: e.TraceID, Suggestions: (*Suggestions)(e.Suggestions), Rejected: e.Rejected}
}

// userErrors is the decoder's entries es as the user's.
func userErrors(es impl.Errors) Errors {
	if es == nil {
		return nil
	}
	out := make(Errors, len(es))
	for i, e := range es {
		out[i] = userEntry(e)
	}
	return out
}

// userErrorHook adapts a hook on the user's entries to the decoder's: the
// hook sees a copy, and what it changes is written back.
func userErrorHook(fn func(ctx context.Context, tool string, req proto.Message, e *ErrorEntry)) func(ctx context.Context, tool string, req proto.Message, e *impl.ErrorEntry) {
	if fn == nil {
		return nil
	}
	return func(ctx context.Context, tool string, req proto.Message, e *impl.ErrorEntry) {
		u := userEntry(e)
		fn(ctx, tool, req, u)
		*e = *u.impl()
	}
}
