package impl

import "fmt"

// UniqueItemKeys refuses two items of the list at key whose item key (the
// item's field named field, read by keyOf) is the same: the second item is
// named by its whole path (elements[3].client_request_id) and the message
// names the first, never the key's value. An empty key is no key. For use
// by generated code, once the list is decoded.
func UniqueItemKeys[T any](d *Decoder, key, field string, xs []T, keyOf func(T) string) {
	if len(xs) < 2 {
		return
	}
	first := make(map[string]int, len(xs))
	for i, x := range xs {
		k := keyOf(x)
		if k == "" {
			continue
		}
		j, dup := first[k]
		if !dup {
			first[k] = i
			continue
		}
		d.Enter(key)
		d.EnterIndex(i)
		d.report(field, &ErrorEntry{
			Code:    CodeConstraintViolation,
			Message: fmt.Sprintf("%s of %s[%d] is also the %s of %s[%d]: each item needs its own key", field, key, i, field, key, j),
			Suggestions: &Suggestions{
				Hint: fmt.Sprintf("Give every item of %s its own %s; reuse a key only to retry the same item", key, field),
			},
		})
		d.Leave()
		d.Leave()
	}
}
