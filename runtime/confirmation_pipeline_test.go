package runtime_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
)

// lossHook is a loss preview that records which tools it was asked about.
type lossHook struct {
	mu    sync.Mutex
	tools []string
	text  string
	err   error
}

func (l *lossHook) preview(ctx context.Context, tool string, req proto.Message) (string, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.tools = append(l.tools, tool+":"+getStr(req, "id"))
	return l.text, l.err
}

func (l *lossHook) asked() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.tools...)
}

func proposeAll(ctx context.Context, pc runtime.PolicyCall) runtime.Confirmation {
	return runtime.ConfirmProposal
}

func TestLossPreviewNamesWhatIsLost(t *testing.T) {
	const lossMessage = "Confirm Delete note: id=\"n1\". This permanently deletes data; it cannot be undone. What will be lost: note n1 and 2 comments.\n\n" +
		"id: n1"
	proposal := func(id, extra, warnings string) string {
		return compact(`{"success":true,"proposal":{"proposal_id":"` + id + `","action":"delete","tool":"delete_note","classification":"DESTRUCTIVE_DELETE",
			"summary":"Delete note: id=\"n1\"",` + extra + `
			"preview":{"id":"n1"},
			"expires_at":"2025-01-02T03:19:05Z","apply_with":"apply_proposal"},
			"suggestions":["Nothing was written yet. Show the summary and preview to the user; if they confirm, call apply_proposal with proposal_id \"` + id + `\" before it expires."],
			"warnings":` + warnings + `}`)
	}
	tests := []struct {
		name      string
		hook      *lossHook
		protocol  string
		elicit    bool
		policy    func(context.Context, runtime.PolicyCall) runtime.Confirmation
		tool      string
		args      string
		want      func(text string) string
		wantAsked []string
		wantHook  []string
		wantLog   []string
	}{{
		name: "a proposal names the loss",
		hook: &lossHook{text: "note n1 and 2 comments"},
		tool: "delete_note", args: `{"id":"n1"}`,
		want: func(text string) string {
			return proposal(field(t, text, "proposal.proposal_id"), `"will_lose":"note n1 and 2 comments",`, `[]`)
		},
		wantHook: []string{"delete_note:n1"},
	}, {
		name: "an in-call confirmation names the loss",
		hook: &lossHook{text: "note n1 and 2 comments."},
		tool: "delete_note", args: `{"id":"n1"}`, protocol: inCallProtocol, elicit: true,
		want:      func(string) string { return deletedN1 },
		wantAsked: []string{lossMessage},
		wantHook:  []string{"delete_note:n1"},
	}, {
		name: "a round-trip confirmation names the loss",
		hook: &lossHook{text: "note n1 and 2 comments"},
		tool: "delete_note", args: `{"id":"n1"}`, protocol: roundTripProtocol, elicit: true,
		want:      func(string) string { return deletedN1 },
		wantAsked: []string{lossMessage},
		wantHook:  []string{"delete_note:n1"},
	}, {
		name: "creates lose nothing and are not previewed",
		hook: &lossHook{text: "never shown"},
		tool: "create_note", args: `{"title":"Buy milk","description":"2 litres"}`, policy: proposeAll,
		want: func(text string) string {
			id := field(t, text, "proposal.proposal_id")
			return compact(`{"success":true,"proposal":{"proposal_id":"` + id + `","action":"create","tool":"create_note","entity":{"type":"note","id":"note-01010101"},"classification":"SAFE_CREATE",
				"summary":"Create note: title=\"Buy milk\", description=\"2 litres\"",
				"diff":[{"field":"description","before":null,"after":"2 litres"},{"field":"title","before":null,"after":"Buy milk"}],
				"preview":{"id":"note-01010101","title":"Buy milk","description":"2 litres"},
				"expires_at":"2025-01-02T03:19:05Z","apply_with":"apply_proposal"},
				"suggestions":["Nothing was written yet. Show the summary and preview to the user; if they confirm, call apply_proposal with proposal_id \"` + id + `\" before it expires."],
				"warnings":[]}`)
		},
	}, {
		name: "a domain error answers instead of asking",
		hook: &lossHook{err: status.Error(codes.NotFound, "note n1 not found")},
		tool: "delete_note", args: `{"id":"n1"}`, protocol: inCallProtocol, elicit: true,
		want:     func(string) string { return envelope(`{"code":"NOT_FOUND","message":"note n1 not found"}`) },
		wantHook: []string{"delete_note:n1"},
	}, {
		name: "a failing preview leaves a warning and logs the cause",
		hook: &lossHook{err: errors.New("redis: AUTH hunter2 failed")},
		tool: "delete_note", args: `{"id":"n1"}`,
		want: func(text string) string {
			return proposal(field(t, text, "proposal.proposal_id"), ``,
				`[{"code":"LOSS_PREVIEW_UNAVAILABLE","message":"What this change would remove could not be determined","suggestion":"Review the preview with the user before applying"}]`)
		},
		wantHook: []string{"delete_note:n1"},
		wantLog:  []string{"trace_id=", "redis: AUTH hunter2 failed"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := &asker{answer: *yes}
			client := &mcp.ClientOptions{}
			if tt.elicit {
				client.ElicitationHandler = a.handle
			}
			hook := tt.hook
			opts := []runtime.Option{runtime.WithPreviews(runtime.Previews{Loss: hook.preview})}
			if tt.policy != nil {
				opts = append(opts, runtime.WithPolicy(tt.policy))
			}
			h := newHarness(t, harnessOpts{opts: opts, client: client, clientSession: &mcp.ClientSessionOptions{ProtocolVersion: tt.protocol}})
			h.seedNote("n1")
			got := h.call(alice, tt.tool, tt.args)
			if want := tt.want(got.text); got.text != want {
				t.Fatalf("got\n%s\nwant\n%s", got.text, want)
			}
			if q := a.questions(); !equalStrings(q, tt.wantAsked) {
				t.Fatalf("asked %q\nwant %q", q, tt.wantAsked)
			}
			if calls := hook.asked(); !equalStrings(calls, tt.wantHook) {
				t.Fatalf("loss preview asked for %q, want %q", calls, tt.wantHook)
			}
			if strings.Contains(got.text, "hunter2") {
				t.Fatalf("the cause reached the agent: %s", got.text)
			}
			if tt.wantLog != nil && !logLineHas(h.logs(), tt.wantLog...) {
				t.Fatalf("log lacks %q:\n%s", tt.wantLog, h.logs())
			}
		})
	}
}

func TestConfirmationRequiresIdentity(t *testing.T) {
	denied := func(tool string) string {
		return envelope(`{"code":"PERMISSION_DENIED","message":"` + tool + ` needs the user's confirmation, which is bound to an authenticated tenant and principal; this call carries none. Nothing was written.",
			"suggestions":{"hint":"Reconnect with credentials that identify the tenant and the user; the identity comes from the connection, never from tool arguments."}}`)
	}
	directForAll := func(ctx context.Context, pc runtime.PolicyCall) runtime.Confirmation { return runtime.ConfirmDirect }
	tests := []struct {
		name      string
		who       caller
		policy    func(context.Context, runtime.PolicyCall) runtime.Confirmation
		tool      string
		args      string
		want      string
		wantCalls int
	}{
		{"elicit without any identity", caller{}, nil, "delete_note", `{"id":"n1"}`, denied("delete_note"), 0},
		{"elicit without a principal", caller{"acme", ""}, nil, "delete_note", `{"id":"n1"}`, denied("delete_note"), 0},
		{"proposal without any identity", caller{}, proposeAll, "create_note", `{"title":"Buy milk","client_request_id":"c1"}`, denied("create_note"), 0},
		{"a policy that commits directly needs no confirmation", caller{}, directForAll, "delete_note", `{"id":"n1"}`, deletedN1, 1},
	}
	for _, protocol := range []string{inCallProtocol, roundTripProtocol} {
		for _, tt := range tests {
			t.Run(protocol+"/"+tt.name, func(t *testing.T) {
				a := &asker{answer: *yes}
				var opts []runtime.Option
				if tt.policy != nil {
					opts = append(opts, runtime.WithPolicy(tt.policy))
				}
				h := newHarness(t, harnessOpts{opts: opts, client: &mcp.ClientOptions{ElicitationHandler: a.handle},
					clientSession: &mcp.ClientSessionOptions{ProtocolVersion: protocol}})
				h.seedNote("n1")
				for i := 0; i < 2; i++ { // a refusal is not recorded under the key
					if got := h.call(tt.who, tt.tool, tt.args); got.text != tt.want {
						t.Fatalf("call %d: got\n%s\nwant\n%s", i, got.text, tt.want)
					}
					if tt.wantCalls > 0 {
						break
					}
				}
				if n := h.dom.count(tt.tool); n != tt.wantCalls {
					t.Fatalf("handler calls %d, want %d", n, tt.wantCalls)
				}
				if q := a.questions(); len(q) != 0 {
					t.Fatalf("asked %q", q)
				}
			})
		}
	}
}

// blockingAsker holds each confirmation until the test answers it.
type blockingAsker struct {
	asked   chan string
	answers chan *mcp.ElicitResult
}

func (b *blockingAsker) handle(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	b.asked <- req.Params.Message
	select {
	case res := <-b.answers:
		return res, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-time.After(5 * time.Second): // a test that went wrong fails fast
		return &mcp.ElicitResult{Action: "cancel"}, nil
	}
}

func TestSlowConfirmationHoldsTheIdempotencyClaim(t *testing.T) {
	b := &blockingAsker{asked: make(chan string, 2), answers: make(chan *mcp.ElicitResult, 1)}
	h := newHarness(t, harnessOpts{client: &mcp.ClientOptions{ElicitationHandler: b.handle},
		clientSession: &mcp.ClientSessionOptions{ProtocolVersion: inCallProtocol}})
	h.seedNote("n1")
	args := `{"id":"n1","client_request_id":"del-1"}`
	first := make(chan result, 1)
	go func() { first <- h.call(alice, "delete_note", args) }()
	if q := <-b.asked; q != deleteN1Message {
		t.Fatalf("asked %q", q)
	}
	// The user takes two minutes, far past the 30 s lease of a plain write.
	h.clock.Advance(2 * time.Minute)
	retry := h.call(alice, "delete_note", args)
	wantBusy := envelope(`{"code":"IDEMPOTENCY_IN_PROGRESS","message":"a request with client_request_id \"del-1\" is still being processed","field":"client_request_id",
		"details":{"client_request_id":"del-1"},
		"suggestions":{"hint":"Wait a few seconds and retry with the same client_request_id and arguments; it will return the result."}}`)
	if retry.text != wantBusy {
		t.Fatalf("retry during the confirmation:\n%s\nwant\n%s", retry.text, wantBusy)
	}
	b.answers <- yes
	if got := <-first; got.text != deletedN1 {
		t.Fatalf("confirmed call: %s", got.text)
	}
	replay := h.call(alice, "delete_note", args)
	if want := strings.TrimSuffix(deletedN1, "}") + `,"idempotent_replay":true,"original_request_time":"2025-01-02T03:04:05Z"}`; replay.text != want {
		t.Fatalf("retry after the confirmation:\n%s\nwant\n%s", replay.text, want)
	}
	if n := h.dom.count("delete_note"); n != 1 {
		t.Fatalf("handler calls %d, want 1", n)
	}
	select {
	case q := <-b.asked:
		t.Fatalf("asked again: %q", q)
	default:
	}
}

func TestUnansweredConfirmationWritesNothing(t *testing.T) {
	var mu sync.Mutex
	var asked []string
	// The first confirmation is never answered; later ones are accepted.
	slowThenYes := func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		mu.Lock()
		asked = append(asked, req.Params.Message)
		n := len(asked)
		mu.Unlock()
		if n == 1 {
			select {
			case <-ctx.Done():
			case <-time.After(2 * time.Second):
			}
			return &mcp.ElicitResult{Action: "cancel"}, nil
		}
		return yes, nil
	}
	h := newHarness(t, harnessOpts{
		opts:          []runtime.Option{runtime.WithElicitationTimeout(50 * time.Millisecond)},
		client:        &mcp.ClientOptions{ElicitationHandler: slowThenYes},
		clientSession: &mcp.ClientSessionOptions{ProtocolVersion: inCallProtocol},
	})
	h.seedNote("n1")
	args := `{"id":"n1","client_request_id":"del-1"}`
	got := h.call(alice, "delete_note", args)
	want := envelope(`{"code":"CONFIRMATION_DECLINED","message":"The user did not answer within 50ms: Delete note: id=\"n1\". Nothing was written.",
		"suggestions":{"hint":"Ask the user whether to make this change, then call again."}}`)
	if got.text != want {
		t.Fatalf("got\n%s\nwant\n%s", got.text, want)
	}
	if n := h.dom.count("delete_note"); n != 0 {
		t.Fatalf("handler calls %d, want 0", n)
	}
	// The key was released: the retry asks again, and this time the user answers.
	if got := h.call(alice, "delete_note", args); got.text != deletedN1 {
		t.Fatalf("second attempt: %s", got.text)
	}
	mu.Lock()
	defer mu.Unlock()
	if want := []string{deleteN1Message, deleteN1Message}; !equalStrings(asked, want) {
		t.Fatalf("asked %q\nwant %q", asked, want)
	}
}
