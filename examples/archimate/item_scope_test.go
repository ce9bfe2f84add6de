package archimate_test

import (
	"context"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/domain"
	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/server"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcptest"
)

// An item's key is scoped to the tenant and principal, and so is the id
// the server derives from it: two principals of one tenant who use the
// same item key each write an element of their own, neither answer names
// the other's element, and each principal's retry replays its own.
func TestItemKeysOfTwoPrincipalsGiveElementsOfTheirOwn(t *testing.T) {
	who := map[string]runtime.RequestContext{
		"agent-1": {TenantID: "acme", PrincipalID: "user-1"},
		"agent-2": {TenantID: "acme", PrincipalID: "user-2"},
	}
	s, err := server.New(domain.New(), runtime.WithRequestContextFunc(func(_ context.Context, req *mcp.CallToolRequest) (runtime.RequestContext, bool) {
		rc, ok := who[req.ClientInfo().Name]
		return rc, ok
	}))
	if err != nil {
		t.Fatal(err)
	}
	one := mcptest.Connect(t, s, mcptest.Options{ClientName: "agent-1"})
	two := mcptest.Connect(t, s, mcptest.Options{ClientName: "agent-2"})
	// Each principal's item has its own name (names are unique in the
	// tenant's model) and the same item key.
	element := func(cs *mcp.ClientSession, name string) (id string, replay bool, text string) {
		t.Helper()
		r := mcptest.Call(t, cs, "createElements", `{"elements":[{"type":"Node","name":"`+name+`","client_request_id":"host-a"}]}`)
		if r.IsError {
			t.Fatalf("createElements: %s", r.Text)
		}
		res := r.Body["results"].([]any)[0].(map[string]any)
		if res["success"] != true {
			t.Fatalf("createElements item: %s", r.Text)
		}
		el := res["element"].(map[string]any)
		replay, _ = res["idempotent_replay"].(bool)
		return el["id"].(string), replay, r.Text
	}
	id1, replay1, _ := element(one, "Host A")
	id2, replay2, text2 := element(two, "Host B")
	if id1 == id2 || replay1 || replay2 {
		t.Fatalf("user-1 wrote %s (replay %v), user-2 %s (replay %v): want two elements, neither a replay", id1, replay1, id2, replay2)
	}
	if strings.Contains(text2, id1) {
		t.Fatalf("user-2's answer names user-1's element %s: %s", id1, text2)
	}
	again, replay, text := element(one, "Host A")
	if again != id1 || !replay || strings.Contains(text, id2) {
		t.Fatalf("user-1's retry: %s (replay %v), want the replay of %s: %s", again, replay, id1, text)
	}
}
