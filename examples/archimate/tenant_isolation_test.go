package archimate_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/testing/protocmp"

	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/domain"
	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/server"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcptest"
)

// Two tenants whose principals share a name: nothing may be keyed by the
// principal alone.
var (
	isoA = runtime.RequestContext{TenantID: "tenant-a", PrincipalID: "user-1"}
	isoB = runtime.RequestContext{TenantID: "tenant-b", PrincipalID: "user-1"}
)

// isoServer is one server the two tenants share, each through its own client.
func isoServer(t *testing.T) (repo *domain.Repository, a, b *mcp.ClientSession) {
	t.Helper()
	repo = domain.New()
	who := map[string]runtime.RequestContext{"agent-a": isoA, "agent-b": isoB}
	s, err := server.New(repo, runtime.WithRequestContextFunc(func(_ context.Context, req *mcp.CallToolRequest) (runtime.RequestContext, bool) {
		ci := req.ClientInfo()
		if ci == nil {
			return runtime.RequestContext{}, false
		}
		rc, ok := who[ci.Name]
		return rc, ok
	}))
	if err != nil {
		t.Fatal(err)
	}
	return repo, mcptest.Connect(t, s, mcptest.Options{ClientName: "agent-a"}), mcptest.Connect(t, s, mcptest.Options{ClientName: "agent-b"})
}

// masked is the answer masked for comparison (mcptest.Masked): ids replaced,
// the generated values of a validate_write preview removed.
func masked(t *testing.T, r mcptest.Result, ids ...string) any {
	t.Helper()
	return mcptest.Masked(t, r, []string{"meta"}, ids...)
}

// ok calls a tool that must succeed and returns its answer.
func ok(t *testing.T, cs *mcp.ClientSession, tool, args string) mcptest.Result {
	t.Helper()
	r := mcptest.Call(t, cs, tool, args)
	if r.IsError {
		t.Fatalf("%s %s: %s", tool, args, r.Text)
	}
	return r
}

// probe is one call tenant B makes with tenant A's ids, and the same call
// with ids that never existed.
type probe struct {
	tool       string
	args       string   // with %[1]s, %[2]s, ... for the ids
	foreign    []string // tenant A's ids
	neverThere []string // ids no tenant ever had
}

func (p probe) with(ids []string) string {
	s := p.args
	for i, id := range ids {
		s = strings.ReplaceAll(s, "{"+string(rune('0'+i))+"}", id)
	}
	return s
}

// A second tenant can neither read, overwrite nor learn of the first
// tenant's ids through any tool: every answer to tenant B about A's ids is
// byte for byte the answer about an id that never existed, B's creates with
// A's ids make B's own entities, and A's entities stay as they were.
func TestTenantIsolationThroughEveryTool(t *testing.T) {
	repo, a, b := isoServer(t)

	// Tenant A's world: generated and agent-chosen ids, a request-scoped
	// relationship, both templates and a pending delete proposal.
	e1 := createdID(t, ok(t, a, "createElement", `{"type":"ApplicationComponent","name":"OrderService"}`).Body)
	e2 := createdID(t, ok(t, a, "createElement", `{"id":"a-chosen-1","type":"ApplicationService","name":"Orders"}`).Body)
	capA := ok(t, a, "createCapability", `{"id":"a-cap-1","name":"Fulfillment","profile":{"owner":"Supply","criticality":"High","lifecycle":"Active"}}`).Body["capability"].(map[string]any)["id"].(string)
	relA := createdID(t, ok(t, a, "createRelationship", `{"type":"Realization","source_id":"`+e1+`","target_id":"`+e2+`","client_request_id":"shared-key"}`).Body)
	tmpl := ok(t, a, "createCapabilityStructure", `{"name":"Billing","value_streams":["Invoice to Cash"],"client_request_id":"tmpl-key"}`).Body
	tmplA := tmpl["capability"].(map[string]any)["id"].(string)
	compA := ok(t, a, "addComponentToCapability", `{"capability_id":"`+capA+`","component_name":"FulfillmentApp","services":["Shipping API"],"client_request_id":"comp-key"}`).Body["component"].(map[string]any)["id"].(string)
	proposal := ok(t, a, "deleteElement", `{"id":"`+e2+`"}`).Body["proposal"].(map[string]any)["proposal_id"].(string)
	if e2 != "a-chosen-1" || capA != "a-cap-1" {
		t.Fatalf("agent-chosen ids not kept: %s, %s", e2, capA)
	}
	elementsA := []string{e1, e2, capA, tmplA, tmplA + "-vs-1", compA, compA + "-svc-1"}
	before := map[string]proto.Message{}
	for _, id := range elementsA {
		e, found := repo.Element(isoA.TenantID, id)
		if !found {
			t.Fatalf("tenant A has no element %s", id)
		}
		before[id] = e
	}
	relsA := []string{relA, tmplA + "-vs-1-rel", compA + "-rel", compA + "-svc-1-rel"}
	for _, id := range relsA {
		r, found := repo.Relationship(isoA.TenantID, id)
		if !found {
			t.Fatalf("tenant A has no relationship %s", id)
		}
		before[id] = r
	}

	// Tenant B has an element of its own, so not-found answers have similar
	// elements to list: only B's may appear.
	ownB := createdID(t, ok(t, b, "createElement", `{"type":"Node","name":"B-host"}`).Body)

	covered := map[string]bool{}
	var probes []probe
	for _, id := range elementsA {
		probes = append(probes,
			probe{"updateElement", `{"id":"{0}","name":"Hijacked"}`, []string{id}, []string{"0190f5e2-7c1a-7000-8000-00000000dead"}},
			probe{"deleteElement", `{"id":"{0}"}`, []string{id}, []string{"0190f5e2-7c1a-7000-8000-00000000dead"}},
			probe{"deleteElement", `{"id":"{0}","cascade":false}`, []string{id}, []string{"0190f5e2-7c1a-7000-8000-00000000dead"}},
			probe{"createElement", `{"type":"Node","name":"Child","parent_id":"{0}"}`, []string{id}, []string{"0190f5e2-7c1a-7000-8000-00000000dead"}},
			probe{"createElements", `{"elements":[{"type":"Node","name":"Child","parent_id":"{0}"}]}`, []string{id}, []string{"0190f5e2-7c1a-7000-8000-00000000dead"}},
			probe{"validateWrite", `{"operation":"updateElement","payload":{"id":"{0}","name":"Hijacked"}}`, []string{id}, []string{"0190f5e2-7c1a-7000-8000-00000000dead"}},
			probe{"validateWrite", `{"operation":"deleteElement","payload":{"id":"{0}"}}`, []string{id}, []string{"0190f5e2-7c1a-7000-8000-00000000dead"}},
		)
	}
	probes = append(probes,
		probe{"createRelationship", `{"type":"Realization","source_id":"{0}","target_id":"{1}"}`, []string{e1, e2}, []string{"never-1", "never-2"}},
		probe{"createRelationship", `{"type":"Realization","source_id":"{0}","target_id":"` + ownB + `"}`, []string{e1}, []string{"never-1"}},
		probe{"addComponentToCapability", `{"capability_id":"{0}","component_name":"Hijack"}`, []string{capA}, []string{"never-cap"}},
		probe{"addComponentToCapability", `{"capability_id":"{0}","component_name":"Hijack"}`, []string{tmplA}, []string{"never-cap"}},
		probe{"applyProposal", `{"proposal_id":"{0}"}`, []string{proposal}, []string{"prop-never-existed"}},
		probe{"discardProposal", `{"proposal_id":"{0}"}`, []string{proposal}, []string{"prop-never-existed"}},
	)
	for _, p := range probes {
		covered[p.tool] = true
		never := mcptest.Call(t, b, p.tool, p.with(p.neverThere))
		got := mcptest.Call(t, b, p.tool, p.with(p.foreign))
		if !got.IsError && p.tool != "validateWrite" && p.tool != "createElements" {
			t.Errorf("%s %s succeeded for tenant B: %s", p.tool, p.with(p.foreign), got.Text)
		}
		if p.tool == "createElements" && got.Body["failed"] != float64(1) {
			t.Errorf("%s %s wrote for tenant B: %s", p.tool, p.with(p.foreign), got.Text)
		}
		if diff := cmp.Diff(masked(t, never, p.neverThere...), masked(t, got, p.foreign...)); diff != "" {
			t.Errorf("%s %s: tenant A's ids answer differently from ids that never existed (-never +A's):\n%s", p.tool, p.args, diff)
		}
		if strings.Contains(got.Text, "Orders") || strings.Contains(got.Text, "OrderService") {
			t.Errorf("%s: answer names tenant A's elements: %s", p.tool, got.Text)
		}
	}

	// Creates with A's ids make B's own entities; request-scoped ids of the
	// same key differ per tenant.
	covered["createElement"], covered["createCapability"] = true, true
	if id := createdID(t, ok(t, b, "createElement", `{"id":"`+e2+`","type":"Node","name":"B-box"}`).Body); id != e2 {
		t.Errorf("B's createElement with A's id made %s", id)
	}
	if e, _ := repo.Element(isoB.TenantID, e2); e.GetName() != "B-box" {
		t.Errorf("B's element %s = %v", e2, e)
	}
	if r := ok(t, b, "createCapability", `{"id":"`+capA+`","name":"B-cap","profile":{"owner":"B","criticality":"Low","lifecycle":"Planned"}}`); r.Body["capability"].(map[string]any)["id"] != capA {
		t.Errorf("B's createCapability with A's id: %s", r.Text)
	}
	covered["createCapabilityStructure"], covered["createRelationship"], covered["addComponentToCapability"] = true, true, true
	// A batch item's key is the tenant's own: A's key sent by B with the
	// same item writes B's element, never replays A's.
	itemA := ok(t, a, "createElements", `{"elements":[{"type":"Node","name":"Imported","client_request_id":"item-key"}]}`).Body["results"].([]any)[0].(map[string]any)
	itemB := ok(t, b, "createElements", `{"elements":[{"type":"Node","name":"Imported","client_request_id":"item-key"}]}`).Body["results"].([]any)[0].(map[string]any)
	if itemB["idempotent_replay"] != nil || itemB["success"] != true || itemB["element"].(map[string]any)["id"] == itemA["element"].(map[string]any)["id"] {
		t.Errorf("B's batch item with A's item key: %v (A's: %v)", itemB, itemA)
	}
	tmplB := ok(t, b, "createCapabilityStructure", `{"name":"Billing","value_streams":["Invoice to Cash"],"client_request_id":"tmpl-key"}`).Body["capability"].(map[string]any)["id"].(string)
	x := createdID(t, ok(t, b, "createElement", `{"type":"ApplicationComponent","name":"BComp"}`).Body)
	y := createdID(t, ok(t, b, "createElement", `{"type":"ApplicationService","name":"BSvc"}`).Body)
	relB := createdID(t, ok(t, b, "createRelationship", `{"type":"Realization","source_id":"`+x+`","target_id":"`+y+`","client_request_id":"shared-key"}`).Body)
	compB := ok(t, b, "addComponentToCapability", `{"capability_id":"`+tmplB+`","component_name":"BApp","client_request_id":"comp-key"}`).Body["component"].(map[string]any)["id"].(string)
	if tmplB == tmplA || relB == relA || compB == compA {
		t.Errorf("request-scoped ids of one key collide across tenants: %s/%s %s/%s %s/%s", tmplA, tmplB, relA, relB, compA, compB)
	}

	// Tools without ids answer both tenants alike.
	for _, c := range [][2]string{
		{"getElementTypes", `{}`}, {"getElementTypes", `{"group":"Application"}`},
		{"getRelationshipTypes", `{"source_type":"ApplicationComponent"}`}, {"getWriteSchema", `{"operation":"createElement"}`},
	} {
		covered[c[0]] = true
		if ra, rb := mcptest.Call(t, a, c[0], c[1]), mcptest.Call(t, b, c[0], c[1]); ra.Text != rb.Text {
			t.Errorf("%s answers the tenants differently:\n A: %s\n B: %s", c[0], ra.Text, rb.Text)
		}
	}

	// Tenant A's entities are as they were, and its proposal still applies.
	for id, want := range before {
		var got proto.Message
		if e, found := repo.Element(isoA.TenantID, id); found {
			got = e
		} else if r, found := repo.Relationship(isoA.TenantID, id); found {
			got = r
		}
		if diff := cmp.Diff(want, got, protocmp.Transform()); diff != "" {
			t.Errorf("tenant A's %s changed (-before +after):\n%s", id, diff)
		}
	}
	if r := ok(t, a, "applyProposal", `{"proposal_id":"`+proposal+`"}`); r.Body["id"] != e2 {
		t.Errorf("A's apply: %s", r.Text)
	}
	if e, found := repo.Element(isoB.TenantID, e2); !found || e.GetName() != "B-box" {
		t.Errorf("A's delete reached B's element %s: %v", e2, e)
	}

	// Every tool of the server was driven by tenant B.
	res, err := b.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var missing []string
	for _, tool := range res.Tools {
		if !covered[tool.Name] {
			missing = append(missing, tool.Name)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("tools not probed across tenants: %v", missing)
	}
}

// The takeover itself: a create with an agent-chosen id that the tenant
// already uses is refused and never overwrites, for createElement and
// createCapability alike.
func TestCreateWithATakenIDNeverOverwrites(t *testing.T) {
	repo, a, _ := isoServer(t)
	ok(t, a, "createCapability", `{"id":"cap-1","name":"Fulfillment","profile":{"owner":"Supply","criticality":"High","lifecycle":"Active"}}`)
	before, _ := repo.Element(isoA.TenantID, "cap-1")
	for _, c := range [][2]string{
		{"createCapability", `{"id":"cap-1","name":"Takeover","profile":{"owner":"Mallory","criticality":"Low","lifecycle":"Retiring"}}`},
		{"createElement", `{"id":"cap-1","type":"Node","name":"Takeover"}`},
	} {
		r := mcptest.Call(t, a, c[0], c[1])
		want := `{"success":false,"error":{"code":"ALREADY_EXISTS","message":"element id cap-1 already exists"},"errors":[{"code":"ALREADY_EXISTS","message":"element id cap-1 already exists"}]}`
		if !r.IsError || r.Text != want {
			t.Errorf("%s with a taken id:\n got: %s\nwant: %s", c[0], r.Text, want)
		}
	}
	after, _ := repo.Element(isoA.TenantID, "cap-1")
	if diff := cmp.Diff(before, after, protocmp.Transform()); diff != "" {
		t.Errorf("the element changed (-before +after):\n%s", diff)
	}
}

// Request-scoped ids are keyed with the server's secret: two processes
// given the same secret (an instance and its restart, or two instances)
// name a retried template the same; another secret, or none (a random one
// per process), names it differently, so no one without the secret can
// compute the id.
func TestRequestScopedIDsAcrossProcessesFollowTheSecret(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the server binary")
	}
	bin := serverBinary(t)
	secretFile := filepath.Join(t.TempDir(), "id-secret")
	if err := os.WriteFile(secretFile, []byte("3a7bd3e2360a3d29eea436fcfb7e44c735d117c42d1c1835420b6b9942dd4f1b\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	run := func(env string, args ...string) string {
		t.Helper()
		cmd := exec.Command(bin, append([]string{"-tenant", "tenant-a"}, args...)...)
		cmd.Env = append(os.Environ(), "MCPWRITE_ID_SECRET="+env)
		cs, err := mcptest.NewClient(t, &mcp.Implementation{Name: "secret", Version: "test"}, nil).
			Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()
		r := ok(t, cs, "createCapabilityStructure", `{"name":"Fulfillment","client_request_id":"retry-1"}`)
		return r.Body["capability"].(map[string]any)["id"].(string)
	}
	withEnv := run("3a7bd3e2360a3d29eea436fcfb7e44c735d117c42d1c1835420b6b9942dd4f1b")
	if again := run("3a7bd3e2360a3d29eea436fcfb7e44c735d117c42d1c1835420b6b9942dd4f1b"); again != withEnv {
		t.Errorf("same secret, different ids: %s, %s", withEnv, again)
	}
	if fromFile := run("", "-id-secret-file", secretFile); fromFile != withEnv {
		t.Errorf("the secret from -id-secret-file gives %s, from the environment %s", fromFile, withEnv)
	}
	if other := run("5feceb66ffc86f38d952786c6d696c79c2dbc239dd4e91b46729d73a27fb57e9"); other == withEnv {
		t.Errorf("another secret gives the same id %s", other)
	}
	if x, y := run(""), run(""); x == y || x == withEnv {
		t.Errorf("without a secret each process must key its own: %s, %s", x, y)
	}
	out, err := exec.Command(bin, "-id-secret-file", os.DevNull).CombinedOutput()
	if want := "ID secret from -id-secret-file /dev/null refused: it has 0 bytes, want at least 32; write at least 32 random bytes (e.g. `openssl rand -hex 32`) to a file and pass -id-secret-file <file>, or set MCPWRITE_ID_SECRET\n"; err == nil || !strings.HasSuffix(string(out), want) {
		t.Errorf("empty secret: %v, %q; want exit with ...%q", err, out, want)
	}
}
