package tasks_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	mgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/tasks/domain"
	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/tasks/gen/tasks/v1/tasksv1mcpwrite"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcpgo"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcphttp"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcptest"
)

// newMCPGoSession serves the task tools from a mark3labs/mcp-go server
// over streamable HTTP (in process) and connects the official go-sdk client
// to it, with the options newSession gives the go-sdk server.
func newMCPGoSession(t *testing.T, el elicitation) *session {
	t.Helper()
	s := server.NewMCPServer("tasks-server", "test", server.WithToolCapabilities(false))
	rcFunc := func(context.Context, mgo.CallToolRequest) (runtime.RequestContext, bool) {
		return runtime.RequestContext{TenantID: "acme", PrincipalID: "alice", CorrelationID: "corr-1"}, true
	}
	err := mcpgo.Register(s, tasksv1mcpwrite.NewTaskService(domain.New("/projects")),
		runtime.WithRequestContextFunc(rcFunc),
		runtime.WithClock(func() time.Time { return now }),
		runtime.WithRand(&seqReader{}),
	)
	if err != nil {
		t.Fatalf("mcpgo.Register: %v", err)
	}
	hs := httptest.NewServer(server.NewStreamableHTTPServer(s))
	t.Cleanup(hs.Close)
	sess := &session{t: t}
	var copts *mcp.ClientOptions
	switch el {
	case userAccepts:
		sess.user = mcptest.Accept(true)
	case userDeclines:
		sess.user = mcptest.Decline()
	}
	if sess.user != nil {
		copts = &mcp.ClientOptions{ElicitationHandler: sess.user.Handler}
	}
	client := mcptest.NewClient(t, &mcp.Implementation{Name: "agent", Version: "test"}, copts)
	cs, err := client.Connect(context.Background(),
		&mcp.StreamableClientTransport{Endpoint: hs.URL + "/mcp"}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatalf("connect to the mcp-go server: %v", err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	sess.cs = cs
	return sess
}

// toolsJSON lists the tools as the client received them, one JSON per tool.
func toolsJSON(t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	var out []string
	for _, tool := range res.Tools {
		b, err := json.Marshal(tool)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, string(b))
	}
	slices.Sort(out)
	return out
}

func TestMCPGoServerListsTheSameToolsAsTheGoSDKServer(t *testing.T) {
	want := toolsJSON(t, newSession(t, noElicitation).cs)
	got := toolsJSON(t, newMCPGoSession(t, noElicitation).cs)
	if len(want) != 13 {
		t.Fatalf("the go-sdk server lists %d tools, want 13", len(want))
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("tools/list differs\nmcp-go:\n%s\ngo-sdk:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// sameAnswers runs calls on a go-sdk server and an mcp-go one, each fresh
// with the same clock and random source, and requires the same answers
// byte for byte, and the same questions to the user. "{proposal}" in
// arguments is the proposal_id of the latest answer that made a proposal.
func sameAnswers(t *testing.T, el elicitation, calls [][2]string) []string {
	t.Helper()
	sdk, mgo := newSession(t, el), newMCPGoSession(t, el)
	var answers []string
	for _, c := range calls {
		tool, args := c[0], c[1]
		if strings.Contains(args, "{proposal}") {
			args = strings.ReplaceAll(args, "{proposal}", proposalID(t, answers))
		}
		want, got := sdk.call(tool, args), mgo.call(tool, args)
		if got != want {
			t.Fatalf("%s(%s):\nmcp-go: isError=%v %s\ngo-sdk: isError=%v %s", tool, args, got.isError, got.text, want.isError, want.text)
		}
		if strings.Join(mgo.asked, "\n") != strings.Join(sdk.asked, "\n") {
			t.Fatalf("%s: the mcp-go server asked %q, the go-sdk server %q", tool, mgo.asked, sdk.asked)
		}
		answers = append(answers, want.text)
	}
	return answers
}

// proposalID is the proposal_id of the latest answer that carries one.
func proposalID(t *testing.T, answers []string) string {
	t.Helper()
	for i := len(answers) - 1; i >= 0; i-- {
		var p struct {
			Proposal struct {
				ID string `json:"proposal_id"`
			} `json:"proposal"`
		}
		if json.Unmarshal([]byte(answers[i]), &p) == nil && p.Proposal.ID != "" {
			return p.Proposal.ID
		}
	}
	t.Fatal("no earlier answer made a proposal")
	return ""
}

func TestMCPGoServerAnswersAsTheGoSDKServer(t *testing.T) {
	create := `{"title":"Add OAuth login","type":"feature","client_request_id":"req-1"}`
	answers := sameAnswers(t, noElicitation, [][2]string{
		{"task_create", create},
		{"task_create", create}, // replayed, not created twice
		{"task_create", `{"title":"Write token tests","type":"test","parentId":"` + firstID + `"}`},
		{"task_create", `{"titel":"x","type":"feature"}`},
		{"validate_write", `{"operation":"task_creat","payload":"{}"}`},
		{"get_write_schema", `{"operation":"task_move"}`},
		{"task_delete", `{"id":"` + firstID + `","cascade":true}`}, // no elicitation: a proposal
		{"apply_proposal", `{"proposal_id":"{proposal}"}`},
		{"apply_proposal", `{"proposal_id":"{proposal}"}`}, // replayed
	})
	if !strings.Contains(answers[1], `"idempotent_replay":true`) || strings.Contains(answers[0], "idempotent_replay") {
		t.Errorf("the retried create was not a replay:\n%s\n%s", answers[0], answers[1])
	}
	if !strings.Contains(answers[3], `"code":"UNKNOWN_FIELD"`) || !strings.Contains(answers[3], `"did_you_mean":["title"]`) {
		t.Errorf("misspelled field: %s", answers[3])
	}
	if !strings.Contains(answers[6], `"proposal":{`) || !strings.Contains(answers[7], `"deleted":true`) {
		t.Errorf("delete was not proposed and applied:\n%s\n%s", answers[6], answers[7])
	}
	if want := strings.TrimSuffix(answers[7], "}") + `,"idempotent_replay":true}`; answers[8] != want {
		t.Errorf("second apply:\n%s\nwant\n%s", answers[8], want)
	}
}

func TestMCPGoServerAsksTheUserThroughElicitation(t *testing.T) {
	answers := sameAnswers(t, userAccepts, [][2]string{
		{"task_create", `{"title":"Add OAuth login","type":"feature"}`},
		{"task_create", `{"title":"Write token tests","type":"test","parentId":"` + firstID + `"}`},
		{"task_delete", `{"id":"` + firstID + `","cascade":true}`},
	})
	want := compact(`{"success":true,
		"data":{"id":"` + firstID + `","deleted":true,"cascadeCount":1},
		"message":"Task and 1 subtask(s) deleted successfully",
		"metadata":{"timestamp":"2026-11-22T10:00:00Z","version":"2.0"},
		"suggestions":[],"warnings":[]}`)
	if answers[2] != want {
		t.Fatalf("confirmed delete:\n%s\nwant\n%s", answers[2], want)
	}
}

func TestMCPGoServerRefusesAWriteTheUserDeclined(t *testing.T) {
	answers := sameAnswers(t, userDeclines, [][2]string{
		{"task_create", `{"title":"Add OAuth login","type":"feature"}`},
		{"task_delete", `{"id":"` + firstID + `"}`},
	})
	if !strings.Contains(answers[1], `"code":"CONFIRMATION_DECLINED"`) {
		t.Fatalf("declined delete: %s", answers[1])
	}
}

func TestMCPGoRegisterRefusesATakenToolName(t *testing.T) {
	bind := tasksv1mcpwrite.NewTaskService
	s := server.NewMCPServer("tasks-server", "test")
	quiet := runtime.WithRequestContextFunc(runtime.StaticRequestContext(runtime.RequestContext{TenantID: "tenant-quiet", PrincipalID: "user-quiet"}))
	if err := mcpgo.Register(s, bind(domain.New("/projects")), quiet); err != nil {
		t.Fatal(err)
	}
	err := mcpgo.Register(s, bind(domain.New("/projects")), quiet)
	want := `mcpgo: service tasks.v1.TaskService: tool "task_list" is already registered on this server; register the service again with runtime.WithToolNames(prefix, suffix) to give its tools other names`
	if err == nil || err.Error() != want {
		t.Fatalf("second Register: %v\nwant %s", err, want)
	}
	if err := mcpgo.Register(s, bind(domain.New("/projects")), quiet, runtime.WithToolNames("eu_", "")); err != nil {
		t.Fatalf("Register under a prefix: %v", err)
	}
	if s.GetTool("eu_task_create") == nil || s.GetTool("eu_apply_proposal") == nil || s.GetTool("task_create") == nil {
		t.Fatalf("tools after two registrations: %v", len(s.ListTools()))
	}
	if err := mcpgo.Register(nil, bind(domain.New("/projects")), quiet); err == nil || err.Error() != "mcpgo: Register: nil *server.MCPServer" {
		t.Fatalf("nil server: %v", err)
	}
}

// bearer adds an Authorization header to every request.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

func TestMCPGoServerBehindBearerAuthActsForTheTokensTenantAndProposes(t *testing.T) {
	s := server.NewMCPServer("tasks-server", "test", server.WithToolCapabilities(false))
	tracker := domain.New("/projects")
	err := mcpgo.Register(s, tasksv1mcpwrite.NewTaskService(tracker),
		runtime.WithRequestContextFunc(mcpgo.RequestContextFromCall),
		runtime.WithClock(func() time.Time { return now }), runtime.WithRand(&seqReader{}))
	if err != nil {
		t.Fatal(err)
	}
	hook, err := mcphttp.StaticTokens("tok-a=acme:alice,tok-b=globex:bob")
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(mcphttp.BearerAuth(hook)(server.NewStreamableHTTPServer(s)))
	t.Cleanup(hs.Close)
	for _, tc := range []struct{ token, tenant string }{{"tok-a", "acme"}, {"tok-b", "globex"}} {
		user := mcptest.Accept(true)
		client := mcptest.NewClient(t, &mcp.Implementation{Name: "agent", Version: "test"}, &mcp.ClientOptions{ElicitationHandler: user.Handler})
		cs, err := client.Connect(context.Background(),
			&mcp.StreamableClientTransport{Endpoint: hs.URL + "/mcp", HTTPClient: &http.Client{Transport: bearer{tc.token}}},
			&mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"}) // a protocol on which mcp-go asks inside a call
		if err != nil {
			t.Fatalf("connect with %s: %v", tc.token, err)
		}
		t.Cleanup(func() { _ = cs.Close() })
		r := mcptest.Call(t, cs, "task_create", `{"title":"Add OAuth login","type":"feature"}`)
		data, _ := r.Body["data"].(map[string]any)
		id, _ := data["id"].(string)
		// The answer's path is relative to the project root; the task
		// lives in the token's tenant's project.
		if _, ok := tracker.Task(tc.tenant, "/projects/"+tc.tenant, id); r.IsError || !ok || data["path"] != ".tasks/backlog/"+id+".task.md" {
			t.Fatalf("%s: created for the wrong tenant: %s", tc.token, r.Text)
		}
		// mcp-go does not bind the session to the token, so an
		// authenticated call is not asked in the call: it is proposed,
		// and only its caller can apply it.
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		del, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "task_delete", Arguments: json.RawMessage(`{"id":"` + id + `"}`)})
		cancel()
		if err != nil {
			t.Fatalf("%s: task_delete: %v (asked %q)", tc.token, err, user.Asked())
		}
		var body struct {
			Proposal *struct {
				ApplyWith string `json:"apply_with"`
			} `json:"proposal"`
		}
		raw, _ := json.Marshal(del.StructuredContent)
		if err := json.Unmarshal(raw, &body); err != nil || del.IsError || body.Proposal == nil || body.Proposal.ApplyWith != "apply_proposal" || len(user.Asked()) != 0 {
			t.Fatalf("%s: task_delete was not proposed (asked %q): %s", tc.token, user.Asked(), raw)
		}
		_ = cs.Close()
	}
	res, err := http.Post(hs.URL+"/mcp", "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	if err != nil {
		t.Fatal(err)
	}
	_ = res.Body.Close()
	if res.StatusCode != http.StatusUnauthorized {
		t.Fatalf("without a token: status %d, want 401", res.StatusCode)
	}
}

// A request-context function of go-sdk's request is refused on an mcp-go
// server when the service is registered, naming both types and the fix.
func TestMCPGoRefusesAGoSDKRequestContextFunc(t *testing.T) {
	s := server.NewMCPServer("tasks-server", "test", server.WithToolCapabilities(false))
	err := mcpgo.Register(s, tasksv1mcpwrite.NewTaskService(domain.New("/projects")),
		runtime.WithRequestContextFunc(mcphttp.RequestContextFromCall))
	want := "runtime: service tasks.v1.TaskService: WithRequestContextFunc takes a function of *mcp.CallToolRequest (github.com/modelcontextprotocol/go-sdk/mcp), " +
		"but this server's calls are mcp.CallToolRequest (github.com/mark3labs/mcp-go/mcp); " +
		"pass a function of mcp.CallToolRequest (github.com/mark3labs/mcp-go/mcp) (or runtime.StaticRequestContext)"
	if err == nil || err.Error() != want {
		t.Fatalf("err = %v\nwant %s", err, want)
	}
	if s.GetTool("task_create") != nil {
		t.Fatal("a refused registration added task_create")
	}
}
