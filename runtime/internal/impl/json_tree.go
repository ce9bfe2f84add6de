package impl

// Get returns the value of key (exact, case-sensitive match), or nil when
// the key is absent or o is nil.
func (o *Object) Get(key string) *Value {
	if o == nil {
		return nil
	}
	for i, k := range o.Keys {
		if sameKey(k, key) {
			return o.Vals[i]
		}
	}
	return nil
}

// sameKey is a == b, deciding most mismatches of equal length by the first
// byte without a call to compare memory.
func sameKey(a, b string) bool {
	return len(a) == len(b) && (len(a) == 0 || a[0] == b[0]) && a == b
}

// Present reports whether v holds a value: the decoder treats an absent key
// and JSON null alike.
func (v *Value) Present() bool { return v != nil && v.Kind != KindNull }
