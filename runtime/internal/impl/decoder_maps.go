package impl

import (
	"fmt"
	"strconv"
)

// The readers below decode map fields: the entries, then each key as the
// map's key type.

// MapEntries reads a map field: an array of {"key": ..., "value": ...}
// objects (what the schema asks for, so strict clients can send it), or a
// JSON object. It returns the keys and values in input order; a key given
// twice and an entry without "key" or "value" are errors.
func (d *Decoder) MapEntries(v *Value, key string) ([]string, []*Value, bool) {
	if v != nil && v.Kind == KindObject {
		return v.Obj.Keys, v.Obj.Vals, true
	}
	arr, ok := d.Array(v, key)
	if !ok {
		return nil, nil, false
	}
	keys, vals := make([]string, 0, len(arr)), make([]*Value, 0, len(arr))
	seen := make(map[string]bool, len(arr))
	ok = true
	d.Enter(key)
	for i, e := range arr {
		d.EnterIndex(i)
		o, isObj := d.Object(e, "")
		if !isObj {
			d.Leave()
			ok = false
			continue
		}
		d.Known(o, []string{"key", "value"})
		k := o.Get("key")
		switch {
		case k == nil || k.Kind == KindNull:
			d.Missing("key")
			ok = false
		case k.Kind != KindString:
			d.typeError(k, "key", "string", "map keys are strings; numbers and booleans are written as text")
			ok = false
		case seen[k.Str]:
			d.report("key", &ErrorEntry{Code: CodeValidation, Message: fmt.Sprintf("key %s is given twice", ClipQuote(k.Str))})
			ok = false
		case o.Get("value") == nil:
			// The entry schema requires value, as the key; an entry without
			// one would otherwise vanish from the map.
			d.Missing("value")
			ok = false
		default:
			seen[k.Str] = true
			keys, vals = append(keys, k.Str), append(vals, o.Get("value"))
		}
		d.Leave()
	}
	d.Leave()
	return keys, vals, ok
}

// KeyInt32 parses a map key (a JSON object key) as int32.
func (d *Decoder) KeyInt32(key string) (int32, bool) {
	n, err := strconv.ParseInt(key, 10, 32)
	if err != nil {
		d.keyError(key, "int32")
		return 0, false
	}
	if c := strconv.FormatInt(n, 10); c != key {
		d.keyForm(key, "int32", c)
		return 0, false
	}
	return int32(n), true
}

// KeyInt64 parses a map key as int64.
func (d *Decoder) KeyInt64(key string) (int64, bool) {
	n, err := strconv.ParseInt(key, 10, 64)
	if err != nil {
		d.keyError(key, "int64")
		return 0, false
	}
	if c := strconv.FormatInt(n, 10); c != key {
		d.keyForm(key, "int64", c)
		return 0, false
	}
	return n, true
}

// KeyUint32 parses a map key as uint32.
func (d *Decoder) KeyUint32(key string) (uint32, bool) {
	n, err := strconv.ParseUint(key, 10, 32)
	if err != nil {
		d.keyError(key, "uint32")
		return 0, false
	}
	if c := strconv.FormatUint(n, 10); c != key {
		d.keyForm(key, "uint32", c)
		return 0, false
	}
	return uint32(n), true
}

// KeyUint64 parses a map key as uint64.
func (d *Decoder) KeyUint64(key string) (uint64, bool) {
	n, err := strconv.ParseUint(key, 10, 64)
	if err != nil {
		d.keyError(key, "uint64")
		return 0, false
	}
	if c := strconv.FormatUint(n, 10); c != key {
		d.keyForm(key, "uint64", c)
		return 0, false
	}
	return n, true
}

// KeyBool parses a map key as bool ("true" or "false").
func (d *Decoder) KeyBool(key string) (bool, bool) {
	switch key {
	case "true":
		return true, true
	case "false":
		return false, true
	}
	d.keyError(key, "bool")
	return false, false
}

// keyForm refuses an integer key in another form than its decimal c
// ("07", "+7", "-0"): two forms of one key would be one entry, and one
// value would be lost.
func (d *Decoder) keyForm(key, typ, c string) {
	d.report(key, &ErrorEntry{Code: CodeInvalidType, Message: fmt.Sprintf("map key %s is not a valid %s: write the number as %s", ClipQuote(key), typ, c)})
}

func (d *Decoder) keyError(key, typ string) {
	d.report(key, &ErrorEntry{Code: CodeInvalidType, Message: fmt.Sprintf("map key %s is not a valid %s", ClipQuote(key), typ)})
}
