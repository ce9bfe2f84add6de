package tasks_test

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	mgoclient "github.com/mark3labs/mcp-go/client"
	mgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/tasks/domain"
	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/tasks/gen/tasks/v1/tasksv1mcpwrite"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcpgo"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcptest"
)

// mgoUser answers mcp-go elicitation requests with accept/confirm and
// records what it was asked.
type mgoUser struct {
	mu    sync.Mutex
	asked []string
}

func (u *mgoUser) Elicit(_ context.Context, req mgo.ElicitationRequest) (*mgo.ElicitationResult, error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.asked = append(u.asked, req.Params.Message)
	return &mgo.ElicitationResult{ElicitationResponse: mgo.ElicitationResponse{Action: mgo.ElicitationResponseActionAccept, Content: map[string]any{"confirm": true}}}, nil
}

// An mcp-go client, in process, against the mcp-go server: the listing
// carries the schemas, and a destructive delete is confirmed through
// mcp-go's elicitation.
func TestMCPGoClientConfirmsADeleteThroughElicitation(t *testing.T) {
	s := server.NewMCPServer("tasks-server", "test", server.WithToolCapabilities(false))
	rc := runtime.RequestContext{TenantID: "acme", PrincipalID: "alice", CorrelationID: "corr-1"}
	err := mcpgo.Register(s, tasksv1mcpwrite.NewTaskService(domain.New("/projects")),
		runtime.WithRequestContextFunc(runtime.StaticRequestContext(rc)),
		runtime.WithClock(func() time.Time { return now }), runtime.WithRand(&seqReader{}))
	if err != nil {
		t.Fatal(err)
	}
	user := &mgoUser{}
	c, err := mgoclient.NewInProcessClientWithOptions(s, mgoclient.WithElicitationHandler(user))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	init := mgo.InitializeRequest{}
	init.Params.ProtocolVersion = "2025-11-25"
	init.Params.ClientInfo = mgo.Implementation{Name: "agent", Version: "test"}
	init.Params.Capabilities.Elicitation = &mgo.ElicitationCapability{Form: &struct{}{}}
	if _, err := c.Initialize(ctx, init); err != nil {
		t.Fatalf("initialize: %v", err)
	}

	list, err := c.ListTools(ctx, mgo.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var create *mgo.Tool
	for i := range list.Tools {
		if list.Tools[i].Name == "task_create" {
			create = &list.Tools[i]
		}
	}
	if len(list.Tools) != 13 || create == nil {
		t.Fatalf("listed %d tools, task_create %v", len(list.Tools), create != nil)
	}
	b, _ := json.Marshal(create)
	for _, want := range []string{`"outputSchema":{`, `"destructiveHint":false`, `"mcpwrite/schema_hash":"sha256:`, `"additionalProperties":false`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("task_create lacks %s:\n%s", want, b)
		}
	}

	call := func(tool, args string) *mgo.CallToolResult {
		t.Helper()
		var a map[string]any
		if err := json.Unmarshal([]byte(args), &a); err != nil {
			t.Fatal(err)
		}
		req := mgo.CallToolRequest{}
		req.Params.Name, req.Params.Arguments = tool, a
		res, err := c.CallTool(ctx, req)
		if err != nil {
			mcptest.CheckAnswer(t, tool, err.Error())
			t.Fatalf("%s: %v", tool, err)
		}
		answer, err := json.Marshal(res)
		if err != nil {
			t.Fatal(err)
		}
		mcptest.CheckAnswer(t, tool, string(answer))
		return res
	}
	text := func(r *mgo.CallToolResult) string {
		t.Helper()
		if len(r.Content) != 1 {
			t.Fatalf("%d content items", len(r.Content))
		}
		tc, ok := r.Content[0].(mgo.TextContent)
		if !ok {
			t.Fatalf("content %T", r.Content[0])
		}
		return tc.Text
	}
	if r := call("task_create", `{"title":"Add OAuth login","type":"feature"}`); r.IsError || !strings.Contains(text(r), `"id":"`+firstID+`"`) {
		t.Fatalf("task_create: %s", text(r))
	}
	r := call("task_delete", `{"id":"`+firstID+`"}`)
	want := compact(`{"success":true,"data":{"id":"` + firstID + `","deleted":true},"message":"Task deleted successfully",
		"metadata":{"timestamp":"2026-11-22T10:00:00Z","version":"2.0"},"suggestions":[],"warnings":[]}`)
	if r.IsError || text(r) != want {
		t.Fatalf("task_delete:\n%s\nwant\n%s", text(r), want)
	}
	sc, _ := json.Marshal(r.StructuredContent)
	var fromText, fromStructured any
	_ = json.Unmarshal([]byte(want), &fromText)
	if err := json.Unmarshal(sc, &fromStructured); err != nil || !reflect.DeepEqual(fromText, fromStructured) {
		t.Fatalf("structuredContent %s differs from the text", sc)
	}
	if len(user.asked) != 1 || !strings.HasPrefix(user.asked[0], `Confirm Delete task: id="`+firstID+`".`) {
		t.Fatalf("the user was asked %q", user.asked)
	}
}
