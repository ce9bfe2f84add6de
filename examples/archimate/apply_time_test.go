package archimate_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/domain"
	archimatev1 "github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/gen/archimate/v1"
	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/server"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcptest"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/proposal"
)

func TestAppliedProposalIsStampedWhenItIsWritten(t *testing.T) {
	var now atomic.Int64
	now.Store(fixedNow.UnixNano())
	repo := domain.New()
	store := proposal.NewMemoryStore()
	s, err := server.New(repo,
		runtime.WithProposals(store, 15*time.Minute),
		runtime.WithClock(func() time.Time { return time.Unix(0, now.Load()).UTC() }),
		runtime.WithRequestContextFunc(runtime.StaticRequestContext(devRC)))
	if err != nil {
		t.Fatal(err)
	}
	cs := mcptest.Connect(t, s, mcptest.Options{})
	created := mcptest.Call(t, cs, "createElement", `{"type":"Node","name":"db-1"}`).Body
	id := createdID(t, created)
	proposed := mcptest.Call(t, cs, "deleteElement", `{"id":"`+id+`"}`)
	p, ok := proposed.Body["proposal"].(map[string]any)
	if proposed.IsError || !ok {
		t.Fatalf("want a proposal: %s", proposed.Text)
	}
	// The ids the server generated are in the stored request, not in what
	// the user is shown.
	if _, shown := p["preview"].(map[string]any)["meta"]; shown {
		t.Fatalf("the proposal shows the server's metadata: %s", proposed.Text)
	}
	stored, err := store.Get(context.Background(), p["proposal_id"].(string), devRC.TenantID, devRC.PrincipalID, fixedNow)
	if err != nil {
		t.Fatal(err)
	}
	var confirmed archimatev1.DeleteElementRequest
	if err := proto.Unmarshal(stored.Request, &confirmed); err != nil || confirmed.GetMeta().GetMessageId() == "" {
		t.Fatalf("stored request: %v (%v)", &confirmed, err)
	}
	// The user takes ten minutes to confirm.
	now.Add(int64(10 * time.Minute))
	applied := mcptest.Call(t, cs, "applyProposal", `{"proposal_id":"`+p["proposal_id"].(string)+`"}`)
	if applied.IsError {
		t.Fatalf("apply: %s", applied.Text)
	}
	got := repo.Received()
	del := got[len(got)-1].(*archimatev1.DeleteElementRequest)
	if want := fixedNow.Add(10 * time.Minute); !del.GetMeta().GetOccurredAt().AsTime().Equal(want) {
		t.Fatalf("occurred_at = %v, want the apply time %v", del.GetMeta().GetOccurredAt().AsTime(), want)
	}
	if want := confirmed.GetMeta().GetMessageId(); del.GetId() != id || del.GetMeta().GetMessageId() != want {
		t.Fatalf("ids must be the confirmed ones: id %q message_id %q (confirmed %q)", del.GetId(), del.GetMeta().GetMessageId(), want)
	}
}
