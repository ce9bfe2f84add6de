// Package lro_test follows long-running operations end to end: a service
// whose writes answer google.longrunning.Operation, served over in-process
// gRPC by a fake backend whose operations complete, fail or never finish,
// adopted through the generated gRPC client adapter with its Operations
// client, and called by the official MCP Go SDK client and by an mcp-go
// client through runtime/mcpgo.
package lro_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	longrunningpb "github.com/mcpwrite/protoc-gen-mcpwrite/golden/e2e/lro/gen/google/longrunning"
	shelfv1 "github.com/mcpwrite/protoc-gen-mcpwrite/golden/e2e/lro/gen/shelf/v1"
	"github.com/mcpwrite/protoc-gen-mcpwrite/golden/e2e/lro/gen/shelf/v1/shelfv1mcpwrite"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcptest"
)

// The bounds the tests register with: waits of at most 2s, a look every
// 10ms.
const (
	maxWait = 2 * time.Second
	poll    = 10 * time.Millisecond
)

// progressLog records the progress notifications a client received.
type progressLog struct {
	mu  sync.Mutex
	got []*mcp.ProgressNotificationParams
}

func (p *progressLog) add(n *mcp.ProgressNotificationParams) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.got = append(p.got, n)
}

func (p *progressLog) all() []*mcp.ProgressNotificationParams {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]*mcp.ProgressNotificationParams(nil), p.got...)
}

// sdkServer registers the generated tools of the backend, adopted through
// the gRPC client adapter (with its Operations client when withOps), and
// connects a go-sdk client that records progress notifications.
func sdkServer(t *testing.T, b *backend, withOps bool) (*mcp.ClientSession, *progressLog) {
	t.Helper()
	conn := serve(t, b)
	var h shelfv1mcpwrite.ShelfServiceHandler
	if withOps {
		h = shelfv1mcpwrite.NewShelfServiceClientAdapterWithOperations(shelfv1.NewShelfServiceClient(conn), longrunningpb.NewOperationsClient(conn))
	} else {
		h = shelfv1mcpwrite.NewShelfServiceClientAdapter(shelfv1.NewShelfServiceClient(conn))
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "shelves", Version: "test"}, nil)
	rc := runtime.RequestContext{TenantID: "acme", PrincipalID: "alice"}
	if err := shelfv1mcpwrite.RegisterShelfServiceTools(s, h,
		runtime.WithRequestContextFunc(runtime.StaticRequestContext(rc)),
		runtime.WithOperationWait(maxWait, poll)); err != nil {
		t.Fatal(err)
	}
	log := &progressLog{}
	ct, st := mcp.NewInMemoryTransports()
	ss, err := s.Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ss.Close() })
	c := mcptest.NewClient(t, &mcp.Implementation{Name: "agent", Version: "test"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) { log.add(r.Params) },
	})
	cs, err := c.Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs, log
}

// callWithProgress calls tool with args and a progress token.
func callWithProgress(t *testing.T, cs *mcp.ClientSession, tool, args, token string) mcptest.Result {
	t.Helper()
	p := &mcp.CallToolParams{Name: tool, Arguments: json.RawMessage(args)}
	p.SetProgressToken(token)
	res, err := cs.CallTool(context.Background(), p)
	if err != nil {
		t.Fatalf("%s: protocol error: %v", tool, err)
	}
	text := res.Content[0].(*mcp.TextContent).Text
	return mcptest.Result{IsError: res.IsError, Text: text}
}

// wantEqual fails unless got is want exactly.
func wantEqual(t *testing.T, what, got, want string) {
	t.Helper()
	if got != want {
		t.Fatalf("%s\n got: %s\nwant: %s", what, got, want)
	}
}

// followCreate is the suggestion every create_shelf answer carries.
const followCreate = `"suggestions":["Call get_operation with this answer's name to follow the long-running operation (wait up to 2s per call); when done, its response is a shelf.v1.Shelf and its metadata a shelf.v1.BuildMetadata."]`

// An operation that completes: the write answers its name and what it will
// hold; get_operation waits, reporting progress to the client's token, and
// answers the done operation with its response.
func TestOperationCompletesThroughGoSDK(t *testing.T) {
	b := newBackend()
	cs, log := sdkServer(t, b, true)
	r := mcptest.Call(t, cs, "create_shelf", `{"theme":"oak"}`)
	wantEqual(t, "create_shelf", r.Text, `{"success":true,"name":"operations/1","metadata":{"@type":"type.googleapis.com/shelf.v1.BuildMetadata"},`+followCreate+`,"warnings":[]}`)

	r = callWithProgress(t, cs, "get_operation", `{"name":"operations/1","wait":"2s"}`, "tok-1")
	wantEqual(t, "get_operation", r.Text, `{"success":true,"name":"operations/1","done":true,`+
		`"metadata":{"@type":"type.googleapis.com/shelf.v1.BuildMetadata","percent_done":100},`+
		`"response":{"@type":"type.googleapis.com/shelf.v1.Shelf","name":"shelves/oak","theme":"oak"},"suggestions":[],"warnings":[]}`)
	if _, looks := b.counts("operations/1"); looks != doneAtLook {
		t.Fatalf("GetOperation called %d times, want %d (done at the third look)", looks, doneAtLook)
	}
	checkProgress(t, log.all(), "tok-1", "operation operations/1 is not done yet", doneAtLook-1)
}

// checkProgress wants n notifications for token, each with msg and the
// wait as total, their progress increasing.
func checkProgress(t *testing.T, got []*mcp.ProgressNotificationParams, token any, msg string, n int) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Second)
	for len(got) < n && time.Now().Before(deadline) {
		// Notifications are handled apart from the call's answer.
		time.Sleep(5 * time.Millisecond)
	}
	if len(got) != n {
		t.Fatalf("got %d progress notifications, want %d", len(got), n)
	}
	last := -1.0
	for _, p := range got {
		if p.ProgressToken != token || p.Message != msg || p.Total != maxWait.Seconds() || p.Progress <= last {
			t.Fatalf("progress notification %+v: want token %v, message %q, total %v, progress above %v", p, token, msg, maxWait.Seconds(), last)
		}
		last = p.Progress
	}
}

// An operation that fails: its google.rpc.Status comes back through the
// error envelope, with the operation's name and the status code.
func TestOperationFailureIsAnError(t *testing.T) {
	b := newBackend()
	cs, _ := sdkServer(t, b, true)
	mcptest.Call(t, cs, "create_shelf", `{"theme":"broken"}`)
	r := mcptest.Call(t, cs, "get_operation", `{"name":"operations/1","wait":"1s"}`)
	entry := `{"code":"CONFLICT","message":"the workshop is closed","details":{"operation":"operations/1","status_code":"FAILED_PRECONDITION"}}`
	if !r.IsError {
		t.Fatalf("a failed operation answered without isError: %s", r.Text)
	}
	wantEqual(t, "get_operation", r.Text, `{"success":false,"error":`+entry+`,"errors":[`+entry+`]}`)
}

// An operation that never finishes: the wait ends at the asked bound with
// the operation not done and how to keep waiting; a longer wait than the
// server's maximum, a wait that is not a duration and an unknown operation
// are refused with the fix.
func TestOperationWaitIsBounded(t *testing.T) {
	b := newBackend()
	cs, log := sdkServer(t, b, true)
	mcptest.Call(t, cs, "create_shelf", `{"theme":"forever"}`)
	start := time.Now()
	r := callWithProgress(t, cs, "get_operation", `{"name":"operations/1","wait":"0.1s"}`, "tok-2")
	if took := time.Since(start); took > time.Second {
		t.Fatalf("a wait of 0.1s took %v", took)
	}
	wantEqual(t, "get_operation", r.Text, `{"success":true,"name":"operations/1","done":false,`+
		`"metadata":{"@type":"type.googleapis.com/shelf.v1.BuildMetadata","percent_done":50},`+
		`"suggestions":["The operation is not done: call get_operation again with name \"operations/1\" and a wait of up to 2s."],"warnings":[]}`)
	if len(log.all()) == 0 {
		t.Fatal("no progress notification during a wait with a progress token")
	}
	for _, tc := range []struct{ args, want string }{
		{`{"name":"operations/1","wait":"61s"}`, `{"code":"CONSTRAINT_VIOLATION","message":"wait \"61s\" is longer than the 2s this server waits at most; call again to keep waiting","field":"wait","suggestions":{"hint":"Send a duration in seconds with an s suffix, from \"0s\" to \"2s\"."}}`},
		{`{"name":"operations/1","wait":"ten"}`, `{"code":"CONSTRAINT_VIOLATION","message":"wait \"ten\" is not a duration in seconds such as \"30s\"","field":"wait","suggestions":{"hint":"Send a duration in seconds with an s suffix, from \"0s\" to \"2s\"."}}`},
		{`{"name":"operations/1","wait":"-1s"}`, `{"code":"CONSTRAINT_VIOLATION","message":"wait \"-1s\" is negative","field":"wait","suggestions":{"hint":"Send a duration in seconds with an s suffix, from \"0s\" to \"2s\"."}}`},
		{`{"name":"operations/404"}`, `{"code":"NOT_FOUND","message":"operation \"operations/404\" not found"}`},
		{`{"name":" "}`, `{"code":"MISSING_REQUIRED_FIELD","message":"name must name an operation","field":"name"}`},
	} {
		r := mcptest.Call(t, cs, "get_operation", tc.args)
		if !r.IsError {
			t.Fatalf("%s answered without isError: %s", tc.args, r.Text)
		}
		wantEqual(t, "get_operation "+tc.args, r.Text, `{"success":false,"error":`+tc.want+`,"errors":[`+tc.want+`]}`)
	}
}

// A cancelled call stops waiting: the backend is asked no more.
func TestCancelledWaitStopsAsking(t *testing.T) {
	b := newBackend()
	cs, _ := sdkServer(t, b, true)
	mcptest.Call(t, cs, "create_shelf", `{"theme":"forever"}`)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "get_operation", Arguments: json.RawMessage(`{"name":"operations/1","wait":"2s"}`)})
	if err == nil {
		t.Fatal("a call cancelled by its client answered")
	}
	time.Sleep(50 * time.Millisecond) // the cancellation reaches the server
	_, before := b.counts("operations/1")
	time.Sleep(100 * time.Millisecond)
	if _, after := b.counts("operations/1"); after != before || before == 0 {
		t.Fatalf("GetOperation looks went from %d to %d after the call was cancelled", before, after)
	}
}

// A replay with the same client_request_id answers the same operation and
// starts none.
func TestReplayAnswersTheSameOperation(t *testing.T) {
	b := newBackend()
	cs, _ := sdkServer(t, b, true)
	first := mcptest.Call(t, cs, "create_shelf", `{"theme":"oak","client_request_id":"build-oak"}`)
	again := mcptest.Call(t, cs, "create_shelf", `{"theme":"oak","client_request_id":"build-oak"}`)
	if starts, _ := b.counts(""); starts != 1 {
		t.Fatalf("the backend started %d operations for one key, want 1", starts)
	}
	wantEqual(t, "first", first.Text, `{"success":true,"name":"operations/1","metadata":{"@type":"type.googleapis.com/shelf.v1.BuildMetadata"},`+followCreate+`,"warnings":[]}`)
	if again.Body["name"] != "operations/1" || again.Body["idempotent_replay"] != true {
		t.Fatalf("replay answered %s, want operations/1 marked as a replay", again.Text)
	}
	other := mcptest.Call(t, cs, "create_shelf", `{"theme":"oak","client_request_id":"build-oak-2"}`)
	if other.Body["name"] != "operations/2" {
		t.Fatalf("a new key answered %s, want operations/2", other.Text)
	}
}

// A method without operation_info says its eventual types are unknown, in
// the answer, the description and get_write_schema.
func TestUnknownEventualTypesAreSaid(t *testing.T) {
	b := newBackend()
	cs, _ := sdkServer(t, b, true)
	r := mcptest.Call(t, cs, "repaint_shelf", `{"shelf_id":"s1","color":"red"}`)
	wantEqual(t, "repaint_shelf", r.Text, `{"success":true,"name":"operations/1","metadata":{"@type":"type.googleapis.com/shelf.v1.BuildMetadata"},`+
		`"suggestions":["Call get_operation with this answer's name to follow the long-running operation (wait up to 2s per call); when done, its response is unknown and its metadata unknown (the method declares no google.longrunning.operation_info)."],"warnings":[]}`)
	s := mcptest.Call(t, cs, "get_write_schema", `{"operation":"repaint_shelf"}`)
	wantEqual(t, "get_write_schema description", s.Body["description"].(string),
		"Repaint a shelf. Long-running: answers a google.longrunning.Operation (its name identifies it); when done, its response is unknown and its metadata unknown (the method declares no google.longrunning.operation_info). TIP: Call validate_write first to check for errors before committing.")
	s = mcptest.Call(t, cs, "get_write_schema", `{"operation":"create_shelf"}`)
	wantEqual(t, "get_write_schema description", s.Body["description"].(string),
		"Build a shelf. Long-running: answers a google.longrunning.Operation (its name identifies it); when done, its response is a shelf.v1.Shelf and its metadata a shelf.v1.BuildMetadata. TIP: Call validate_write first to check for errors before committing.")
}

// Tool descriptions say how to follow an operation, or, when the handler
// cannot get operations, that this server cannot; the operations tool is
// then absent, never a tool that always fails.
func TestOperationsToolNeedsGetOperation(t *testing.T) {
	for _, tc := range []struct {
		withOps bool
		tools   string
		note    string
	}{
		{true, "create_shelf get_operation get_write_schema repaint_shelf validate_write", " Follow it with get_operation."},
		{false, "create_shelf get_write_schema repaint_shelf validate_write", " This server offers no tool to follow the operation (its handler does not implement GetOperation)."},
	} {
		cs, _ := sdkServer(t, newBackend(), tc.withOps)
		list, err := cs.ListTools(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		desc := ""
		for _, tl := range list.Tools {
			names = append(names, tl.Name)
			if tl.Name == "create_shelf" {
				desc = tl.Description
			}
		}
		wantEqual(t, "tools", strings.Join(names, " "), tc.tools)
		wantEqual(t, "create_shelf description", desc, "Build a shelf. Long-running: answers a google.longrunning.Operation (its name identifies it); when done, its response is a shelf.v1.Shelf and its metadata a shelf.v1.BuildMetadata."+
			tc.note+" TIP: Call validate_write first to check for errors before committing.")
	}
}
