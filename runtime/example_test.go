package runtime_test

import (
	"context"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	tasks "github.com/mcpwrite/protoc-gen-mcpwrite/examples/tasks/domain"
	tasksv1 "github.com/mcpwrite/protoc-gen-mcpwrite/examples/tasks/gen/tasks/v1"
	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/tasks/gen/tasks/v1/tasksv1mcpwrite"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/gosdk"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/idempotency"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/proposal"
)

// Register serves a generated service's tools on an MCP server: here the
// example task tracker, for one user of a stdio server (a static request
// context), called by an in-memory client.
func ExampleRegister() {
	server := mcp.NewServer(&mcp.Implementation{Name: "tasks", Version: "v1"}, nil)
	svc := tasksv1mcpwrite.NewTaskService(tasks.New("/projects"))
	rc := runtime.StaticRequestContext(runtime.RequestContext{TenantID: "acme", PrincipalID: "ada"})
	if err := gosdk.Register(server, svc, runtime.WithRequestContextFunc(rc)); err != nil {
		panic(err)
	}
	ctx := context.Background()
	ct, st := mcp.NewInMemoryTransports()
	if _, err := server.Connect(ctx, st, nil); err != nil {
		panic(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "v1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		panic(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "task_create", Arguments: map[string]any{"title": "Add OAuth login", "type": "feture"}})
	if err != nil {
		panic(err)
	}
	fmt.Println(res.IsError, res.Content[0].(*mcp.TextContent).Text)
	// Output:
	// true {"success":false,"error":{"code":"INVALID_ENUM_VALUE","message":"invalid value \"fet…\" for type; did you mean \"feature\"?","field":"type","suggestions":{"did_you_mean":["feature"],"valid_values":["feature","bug","chore","documentation","test","spike","idea"]}},"errors":[{"code":"INVALID_ENUM_VALUE","message":"invalid value \"fet…\" for type; did you mean \"feature\"?","field":"type","suggestions":{"did_you_mean":["feature"],"valid_values":["feature","bug","chore","documentation","test","spike","idea"]}}]}
}

// NewPreparer runs the strict decode, validation and enrichment of a tool
// call without a server: for a test of a domain, or an agent framework
// that calls the handlers itself. Decode reports every problem at once.
func ExampleNewPreparer() {
	p, err := runtime.NewPreparer(tasksv1mcpwrite.NewTaskService(tasks.New("/projects")))
	if err != nil {
		panic(err)
	}
	_, errs := p.Decode("task_create", []byte(`{"title":"Add OAuth login","typ":"feature"}`))
	for _, e := range errs {
		fmt.Println(e.Code, e.Field, e.Message)
	}
	m, errs := p.Prepare(context.Background(), "task_create", []byte(`{"title":"Add OAuth login","type":"feature"}`), runtime.RequestContext{TenantID: "acme", PrincipalID: "ada"})
	req := m.(*tasksv1.TaskCreateRequest)
	// rootDir was left out: the session's project, ".", which the domain
	// resolves inside the tenant's own directory.
	fmt.Println(len(errs), req.GetTitle(), req.GetType(), req.GetRootDir())
	// Output:
	// UNKNOWN_FIELD typ unknown field "typ"; did you mean "type"?
	// MISSING_REQUIRED_FIELD type missing required field "type"
	// 0 Add OAuth login TASK_TYPE_FEATURE .
}

// The request context says who calls: a handler reads it with
// RequestContextFrom, and a server that learns the caller before the
// tool call (a middleware) puts it on the context with WithRequestContext.
func ExampleRequestContextFrom() {
	ctx := runtime.WithRequestContext(context.Background(), runtime.RequestContext{TenantID: "acme", PrincipalID: "ada"})
	if rc, ok := runtime.RequestContextFrom(ctx); ok {
		fmt.Println(rc.TenantID, rc.PrincipalID)
	}
	_, ok := runtime.RequestContextFrom(context.Background())
	fmt.Println(ok)
	// Output:
	// acme ada
	// false
}

// A server that replays a retried write and keeps proposals for the user
// to confirm needs stores: here the in-memory ones of a single process
// (runtime/idempotency and runtime/proposal also hold Postgres and Redis
// stores for several replicas).
func ExampleWithIdempotency() {
	server := mcp.NewServer(&mcp.Implementation{Name: "tasks", Version: "v1"}, nil)
	err := gosdk.Register(server, tasksv1mcpwrite.NewTaskService(tasks.New("/projects")),
		runtime.WithRequestContextFunc(runtime.StaticRequestContext(runtime.RequestContext{TenantID: "acme", PrincipalID: "ada"})),
		runtime.WithIdempotency(runtime.IdempotencyOptions{Store: idempotency.NewMemoryStore(), TTL: 24 * time.Hour}),
		runtime.WithProposals(proposal.NewMemoryStore(), 15*time.Minute),
	)
	fmt.Println(err)
	// Output:
	// <nil>
}
