package crm_test

import (
	"context"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/testing/protocmp"

	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/crm/domain"
	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/crm/gen/crm/v1/crmv1mcpwrite"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcptest"
)

// Two tenants whose users share a name: records are the user's within its
// tenant, never the name's.
var (
	isoA = runtime.RequestContext{TenantID: "tenant-a", PrincipalID: "user-1"}
	isoB = runtime.RequestContext{TenantID: "tenant-b", PrincipalID: "user-1"}
)

// isoServer is one CRM the two tenants share. Tenant A confirms its writes
// through proposals as usual; tenant B's writes run directly, so every probe
// reaches the domain handler itself.
func isoServer(t *testing.T) (*domain.CRM, *mcp.ClientSession, *mcp.ClientSession) {
	t.Helper()
	crm := domain.New(func() time.Time { return fixedNow })
	who := map[string]runtime.RequestContext{"agent-a": isoA, "agent-b": isoB}
	s := mcp.NewServer(&mcp.Implementation{Name: "crm", Version: "test"}, nil)
	err := crmv1mcpwrite.RegisterCrmServiceTools(s, crm,
		runtime.WithErrorHook(domain.ErrorHook),
		runtime.WithPolicy(func(_ context.Context, pc runtime.PolicyCall) runtime.Confirmation {
			if pc.RequestContext.TenantID == isoB.TenantID {
				return runtime.ConfirmDirect
			}
			return ""
		}),
		runtime.WithRequestContextFunc(mcptest.ContextByClientName(who)))
	if err != nil {
		t.Fatal(err)
	}
	return crm, mcptest.Connect(t, s, mcptest.Options{ClientName: "agent-a"}), mcptest.Connect(t, s, mcptest.Options{ClientName: "agent-b"})
}

// isoMasked is the answer masked for comparison (mcptest.Masked): ids replaced,
// the generated values of a validate_write preview removed.
func isoMasked(t *testing.T, r mcptest.Result, ids ...string) any {
	t.Helper()
	return mcptest.Masked(t, r, []string{"id"}, ids...)
}

func isoOK(t *testing.T, cs *mcp.ClientSession, tool, args string) map[string]any {
	t.Helper()
	r := mcptest.Call(t, cs, tool, args)
	if r.IsError {
		t.Fatalf("%s %s: %s", tool, args, r.Text)
	}
	return r.Body
}

// isoCommit proposes a write as tenant A and applies it.
func isoCommit(t *testing.T, cs *mcp.ClientSession, tool, args string) map[string]any {
	t.Helper()
	p := isoOK(t, cs, tool, args)["proposal"].(map[string]any)["proposal_id"].(string)
	return isoOK(t, cs, "apply_proposal", `{"proposal_id":"`+p+`"}`)
}

// A second tenant can neither read, overwrite nor learn of the first
// tenant's ids through any tool: every answer to tenant B about A's ids is
// the answer about an id that never existed, B's names and emails are its
// own, and A's records stay as they were.
func TestTenantIsolationThroughEveryTool(t *testing.T) {
	crm, a, b := isoServer(t)
	person := isoCommit(t, a, "create_person", `{"first_name":"Ada","last_name":"Lovelace","email":"ada@example.org"}`)["person"].(map[string]any)["id"].(string)
	person2 := isoCommit(t, a, "create_person", `{"first_name":"Grace","email":"grace@example.org"}`)["person"].(map[string]any)["id"].(string)
	org := isoCommit(t, a, "create_org", `{"name":"Analytical Engines","domain":"engines.example"}`)["org"].(map[string]any)["id"].(string)
	note := isoCommit(t, a, "create_note", `{"person_id":"`+person+`","body":"Met at the Royal Society"}`)["note"].(map[string]any)["id"].(string)
	pending := isoOK(t, a, "delete_person", `{"person_id":"`+person2+`"}`)["proposal"].(map[string]any)["proposal_id"].(string)
	records := map[[2]string]proto.Message{}
	for _, r := range [][2]string{{"person", person}, {"person", person2}, {"org", org}, {"note", note}} {
		m, found := crm.Record(isoA.TenantID, isoA.PrincipalID, r[0], r[1])
		if !found {
			t.Fatalf("tenant A has no %s %s", r[0], r[1])
		}
		records[r] = m
	}

	// Tenant B has records of its own.
	ownPerson := isoOK(t, b, "create_person", `{"first_name":"Hank"}`)["person"].(map[string]any)["id"].(string)
	ownOrg := isoOK(t, b, "create_org", `{"name":"Globex"}`)["org"].(map[string]any)["id"].(string)

	const never = "per_0190f5e2-7c1a-7000-8000-00000000dead"
	probes := []struct {
		tool, args      string
		foreign, absent []string
	}{
		{"update_person", `{"person_id":"{0}","first_name":"Mallory"}`, []string{person}, []string{never}},
		{"delete_person", `{"person_id":"{0}"}`, []string{person}, []string{never}},
		{"update_org", `{"org_id":"{0}","name":"Hijacked"}`, []string{org}, []string{"org_never"}},
		{"delete_org", `{"org_id":"{0}"}`, []string{org}, []string{"org_never"}},
		{"create_person", `{"first_name":"Eve","org_id":"{0}"}`, []string{org}, []string{"org_never"}},
		{"create_note", `{"person_id":"{0}","body":"x"}`, []string{person}, []string{never}},
		{"create_note", `{"org_id":"{0}","body":"x"}`, []string{org}, []string{"org_never"}},
		{"add_note_to_person", `{"person_id":"{0}","body":"x"}`, []string{person}, []string{never}},
		{"update_note", `{"note_id":"{0}","body":"overwritten"}`, []string{note}, []string{"note_never"}},
		{"delete_note", `{"note_id":"{0}"}`, []string{note}, []string{"note_never"}},
		{"link_person_to_org", `{"person_id":"{0}","org_id":"{1}"}`, []string{person, org}, []string{never, "org_never"}},
		{"link_person_to_org", `{"person_id":"` + ownPerson + `","org_id":"{0}"}`, []string{org}, []string{"org_never"}},
		{"link_person_to_org", `{"person_id":"{0}","org_id":"` + ownOrg + `"}`, []string{person}, []string{never}},
		{"merge_people", `{"source_person_id":"{0}","target_person_id":"` + ownPerson + `"}`, []string{person}, []string{never}},
		{"merge_people", `{"source_person_id":"` + ownPerson + `","target_person_id":"{0}"}`, []string{person}, []string{never}},
		{"validate_write", `{"operation":"update_person","payload":{"person_id":"{0}","first_name":"Mallory"}}`, []string{person}, []string{never}},
		{"validate_write", `{"operation":"delete_note","payload":{"note_id":"{0}"}}`, []string{note}, []string{"note_never"}},
		{"get_person", `{"person_id":"{0}"}`, []string{person}, []string{never}},
		{"get_org", `{"org_id":"{0}"}`, []string{org}, []string{"org_never"}},
		{"get_note", `{"note_id":"{0}"}`, []string{note}, []string{"note_never"}},
		{"list_notes", `{"person_id":"{0}"}`, []string{person}, []string{never}},
		{"list_notes", `{"org_id":"{0}"}`, []string{org}, []string{"org_never"}},
		{"find_people_at_org", `{"org_id":"{0}"}`, []string{org}, []string{"org_never"}},
		{"find_people_at_org", `{"org_name":"{0}"}`, []string{"Analytical Engines"}, []string{"Never Ltd"}},
		{"apply_proposal", `{"proposal_id":"{0}"}`, []string{pending}, []string{"prop-never-existed"}},
		{"discard_proposal", `{"proposal_id":"{0}"}`, []string{pending}, []string{"prop-never-existed"}},
	}
	covered := map[string]bool{}
	with := func(args string, ids []string) string {
		for i, id := range ids {
			args = strings.ReplaceAll(args, "{"+strconv.Itoa(i)+"}", id)
		}
		return args
	}
	for _, p := range probes {
		covered[p.tool] = true
		absent := mcptest.Call(t, b, p.tool, with(p.args, p.absent))
		got := mcptest.Call(t, b, p.tool, with(p.args, p.foreign))
		if !got.IsError && p.tool != "validate_write" {
			t.Errorf("%s %s succeeded for tenant B: %s", p.tool, with(p.args, p.foreign), got.Text)
		}
		if diff := cmp.Diff(isoMasked(t, absent, p.absent...), isoMasked(t, got, p.foreign...)); diff != "" {
			t.Errorf("%s %s: tenant A's ids answer differently from ids that never existed (-never +A's):\n%s", p.tool, p.args, diff)
		}
	}
	// B's lists hold B's records only, whatever the query or page token.
	covered["list_people"], covered["list_orgs"] = true, true
	lists := []struct{ tool, args, want string }{
		{"list_people", `{}`, `{"success":true,"people":[{"id":"` + ownPerson + `","first_name":"Hank","version":1,"created_at":"2026-06-28T19:52:15Z","updated_at":"2026-06-28T19:52:15Z"}],"suggestions":[],"warnings":[]}`},
		{"list_people", `{"query":"Ada"}`, `{"success":true,"suggestions":[],"warnings":[]}`},
		{"list_orgs", `{}`, `{"success":true,"orgs":[{"id":"` + ownOrg + `","name":"Globex","version":1,"created_at":"2026-06-28T19:52:15Z","updated_at":"2026-06-28T19:52:15Z"}],"suggestions":[],"warnings":[]}`},
		{"list_orgs", `{"query":"engines"}`, `{"success":true,"suggestions":[],"warnings":[]}`},
		{"list_notes", `{}`, `{"success":true,"suggestions":[],"warnings":[]}`},
	}
	for _, l := range lists {
		if got := mcptest.Call(t, b, l.tool, l.args); got.IsError || got.Text != l.want {
			t.Errorf("tenant B %s %s:\n got: %s\nwant: %s", l.tool, l.args, got.Text, l.want)
		}
	}
	if got := mcptest.Call(t, a, "list_people", `{"query":"Ada"}`); got.IsError || len(got.Body["people"].([]any)) != 1 {
		t.Errorf("tenant A list_people Ada: %s", got.Text)
	}
	// A page token issued to A pages through B's own records only.
	token := isoOK(t, a, "list_people", `{"page_size":1}`)["next_page_token"].(string)
	got := mcptest.Call(t, b, "list_people", `{"page_token":"`+token+`"}`)
	page, _ := got.Body["people"].([]any)
	for _, p := range page {
		if id := p.(map[string]any)["id"]; got.IsError || id != ownPerson {
			t.Errorf("tenant B paging with A's token: %s", got.Text)
		}
	}
	if got.IsError || strings.Contains(got.Text, person) || strings.Contains(got.Text, person2) {
		t.Errorf("tenant B paging with A's token: %s", got.Text)
	}

	// Uniqueness is per user: A's org name and email are free for B.
	covered["create_org"], covered["create_person"] = true, true
	isoOK(t, b, "create_org", `{"name":"Analytical Engines"}`)
	isoOK(t, b, "create_person", `{"first_name":"Ada","email":"ada@example.org"}`)
	covered["get_write_schema"] = true
	if ra, rb := mcptest.Call(t, a, "get_write_schema", `{"operation":"create_note"}`), mcptest.Call(t, b, "get_write_schema", `{"operation":"create_note"}`); ra.Text != rb.Text {
		t.Errorf("get_write_schema answers the tenants differently:\n A: %s\n B: %s", ra.Text, rb.Text)
	}

	for r, want := range records {
		got, _ := crm.Record(isoA.TenantID, isoA.PrincipalID, r[0], r[1])
		if diff := cmp.Diff(want, got, protocmp.Transform()); diff != "" {
			t.Errorf("tenant A's %s %s changed (-before +after):\n%s", r[0], r[1], diff)
		}
	}
	if out := isoOK(t, a, "apply_proposal", `{"proposal_id":"`+pending+`"}`); out["person_id"] != person2 {
		t.Errorf("A's pending delete: %v", out)
	}

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
