package impl

import "fmt"

// KnownOwned is Known for a message some of whose fields the server owns
// (OUTPUT_ONLY, IDENTIFIER on create, IMMUTABLE on update): a key naming
// one is reported as UNKNOWN_FIELD saying the server owns it and why, so
// the agent leaves it out instead of guessing at a spelling; every other
// key is checked as Known checks it.
func (d *Decoder) KnownOwned(obj *Object, fields []string, owned map[string]string) {
	if obj == nil {
		return
	}
	if d.root == nil && len(d.segs) == 0 {
		d.root = obj
	}
	rest := &Object{}
	for i, k := range obj.Keys {
		why, ok := owned[k]
		if !ok {
			rest.Keys = append(rest.Keys, k)
			rest.Vals = append(rest.Vals, obj.Vals[i])
			continue
		}
		d.report(k, &ErrorEntry{
			Code:    CodeUnknownField,
			Message: fmt.Sprintf("field %s is owned by the server (%s); leave it out", ClipQuote(k), why),
		})
	}
	d.Known(rest, fields)
}
