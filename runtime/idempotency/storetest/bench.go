package storetest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/idempotency"
)

// BenchClaimComplete measures a first execution (Claim + Complete of a new
// key) followed by a replay (Claim of the completed key), and reports the
// round trips of each phase as counted by roundTrips (nil for in-process
// stores).
func BenchClaimComplete(b *testing.B, s idempotency.Store, roundTrips func() int64) {
	ctx := context.Background()
	if roundTrips == nil {
		roundTrips = func() int64 { return 0 }
	}
	resp := []byte(`{"success":true,"element":{"id":"0b7c","name":"OrderService"}}`)
	prefix := fmt.Sprint("bench-", time.Now().UnixNano(), "-")
	var first, replay, n int64
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		k := idempotency.Key{Tenant: "tenant-a", Tool: "create_element", Key: fmt.Sprint(prefix, i)}
		now := time.Now()
		r0 := roundTrips()
		res, err := s.Claim(ctx, k, "fp", now, idempotency.DefaultLease)
		if err != nil || !res.Claimed {
			b.Fatalf("claim = %+v, %v", res, err)
		}
		if err := s.Complete(ctx, k, "fp", resp, false, now, idempotency.DefaultDurableTTL); err != nil {
			b.Fatal(err)
		}
		r1 := roundTrips()
		res, err = s.Claim(ctx, k, "fp", now, idempotency.DefaultLease)
		if err != nil || res.Claimed {
			b.Fatalf("replay = %+v, %v", res, err)
		}
		r2 := roundTrips()
		first += r1 - r0
		replay += r2 - r1
		n++
	}
	b.ReportMetric(float64(first)/float64(n), "rt-first/op")
	b.ReportMetric(float64(replay)/float64(n), "rt-replay/op")
}
