package tasks_test

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

	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/tasks/domain"
	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/tasks/gen/tasks/v1/tasksv1mcpwrite"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcptest"
)

var (
	isoA = runtime.RequestContext{TenantID: "tenant-a", PrincipalID: "user-1"}
	isoB = runtime.RequestContext{TenantID: "tenant-b", PrincipalID: "user-1"}
)

// isoServer is one tracker the two tenants share. Tenant A confirms deletes
// through proposals as usual; tenant B's writes run directly, so every
// probe reaches the domain handler itself.
func isoServer(t *testing.T) (*domain.Tracker, *mcp.ClientSession, *mcp.ClientSession) {
	t.Helper()
	tr := domain.New("/projects")
	who := map[string]runtime.RequestContext{"agent-a": isoA, "agent-b": isoB}
	s := mcp.NewServer(&mcp.Implementation{Name: "tasks", Version: "test"}, nil)
	err := tasksv1mcpwrite.RegisterTaskServiceTools(s, tr,
		runtime.WithClock(func() time.Time { return time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC) }),
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
	return tr, mcptest.Connect(t, s, mcptest.Options{ClientName: "agent-a"}), mcptest.Connect(t, s, mcptest.Options{ClientName: "agent-b"})
}

// isoMasked is the answer masked for comparison (mcptest.Masked): ids replaced,
// the generated values of a validate_write preview removed.
func isoMasked(t *testing.T, r mcptest.Result, ids ...string) any {
	t.Helper()
	return mcptest.Masked(t, r, []string{"meta"}, ids...)
}

func isoOK(t *testing.T, cs *mcp.ClientSession, tool, args string) map[string]any {
	t.Helper()
	r := mcptest.Call(t, cs, tool, args)
	if r.IsError {
		t.Fatalf("%s %s: %s", tool, args, r.Text)
	}
	return r.Body
}

// A second tenant can neither read, overwrite nor learn of the first
// tenant's tasks through any tool, not even by naming the first tenant's
// project root: every answer to tenant B about A's ids is the answer about
// an id that never existed, and A's tasks stay as they were.
func TestTenantIsolationThroughEveryTool(t *testing.T) {
	tr, a, b := isoServer(t)
	parent := isoOK(t, a, "task_create", `{"title":"Add OAuth login","type":"feature"}`)["data"].(map[string]any)["id"].(string)
	sub := isoOK(t, a, "task_create", `{"title":"Write token tests","type":"test","parentId":"`+parent+`"}`)["data"].(map[string]any)["id"].(string)
	other := isoOK(t, a, "task_create", `{"title":"Rotate keys","type":"chore"}`)["data"].(map[string]any)["id"].(string)
	pending := isoOK(t, a, "task_delete", `{"id":"`+other+`"}`)["proposal"].(map[string]any)["proposal_id"].(string)
	const rootA = "/projects/tenant-a"
	before := map[string]proto.Message{}
	for _, id := range []string{parent, sub, other} {
		task, found := tr.Task(isoA.TenantID, rootA, id)
		if !found {
			t.Fatalf("tenant A has no task %s", id)
		}
		before[id] = task
	}
	own := isoOK(t, b, "task_create", `{"title":"B's own","type":"chore"}`)["data"].(map[string]any)["id"].(string)
	ownFamily := isoOK(t, b, "parent_create", `{"title":"B's parent","type":"feature","subtasks":[{"title":"B's subtask"}]}`)["data"].(map[string]any)
	ownParent := ownFamily["id"].(string)
	ownSub := ownFamily["createdSubtasks"].([]any)[0].(map[string]any)["id"].(string)

	const never = "task-01JD0000000000000000000000"
	type probe struct {
		tool, args      string
		foreign, absent []string
	}
	var probes []probe
	for _, root := range []string{``, `,"rootDir":"` + rootA + `"`} {
		for _, id := range []string{parent, sub} {
			probes = append(probes,
				probe{"task_update", `{"id":"{0}","updates":{"status":"done","title":"Hijacked"}` + root + `}`, []string{id}, []string{never}},
				probe{"task_delete", `{"id":"{0}","cascade":true` + root + `}`, []string{id}, []string{never}},
				probe{"task_move", `{"id":"{0}","targetState":"current"` + root + `}`, []string{id}, []string{never}},
				probe{"task_create", `{"title":"Child","type":"test","parentId":"{0}"` + root + `}`, []string{id}, []string{never}},
				probe{"task_get", `{"id":"{0}"` + root + `}`, []string{id}, []string{never}},
				// A's parent lists no subtasks for B, as a parent that never existed.
				probe{"task_list", `{"parentId":"{0}"` + root + `}`, []string{id}, []string{never}},
			)
			// validate_write shows the payload as sent; with rootA it would
			// show the tenant ID the agent wrote in it, which TestMain
			// forbids in every answer, so it is probed in B's own project.
			if root == `` {
				probes = append(probes, probe{"validate_write", `{"operation":"task_update","payload":{"id":"{0}","updates":{"status":"done"}}}`, []string{id}, []string{never}})
			}
		}
		probes = append(probes,
			probe{"task_update", `{"id":"{0}","parentId":"{1}","updates":{"status":"done"}` + root + `}`, []string{sub, parent}, []string{never, "task-01JD00000000000000000000FF"}},
			probe{"task_update", `{"id":"` + own + `","parentId":"{0}","updates":{"status":"done"}` + root + `}`, []string{parent}, []string{never}},
			probe{"task_transform", `{"id":"{0}","operation":"promote","initialSubtasks":["Hijack"]` + root + `}`, []string{other}, []string{never}},
			probe{"task_transform", `{"id":"{0}","operation":"extract","parentId":"{1}"` + root + `}`, []string{sub, parent}, []string{never, "task-01JD00000000000000000000FF"}},
			probe{"task_transform", `{"id":"` + own + `","operation":"adopt","targetParentId":"{0}"` + root + `}`, []string{parent}, []string{never}},
			probe{"task_transform", `{"id":"{0}","operation":"adopt","targetParentId":"` + own + `"` + root + `}`, []string{other}, []string{never}},
			probe{"parent_operations", `{"parentId":"{0}","operation":"resequence","operationData":{"operation":"resequence","sequenceMap":[{"id":"{1}","sequence":"05"}]}` + root + `}`, []string{parent, sub}, []string{never, "task-01JD00000000000000000000FF"}},
			probe{"parent_operations", `{"parentId":"{0}","operation":"add_subtask","operationData":{"operation":"add_subtask","subtask":{"title":"Hijack"}}` + root + `}`, []string{parent}, []string{never}},
			probe{"parent_operations", `{"parentId":"` + ownParent + `","operation":"resequence","operationData":{"operation":"resequence","sequenceMap":[{"id":"{0}","sequence":"05"}]}` + root + `}`, []string{sub}, []string{never}},
			probe{"parent_operations", `{"parentId":"` + ownParent + `","operation":"parallelize","operationData":{"operation":"parallelize","subtaskIds":["` + ownSub + `","{0}"]}` + root + `}`, []string{sub}, []string{never}},
			probe{"parent_operations", `{"parentId":"` + ownParent + `","operation":"add_subtask","operationData":{"operation":"add_subtask","subtask":{"title":"After A's","after":"{0}"}}` + root + `}`, []string{sub}, []string{never}},
		)
	}
	probes = append(probes,
		probe{"apply_proposal", `{"proposal_id":"{0}"}`, []string{pending}, []string{"prop-never-existed"}},
		probe{"discard_proposal", `{"proposal_id":"{0}"}`, []string{pending}, []string{"prop-never-existed"}},
	)
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
		if !got.IsError && p.tool != "validate_write" && p.tool != "task_list" {
			t.Errorf("%s %s succeeded for tenant B: %s", p.tool, with(p.args, p.foreign), got.Text)
		}
		if diff := cmp.Diff(isoMasked(t, absent, p.absent...), isoMasked(t, got, p.foreign...)); diff != "" {
			t.Errorf("%s %s: tenant A's ids answer differently from ids that never existed (-never +A's):\n%s", p.tool, p.args, diff)
		}
	}
	// B writing into "A's" root makes tasks in B's own project there.
	for tool, args := range map[string]string{
		"task_create":   `{"title":"Planted","type":"chore","rootDir":"` + rootA + `"}`,
		"parent_create": `{"title":"Planted parent","type":"chore","subtasks":[{"title":"Planted subtask"}],"rootDir":"` + rootA + `"}`,
	} {
		covered[tool] = true
		planted := isoOK(t, b, tool, args)["data"].(map[string]any)["id"].(string)
		for _, id := range []string{planted, planted + "-01"} {
			if _, found := tr.Task(isoA.TenantID, rootA, id); found {
				t.Errorf("%s by tenant B stored %s in tenant A's project", tool, id)
			}
		}
		if _, found := tr.Task(isoB.TenantID, rootA, planted); !found {
			t.Errorf("%s by tenant B did not store %s in B's project at %s", tool, planted, rootA)
		}
	}
	covered["get_write_schema"] = true
	if ra, rb := mcptest.Call(t, a, "get_write_schema", `{"operation":"task_create"}`), mcptest.Call(t, b, "get_write_schema", `{"operation":"task_create"}`); ra.Text != rb.Text {
		t.Errorf("get_write_schema answers the tenants differently:\n A: %s\n B: %s", ra.Text, rb.Text)
	}

	for id, want := range before {
		got, _ := tr.Task(isoA.TenantID, rootA, id)
		if diff := cmp.Diff(want, got, protocmp.Transform()); diff != "" {
			t.Errorf("tenant A's task %s changed (-before +after):\n%s", id, diff)
		}
	}
	if out := isoOK(t, a, "apply_proposal", `{"proposal_id":"`+pending+`"}`); out["data"].(map[string]any)["id"] != other {
		t.Errorf("A's pending delete: %v", out)
	}
	if out := isoOK(t, a, "task_update", `{"id":"`+parent+`","updates":{"status":"in_progress"}}`); out["data"].(map[string]any)["title"] != "Add OAuth login" {
		t.Errorf("A reads its task back as %v", out["data"])
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
