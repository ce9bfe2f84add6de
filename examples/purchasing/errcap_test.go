package purchasing_test

import (
	"fmt"
	"strings"
	"testing"
)

// unknownKeys is a create_purchase_order request of about 1 MiB whose 50
// line items carry 1,000 unknown keys each: 50,000 unknown keys in all.
func unknownKeys() string {
	var b strings.Builder
	b.WriteString(`{"supplier_id":1,"location_id":1,"order_number":"PO-1","items":[`)
	for i := range 50 {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('{')
		for k := range 1000 {
			if k > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `"unknown%05d":"v"`, i*1000+k)
		}
		b.WriteByte('}')
	}
	b.WriteString(`]}`)
	return b.String()
}

// A request of 50,000 unknown keys (about 1 MiB) is answered with the
// first 20 problems and one TOO_MANY_ERRORS entry counting the rest (the
// 50,000 keys and the 150 missing required fields of the 50 items), a
// few KiB rather than an answer larger than the request.
func TestUnknownKeysAnswerIsCapped(t *testing.T) {
	s := newSession(t, noElicitation)
	args := unknownKeys()
	if len(args) < 900<<10 || len(args) > 1<<20 {
		t.Fatalf("request is %d bytes, want about 1 MiB", len(args))
	}
	r := s.call("create_purchase_order", args)
	entry := func(k int) string {
		return fmt.Sprintf(`{"code":"UNKNOWN_FIELD","message":"unknown field \"unknown%05d\"","field":"items[0].unknown%05d","suggestions":{"valid_values":["sku","quantity","unit_price"]}}`, k, k)
	}
	entries := make([]string, 0, 21)
	for k := range 20 {
		entries = append(entries, entry(k))
	}
	entries = append(entries, `{"code":"TOO_MANY_ERRORS","message":"50130 more problems are not listed","details":{"listed":20,"not_listed":50130},"suggestions":{"hint":"Fix the problems listed and call again to see the rest."}}`)
	want := `{"success":false,"error":` + entry(0) + `,"errors":[` + strings.Join(entries, ",") + `]}`
	if !r.isError || r.text != want {
		t.Fatalf("got\n%s\nwant\n%s", r.text, want)
	}
	if len(r.text) > 8<<10 {
		t.Fatalf("answer is %d bytes, want at most 8 KiB", len(r.text))
	}
}
