package lro_test

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	mgoclient "github.com/mark3labs/mcp-go/client"
	mgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	longrunningpb "github.com/mcpwrite/protoc-gen-mcpwrite/golden/e2e/lro/gen/google/longrunning"
	shelfv1 "github.com/mcpwrite/protoc-gen-mcpwrite/golden/e2e/lro/gen/shelf/v1"
	"github.com/mcpwrite/protoc-gen-mcpwrite/golden/e2e/lro/gen/shelf/v1/shelfv1mcpwrite"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcpgo"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcptest"
)

// mgoSession is an mcp-go client, in process, against an mcp-go server
// serving the generated tools through runtime/mcpgo, recording the progress
// notifications it receives.
type mgoSession struct {
	c        *mgoclient.Client
	mu       sync.Mutex
	progress []map[string]any
}

func newMGOSession(t *testing.T, b *backend) *mgoSession {
	t.Helper()
	conn := serve(t, b)
	h := shelfv1mcpwrite.NewShelfServiceClientAdapterWithOperations(shelfv1.NewShelfServiceClient(conn), longrunningpb.NewOperationsClient(conn))
	s := server.NewMCPServer("shelves", "test", server.WithToolCapabilities(false))
	rc := runtime.RequestContext{TenantID: "acme", PrincipalID: "alice"}
	if err := mcpgo.Register(s, shelfv1mcpwrite.NewShelfService(h),
		runtime.WithRequestContextFunc(runtime.StaticRequestContext(rc)),
		runtime.WithOperationWait(maxWait, poll)); err != nil {
		t.Fatal(err)
	}
	c, err := mgoclient.NewInProcessClient(s)
	if err != nil {
		t.Fatal(err)
	}
	ms := &mgoSession{c: c}
	c.OnNotification(func(n mgo.JSONRPCNotification) {
		if n.Method != "notifications/progress" {
			return
		}
		ms.mu.Lock()
		defer ms.mu.Unlock()
		ms.progress = append(ms.progress, n.Params.AdditionalFields)
	})
	ctx := context.Background()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	init := mgo.InitializeRequest{}
	init.Params.ProtocolVersion = "2025-11-25"
	init.Params.ClientInfo = mgo.Implementation{Name: "agent", Version: "test"}
	if _, err := c.Initialize(ctx, init); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	return ms
}

// progressSeen is the progress notifications received, once n arrived or
// after a second.
func (ms *mgoSession) progressSeen(n int) []map[string]any {
	deadline := time.Now().Add(time.Second)
	for {
		ms.mu.Lock()
		got := append([]map[string]any(nil), ms.progress...)
		ms.mu.Unlock()
		if len(got) >= n || time.Now().After(deadline) {
			return got
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// call calls tool with args, with a progress token when token is set, and
// returns the answer's text and isError.
func (ms *mgoSession) call(t *testing.T, tool string, args map[string]any, token string) (string, bool) {
	t.Helper()
	req := mgo.CallToolRequest{}
	req.Params.Name = tool
	req.Params.Arguments = args
	if token != "" {
		req.Params.Meta = &mgo.Meta{ProgressToken: token}
	}
	res, err := ms.c.CallTool(context.Background(), req)
	if err != nil {
		mcptest.CheckAnswer(t, tool, err.Error())
		t.Fatalf("%s: protocol error: %v", tool, err)
	}
	answer, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	mcptest.CheckAnswer(t, tool, string(answer))
	if len(res.Content) != 1 {
		t.Fatalf("%s: %d content blocks, want 1", tool, len(res.Content))
	}
	tc, ok := res.Content[0].(mgo.TextContent)
	if !ok {
		t.Fatalf("%s: content is %T", tool, res.Content[0])
	}
	return tc.Text, res.IsError
}

// The same flow through mcp-go: the write answers the operation and what it
// will hold, get_operation waits with progress notifications to the mcp-go
// client's token, a failed operation is an error envelope, a replay starts
// no second operation.
func TestOperationFlowThroughMCPGo(t *testing.T) {
	b := newBackend()
	ms := newMGOSession(t, b)
	text, isErr := ms.call(t, "create_shelf", map[string]any{"theme": "oak", "client_request_id": "k-oak"}, "")
	wantEqual(t, "create_shelf", text, `{"success":true,"name":"operations/1","metadata":{"@type":"type.googleapis.com/shelf.v1.BuildMetadata"},`+followCreate+`,"warnings":[]}`)
	if isErr {
		t.Fatal("create_shelf answered isError")
	}
	text, _ = ms.call(t, "create_shelf", map[string]any{"theme": "oak", "client_request_id": "k-oak"}, "")
	if starts, _ := b.counts(""); starts != 1 {
		t.Fatalf("a replay through mcp-go started %d operations, want 1: %s", starts, text)
	}

	text, _ = ms.call(t, "get_operation", map[string]any{"name": "operations/1", "wait": "2s"}, "mgo-tok")
	wantEqual(t, "get_operation", text, `{"success":true,"name":"operations/1","done":true,`+
		`"metadata":{"@type":"type.googleapis.com/shelf.v1.BuildMetadata","percent_done":100},`+
		`"response":{"@type":"type.googleapis.com/shelf.v1.Shelf","name":"shelves/oak","theme":"oak"},"suggestions":[],"warnings":[]}`)
	got := ms.progressSeen(doneAtLook - 1)
	if len(got) != doneAtLook-1 {
		t.Fatalf("mcp-go client got %d progress notifications, want %d: %v", len(got), doneAtLook-1, got)
	}
	for _, p := range got {
		if p["progressToken"] != "mgo-tok" || p["message"] != "operation operations/1 is not done yet" || p["total"] != maxWait.Seconds() {
			t.Fatalf("progress notification %v", p)
		}
	}

	ms.call(t, "create_shelf", map[string]any{"theme": "broken"}, "")
	text, isErr = ms.call(t, "get_operation", map[string]any{"name": "operations/2", "wait": "1s"}, "")
	entry := `{"code":"CONFLICT","message":"the workshop is closed","details":{"operation":"operations/2","status_code":"FAILED_PRECONDITION"}}`
	wantEqual(t, "failed operation", text, `{"success":false,"error":`+entry+`,"errors":[`+entry+`]}`)
	if !isErr {
		t.Fatal("a failed operation answered without isError")
	}
	ms.call(t, "create_shelf", map[string]any{"theme": "forever"}, "")
	text, _ = ms.call(t, "get_operation", map[string]any{"name": "operations/3", "wait": "0.05s"}, "")
	wantEqual(t, "unfinished operation", text, `{"success":true,"name":"operations/3","done":false,`+
		`"metadata":{"@type":"type.googleapis.com/shelf.v1.BuildMetadata","percent_done":50},`+
		`"suggestions":["The operation is not done: call get_operation again with name \"operations/3\" and a wait of up to 2s."],"warnings":[]}`)
}
