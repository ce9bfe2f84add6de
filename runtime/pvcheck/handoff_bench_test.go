package pvcheck

import (
	"testing"

	"google.golang.org/protobuf/types/known/timestamppb"

	purchasingv1 "github.com/mcpwrite/protoc-gen-mcpwrite/examples/purchasing/gen/purchasing/v1"
)

// deep calls f under n frames of about 256 bytes each, as a tool call
// runs the check under the MCP and pipeline frames.
//
//go:noinline
func deep(n int, f func()) {
	var pad [256]byte
	if n == 0 {
		f()
		return
	}
	deep(n-1, f)
	pad[0]++
	_ = pad
}

// BenchmarkCheckOnNewGoroutine is a check on a goroutine made for the
// call, as MCP runs a tool call: on the caller (inline) or handed to a
// check goroutine.
func BenchmarkCheckOnNewGoroutine(b *testing.B) {
	rc, err := New(new(purchasingv1.SearchItemsRequest))
	if err != nil {
		b.Fatal(err)
	}
	req := &purchasingv1.SearchItemsRequest{
		Meta:  &purchasingv1.RequestMeta{TenantId: "t", PrincipalId: "p", RequestedAt: timestamppb.Now()},
		Query: "bolt", Limit: 5,
	}
	for _, inline := range []bool{true, false} {
		name := "handed-over"
		if inline {
			name = "inline"
		}
		// inline is the check itself, on the call's goroutine; handed-over
		// is Check, which hands it to a check goroutine.
		check := rc.Check
		if inline {
			check = rc.(*checker).check
		}
		b.Run(name, func(b *testing.B) {
			done := make(chan struct{})
			for b.Loop() {
				go deep(12, func() {
					if vs, err := check(req); err != nil || len(vs) > 0 {
						panic("check failed")
					}
					done <- struct{}{}
				})
				<-done
			}
		})
	}
}
