package runtime

import (
	"strings"

	"google.golang.org/grpc/status"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/impl"
)

// An agent that applies every fix one answer offers should succeed on its
// next call. The request check (buf.validate rules the decoder does not
// state, CEL among them) runs on the complete request after enrichment;
// when the decoder already refuses the arguments, the check still runs on
// what decoded, and its violations on fields the agent sent join the
// decode problems in the same answer, instead of surfacing one round
// later. What needs the whole request waits for the full check: a rule of
// the message itself (it may read a field in error), a field in error or
// left out, and a field the server fills (not filled yet).
//
// References, value resolvers and the pair check likewise: the generated
// early check resolves, on a copy of what decoded, every reference the
// agent sent, after the fills a resolver may read (context values,
// constants, from_enum); when every reference resolved it runs the value
// resolvers, and when every resolver answered, the pair check. Its
// answers on fields the agent sent that decoded (NOT_FOUND,
// NEEDS_DISAMBIGUATION, a value a resolver refuses, INVALID_RELATIONSHIP)
// join the decode problems, each once. A value resolver is given the
// whole request and does not declare what it reads, so it runs on what
// decoded, as a reference resolver does: a refusal it bases on a field in
// error or left out names that field, or none, and waits for the full
// enrichment. Resolvers are read-only (validate_write and dry_run already
// run them, and retry_on_conflict runs them again). Live vocabularies are
// read by the decoder itself, so their problems are decode problems
// already.

// overlaps reports a problem already on path, inside it or around it.
func overlaps(es impl.Errors, path string) bool {
	for _, e := range es {
		if e == nil {
			continue
		}
		if e.Field == path || within(e.Field, path) || within(path, e.Field) {
			return true
		}
	}
	return false
}

// within reports whether path a lies inside path b (b.x, b[0]).
func within(a, b string) bool {
	return b != "" && len(a) > len(b) && strings.HasPrefix(a, b) && (a[len(b)] == '.' || a[len(b)] == '[')
}

// holds reports an entry of es with e's code, field and message: two
// resolvers that run the same domain check refuse the same value once.
func holds(es impl.Errors, e *impl.ErrorEntry) bool {
	for _, x := range es {
		if x.Code == e.Code && x.Field == e.Field && x.Message == e.Message {
			return true
		}
	}
	return false
}

// agentAnswer reports an error the agent can act on: error entries none of
// which is INTERNAL, or a gRPC status of a non-transient user code.
func agentAnswer(err error) bool {
	list, _, found := impl.EntriesOf(err)
	if !found {
		st, ok := status.FromError(err)
		_, user := userCodes[st.Code()]
		return ok && user && !transientCodes[st.Code()]
	}
	for _, e := range list {
		if e == nil || e.Code == impl.CodeInternal {
			return false
		}
	}
	return len(list) > 0
}

// sentPath reports whether the agent's arguments hold a value at the agent
// path p (label.ownerName, more_labels[1].ownerName, tags.red.ownerName for
// a map sent as an object or as {"key","value"} entries).
func sentPath(body *impl.Object, p string) bool {
	steps, rest := impl.FieldSteps(p)
	if rest != "" {
		return false
	}
	obj := body
	var arr []*impl.Value // a list, or a map sent as entries: the next step indexes or keys it
	for _, s := range steps {
		var v *impl.Value
		switch {
		case s.IsIndex:
			if s.Index < 0 || s.Index >= len(arr) {
				return false
			}
			v = arr[s.Index]
		case obj != nil:
			v = obj.Get(s.Key)
		case arr != nil:
			v = entryValue(arr, s.Key)
		}
		if !v.Present() || v.Kind == impl.KindNull {
			return false
		}
		obj, arr = nil, nil
		switch v.Kind {
		case impl.KindObject:
			obj = v.Obj
		case impl.KindArray:
			arr = v.Arr
		}
	}
	return true
}

// entryValue is the value of the map entry {"key": key, "value": ...} of
// entries, nil when none has that key.
func entryValue(entries []*impl.Value, key string) *impl.Value {
	for _, e := range entries {
		if e == nil || e.Kind != impl.KindObject {
			continue
		}
		if k := e.Obj.Get("key"); k != nil && k.Kind == impl.KindString && k.Str == key {
			return e.Obj.Get("value")
		}
	}
	return nil
}
