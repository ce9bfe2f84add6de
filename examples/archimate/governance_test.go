package archimate_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/domain"
	archimatev1 "github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/gen/archimate/v1"
	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/gen/archimate/v1/archimatev1mcpwrite"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcptest"
)

// govSession connects a client (its protocol version, "" being the SDK
// default 2026-07-28, and elicitation answerer) to a server whose tools call
// h and whose confirmations name what repo would lose.
func govSession(t *testing.T, h archimatev1mcpwrite.ArchitectureServiceHandler, repo *domain.Repository, client mcptest.Options) *mcp.ClientSession {
	t.Helper()
	server := mcp.NewServer(&mcp.Implementation{Name: "archimate", Version: "test"}, nil)
	err := archimatev1mcpwrite.RegisterArchitectureServiceTools(server, h,
		runtime.WithClock(func() time.Time { return fixedNow }),
		runtime.WithRand(rand.NewChaCha8([32]byte{7})),
		runtime.WithRequestContextFunc(runtime.StaticRequestContext(devRC)),
		runtime.WithPreviews(runtime.Previews{Loss: repo.PreviewLoss}))
	if err != nil {
		t.Fatalf("register: %v", err)
	}
	return mcptest.Connect(t, server, client)
}

// orderService creates OrderService with two relationships: a capability
// it serves and an application service it realizes.
func orderService(t *testing.T, cs *mcp.ClientSession) string {
	t.Helper()
	capOut, _ := call(t, cs, "createElement", `{"type":"Capability","name":"Fulfillment"}`)
	compOut, _ := call(t, cs, "createElement", `{"type":"ApplicationComponent","name":"OrderService"}`)
	svcOut, _ := call(t, cs, "createElement", `{"type":"ApplicationService","name":"Checkout"}`)
	capID, compID, svcID := createdID(t, capOut), createdID(t, compOut), createdID(t, svcOut)
	for _, rel := range []string{
		`{"type":"Serving","source_id":"` + capID + `","target_id":"` + compID + `"}`,
		`{"type":"Realization","source_id":"` + compID + `","target_id":"` + svcID + `"}`,
	} {
		if out, isErr := call(t, cs, "createRelationship", rel); isErr {
			t.Fatalf("createRelationship: %v", out)
		}
	}
	return compID
}

// loss asks the repository what deleting id would lose now.
func loss(repo *domain.Repository, id string) (string, error) {
	return repo.PreviewLoss(context.Background(), "deleteElement", &archimatev1.DeleteElementRequest{
		Meta: &archimatev1.MessageMeta{TenantId: devRC.TenantID}, Id: id, Cascade: ptr(true)})
}

func ptr[T any](v T) *T { return &v }

const orderServiceLoss = "element OrderService and 2 relationships"

func TestDeleteElementProposalNamesWhatIsLost(t *testing.T) {
	repo := domain.New()
	cs := govSession(t, repo, repo, mcptest.Options{}) // no elicitation capability
	id := orderService(t, cs)

	out, isErr := call(t, cs, "deleteElement", `{"id":"`+id+`"}`)
	p, _ := out["proposal"].(map[string]any)
	if isErr || p == nil {
		t.Fatalf("want a proposal, got %v", out)
	}
	want := map[string]any{
		"tool": "deleteElement", "classification": "DESTRUCTIVE_DELETE", "apply_with": "applyProposal",
		"summary": `Delete element: id="` + id + `"`, "will_lose": orderServiceLoss,
		"expires_at": "2026-11-22T10:45:00Z",
	}
	got := map[string]any{}
	for k := range want {
		got[k] = p[k]
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("proposal (-want +got):\n%s", diff)
	}
	if l, err := loss(repo, id); l != orderServiceLoss || err != nil {
		t.Fatalf("proposing deleted something: %q %v", l, err)
	}

	applied, isErr := call(t, cs, "applyProposal", `{"proposal_id":"`+p["proposal_id"].(string)+`"}`)
	if isErr || applied["success"] != true || applied["id"] != id || len(applied["deleted_relationships"].([]any)) != 2 {
		t.Fatalf("apply: %v", applied)
	}
	var entry *runtime.ErrorEntry
	if _, err := loss(repo, id); !errors.As(err, &entry) || entry.Code != "ELEMENT_NOT_FOUND" {
		t.Fatalf("element still there after apply: %v", err)
	}
}

func TestDeleteElementConfirmationNamesWhatIsLost(t *testing.T) {
	cancel := mcptest.Cancel()
	tests := []struct {
		name     string
		protocol string
		answer   *mcptest.Elicitor
		wantGone bool
	}{
		{"declined on 2025-11-25", "2025-11-25", mcptest.Decline(), false},
		{"cancelled on 2026-07-28", "", cancel, false},
		{"accepted on 2026-07-28", "", mcptest.Accept(true), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			repo := domain.New()
			cs := govSession(t, repo, repo, mcptest.Options{Protocol: tt.protocol, Elicit: tt.answer.Handler})
			id := orderService(t, cs)

			out, isErr := call(t, cs, "deleteElement", `{"id":"`+id+`"}`)
			asked := tt.answer.Asked()
			// The question, what is lost, then the agent's request (and the
			// cascade default): no meta, no resolved model.
			want := `Confirm Delete element: id="` + id + `". This permanently deletes data; it cannot be undone. What will be lost: ` +
				orderServiceLoss + ".\n\nid: " + id + "\ncascade: true"
			if len(asked) != 1 || asked[0] != want {
				t.Fatalf("asked %q", asked)
			}
			l, err := loss(repo, id)
			if tt.wantGone {
				if isErr || out["id"] != id || len(out["deleted_relationships"].([]any)) != 2 || err == nil {
					t.Fatalf("accepted: %v (element still there: %v)", out, err == nil)
				}
				return
			}
			wantErr := map[string]any{
				"code":        "CONFIRMATION_DECLINED",
				"message":     `The user declined: Delete element: id="` + id + `". Nothing was written.`,
				"suggestions": map[string]any{"hint": "Do not retry unless the user asks for the change again."},
			}
			if tt.answer == cancel {
				// Dismissed is not a no: the agent may ask the user again.
				wantErr = map[string]any{
					"code":        "CONFIRMATION_CANCELLED",
					"message":     `The user dismissed the confirmation without deciding: Delete element: id="` + id + `". Nothing was written.`,
					"suggestions": map[string]any{"hint": "Ask the user whether they want this change; call again only if they say yes."},
				}
			}
			if diff := cmp.Diff(wantErr, out["error"]); !isErr || diff != "" {
				t.Fatalf("declined (-want +got):\n%s", diff)
			}
			if l != orderServiceLoss || err != nil {
				t.Fatalf("declined but the element changed: %q %v", l, err)
			}
		})
	}
}

func containsAll(s string, parts ...string) bool {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}

// racingRepo lets someone else update the element just before each of the
// next races UpdateElement calls, between the resolver's read of the version
// and the write, as a concurrent editor would.
type racingRepo struct {
	*domain.Repository
	mu    sync.Mutex
	races int
	calls int
}

func (r *racingRepo) UpdateElement(ctx context.Context, req *archimatev1.UpdateElementRequest) (*archimatev1.UpdateElementResponse, error) {
	r.mu.Lock()
	r.calls++
	race := r.races > 0
	if race {
		r.races--
	}
	r.mu.Unlock()
	if race {
		v, err := r.Repository.ResolveCurrentVersion(ctx, req)
		if err != nil {
			return nil, err
		}
		if _, err := r.Repository.UpdateElement(ctx, &archimatev1.UpdateElementRequest{
			Meta: req.GetMeta(), Id: req.GetId(), ExpectedVersion: v, Properties: map[string]string{"edited_by": "someone-else"},
		}); err != nil {
			return nil, err
		}
	}
	return r.Repository.UpdateElement(ctx, req)
}

func TestUpdateElementRetriesOnConflict(t *testing.T) {
	tests := []struct {
		name      string
		races     int
		wantCalls int
		check     func(t *testing.T, id string, out map[string]any, isErr bool)
	}{{
		name: "one concurrent update: the retry re-reads the version and succeeds", races: 1, wantCalls: 2,
		check: func(t *testing.T, id string, out map[string]any, isErr bool) {
			el, _ := out["element"].(map[string]any)
			got := map[string]any{"isError": isErr, "previous_version": out["previous_version"], "new_version": out["new_version"],
				"name": el["name"], "version": el["version"], "properties": el["properties"]}
			want := map[string]any{"isError": false, "previous_version": float64(2), "new_version": float64(3),
				"name": "OrderManagement", "version": float64(3), "properties": map[string]any{"edited_by": "someone-else"}}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("result (-want +got):\n%s\n%v", diff, out)
			}
		},
	}, {
		name: "four concurrent updates exhaust three retries", races: 4, wantCalls: 4,
		check: func(t *testing.T, id string, out map[string]any, isErr bool) {
			want := map[string]any{
				"code":    "CONFLICT",
				"message": "element " + id + " is at version 5, not 4",
				"suggestions": map[string]any{
					"hint": "The target changed while writing; the server retried 3 time(s) with fresh values. Read its current state and retry.",
				},
			}
			if diff := cmp.Diff(want, out["error"]); !isErr || diff != "" {
				t.Fatalf("error (-want +got):\n%s", diff)
			}
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			repo := domain.New()
			racer := &racingRepo{Repository: repo}
			cs := govSession(t, racer, repo, mcptest.Options{})
			created, _ := call(t, cs, "createElement", `{"type":"ApplicationComponent","name":"OrderService"}`)
			id := createdID(t, created)
			racer.mu.Lock()
			racer.races = tt.races
			racer.mu.Unlock()
			out, isErr := call(t, cs, "updateElement", `{"id":"`+id+`","name":"OrderManagement"}`)
			tt.check(t, id, out, isErr)
			racer.mu.Lock()
			defer racer.mu.Unlock()
			if racer.calls != tt.wantCalls {
				t.Fatalf("UpdateElement called %d times, want %d", racer.calls, tt.wantCalls)
			}
		})
	}
}
