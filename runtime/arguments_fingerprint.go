package runtime

import (
	"slices"
	"strings"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/idempotency"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/impl"
)

// argumentsFingerprint is idempotency.Fingerprint of the arguments obj was
// parsed from, computed from the parsed tree instead of parsing the bytes
// again: the same canonical JSON (the idempotency key and dry_run, in either
// spelling, left out at the top, keys sorted at every level, strings escaped
// one way, numbers as written), so fingerprints stored by either agree.
func argumentsFingerprint(obj *impl.Object) string {
	return idempotency.FingerprintCanonical(appendCanonicalObject(make([]byte, 0, 256), obj, true))
}

func appendCanonicalObject(out []byte, o *impl.Object, top bool) []byte {
	if o == nil {
		return append(out, "{}"...)
	}
	idx := make([]int, 0, len(o.Keys))
	for i, k := range o.Keys {
		if top && isWriteControl(k) {
			continue
		}
		idx = append(idx, i)
	}
	slices.SortFunc(idx, func(a, b int) int { return strings.Compare(o.Keys[a], o.Keys[b]) })
	out = append(out, '{')
	for n, i := range idx {
		if n > 0 {
			out = append(out, ',')
		}
		out = idempotency.AppendCanonicalString(out, o.Keys[i])
		out = append(out, ':')
		out = appendCanonicalValue(out, o.Vals[i])
	}
	return append(out, '}')
}

func appendCanonicalValue(out []byte, v *impl.Value) []byte {
	if v == nil {
		return append(out, "null"...)
	}
	switch v.Kind {
	case impl.KindString:
		return idempotency.AppendCanonicalString(out, v.Str)
	case impl.KindNumber:
		return append(out, v.Str...)
	case impl.KindBool:
		if v.Bool {
			return append(out, "true"...)
		}
		return append(out, "false"...)
	case impl.KindArray:
		out = append(out, '[')
		for i, e := range v.Arr {
			if i > 0 {
				out = append(out, ',')
			}
			out = appendCanonicalValue(out, e)
		}
		return append(out, ']')
	case impl.KindObject:
		return appendCanonicalObject(out, v.Obj, false)
	}
	return append(out, "null"...)
}
