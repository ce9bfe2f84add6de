package mcptest_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/domain"
	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/gen/archimate/v1/archimatev1mcpwrite"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcptest"
)

// exampleTB stands in for the *testing.T a real test passes: it prints
// failures and runs cleanups when the example is done.
type exampleTB struct {
	testing.TB
	cleanups []func()
}

func (*exampleTB) Helper()                           {}
func (*exampleTB) Fatalf(format string, args ...any) { fmt.Printf("FAIL: "+format+"\n", args...) }
func (e *exampleTB) Cleanup(f func())                { e.cleanups = append(e.cleanups, f) }

func (e *exampleTB) done() {
	for i := len(e.cleanups) - 1; i >= 0; i-- {
		e.cleanups[i]()
	}
}

// A test connects a client to the server under test and calls a tool with the
// arguments an agent would send.
func Example() {
	t := &exampleTB{} // in a test: func TestGreet(t *testing.T)
	defer t.done()

	server := mcp.NewServer(&mcp.Implementation{Name: "greeter", Version: "v1"}, nil)
	type in struct {
		Name string `json:"name"`
	}
	type out struct {
		Greeting string `json:"greeting"`
	}
	mcp.AddTool(server, &mcp.Tool{Name: "greet"}, func(_ context.Context, _ *mcp.CallToolRequest, i in) (*mcp.CallToolResult, out, error) {
		return nil, out{Greeting: "hello, " + i.Name}, nil
	})

	cs := mcptest.Connect(t, server, mcptest.Options{})
	res := mcptest.Call(t, cs, "greet", `{"name":"Ada"}`)
	fmt.Println(res.IsError, res.Text)
	fmt.Println(res.Body["greeting"])
	// Output:
	// false {"greeting":"hello, Ada"}
	// hello, Ada
}

// A destructive generated tool asks the user before it writes; the Elicitor
// plays the user and keeps the question for assertions.
func ExampleAccept() {
	t := &exampleTB{}
	defer t.done()

	repo := domain.New()
	server := mcp.NewServer(&mcp.Implementation{Name: "archimate", Version: "v1"}, nil)
	err := archimatev1mcpwrite.RegisterArchitectureServiceTools(server, repo,
		runtime.WithClock(func() time.Time { return time.Date(2026, 11, 22, 10, 30, 0, 0, time.UTC) }),
		runtime.WithRand(rand.NewChaCha8([32]byte{1})),
		runtime.WithRequestContextFunc(runtime.StaticRequestContext(runtime.RequestContext{TenantID: "tenant-acme", PrincipalID: "user-ada"})),
		runtime.WithPreviews(runtime.Previews{Loss: repo.PreviewLoss}))
	if err != nil {
		t.Fatalf("register: %v", err)
	}

	user := mcptest.Accept(true)
	cs := mcptest.Connect(t, server, mcptest.Options{Elicit: user.Handler})
	created := mcptest.Call(t, cs, "createElement", `{"type":"Node","name":"db-1"}`)
	id := created.Body["element"].(map[string]any)["id"].(string)

	deleted := mcptest.Call(t, cs, "deleteElement", `{"id":"`+id+`"}`)
	fmt.Println(deleted.IsError, deleted.Body["id"] == id)
	asked := user.Asked()
	question, _, _ := strings.Cut(asked[0], "\n")
	fmt.Println(len(asked), strings.ReplaceAll(question, id, "ID"))
	// Output:
	// false true
	// 1 Confirm Delete element: id="ID". This permanently deletes data; it cannot be undone. What will be lost: element db-1.
}
