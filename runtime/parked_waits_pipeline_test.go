package runtime_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
)

// parkingAsker keeps every confirmation waiting until release is closed,
// then abandons it (cancel); a confirmation of a note named "free-..." is
// accepted at once.
type parkingAsker struct {
	asked   atomic.Int64
	release chan struct{}
}

func (p *parkingAsker) handle(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	if strings.Contains(req.Params.Message, "free-") {
		return yes, nil
	}
	p.asked.Add(1)
	select {
	case <-p.release:
		return &mcp.ElicitResult{Action: "cancel"}, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// 200 confirmations parked across 20 tenants (10 each, the tenant's quota):
// a tenant's next call is refused before it claims its key, another tenant
// is asked and writes meanwhile, and once the waits are abandoned the
// quota they held is free again.
func TestTwoHundredParkedWaitsStayBoundedPerTenant(t *testing.T) {
	p := &parkingAsker{release: make(chan struct{})}
	h := newHarness(t, harnessOpts{
		opts:          []runtime.Option{runtime.WithElicitationQuotas(10, 10)},
		client:        &mcp.ClientOptions{ElicitationHandler: p.handle},
		clientSession: &mcp.ClientSessionOptions{ProtocolVersion: inCallProtocol},
	})
	const tenants, perTenant = 20, 10
	var wg sync.WaitGroup
	answers := make(chan result, tenants*perTenant)
	for i := range tenants {
		who := caller{fmt.Sprintf("tenant-%02d", i), "user"}
		for j := range perTenant {
			note := fmt.Sprintf("n-%02d-%02d", i, j)
			h.seedNote(note)
			wg.Go(func() { answers <- h.call(who, "delete_note", `{"id":"`+note+`","client_request_id":"k-`+note+`"}`) })
		}
	}
	deadline := time.Now().Add(30 * time.Second)
	for p.asked.Load() < tenants*perTenant && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := p.asked.Load(); n != tenants*perTenant {
		t.Fatalf("%d confirmations parked, want %d", n, tenants*perTenant)
	}
	// A parked tenant's next call is refused, claiming nothing.
	h.seedNote("n-00-10")
	if got := h.call(caller{"tenant-00", "user"}, "delete_note", `{"id":"n-00-10","client_request_id":"k-n-00-10"}`); !got.isError || got.text != `{"success":false,"error":{"code":"RESOURCE_EXHAUSTED","message":"delete_note was not run: you have the quota of 10 confirmations waiting for an answer; nothing was written","details":{"limit":10,"quota":"waiting_confirmations_per_principal","retry_after_seconds":300},"suggestions":{"hint":"Answer or cancel a confirmation the user is being asked, or retry after details.retry_after_seconds, when the longest wait ends (5m0s)."}},"errors":[{"code":"RESOURCE_EXHAUSTED","message":"delete_note was not run: you have the quota of 10 confirmations waiting for an answer; nothing was written","details":{"limit":10,"quota":"waiting_confirmations_per_principal","retry_after_seconds":300},"suggestions":{"hint":"Answer or cancel a confirmation the user is being asked, or retry after details.retry_after_seconds, when the longest wait ends (5m0s)."}}]}` {
		t.Fatalf("tenant-00 past its quota: %s", got.text)
	}
	// Another tenant is asked and writes while the 200 wait.
	h.seedNote("free-1")
	start := time.Now()
	if got := h.call(alice, "delete_note", `{"id":"free-1","client_request_id":"k-free-1"}`); got.text != `{"success":true,"id":"free-1","deleted":true,"suggestions":[],"warnings":[]}` {
		t.Fatalf("another tenant while 200 wait: %s", got.text)
	}
	t.Logf("another tenant answered in %v with %d confirmations parked", time.Since(start), p.asked.Load())
	// Abandoned, the waits end and write nothing.
	close(p.release)
	wg.Wait()
	close(answers)
	for r := range answers {
		if strings.Contains(r.text, `"deleted":true`) {
			t.Fatalf("an abandoned confirmation wrote: %s", r.text)
		}
	}
	if n := h.dom.count("delete_note"); n != 1 {
		t.Fatalf("%d deletes reached the handler, want alice's 1", n)
	}
	// What they held is free: tenant-00's refused call now runs (asked,
	// and abandoned again), not refused.
	if got := h.call(caller{"tenant-00", "user"}, "delete_note", `{"id":"n-00-10","client_request_id":"k-n-00-10"}`); got.text != `{"success":false,"error":{"code":"CONFIRMATION_CANCELLED","message":"The user dismissed the confirmation without deciding: Delete note: id=\"n-00-10\". Nothing was written.","suggestions":{"hint":"Ask the user whether they want this change; call again only if they say yes."}},"errors":[{"code":"CONFIRMATION_CANCELLED","message":"The user dismissed the confirmation without deciding: Delete note: id=\"n-00-10\". Nothing was written.","suggestions":{"hint":"Ask the user whether they want this change; call again only if they say yes."}}]}` {
		t.Fatalf("tenant-00 after the waits were abandoned: %s", got.text)
	}
}
