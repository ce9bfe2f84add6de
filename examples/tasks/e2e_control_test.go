package tasks_test

import (
	"context"
	"encoding/json"
	"testing"
)

// The tasks service names its fields as protojson does (field_naming:
// JSON_NAME), so its control arguments are clientRequestId, dryRun and
// proposalId; the snake_case spelling is accepted as an alias.

func TestControlArgumentsFollowTheServiceNaming(t *testing.T) {
	s := newSession(t, noElicitation)
	tools, err := s.cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	props := map[string]map[string]any{}
	for _, tool := range tools.Tools {
		raw, _ := json.Marshal(tool.InputSchema)
		var in struct {
			Properties map[string]any `json:"properties"`
		}
		if err := json.Unmarshal(raw, &in); err != nil {
			t.Fatal(err)
		}
		props[tool.Name] = in.Properties
	}
	for _, k := range []string{"clientRequestId", "dryRun"} {
		if props["task_create"][k] == nil {
			t.Errorf("task_create input schema has no %s", k)
		}
	}
	for _, k := range []string{"client_request_id", "dry_run"} {
		if props["task_create"][k] != nil {
			t.Errorf("task_create input schema still offers %s", k)
		}
	}
	if props["apply_proposal"]["proposalId"] == nil || props["apply_proposal"]["proposal_id"] != nil {
		t.Errorf("apply_proposal properties = %v, want proposalId only", props["apply_proposal"])
	}
	got := s.mustCall("get_write_schema", `{"operation":"task_create"}`)
	var doc struct {
		ControlArguments []string `json:"control_arguments"`
	}
	if err := json.Unmarshal([]byte(got), &doc); err != nil {
		t.Fatal(err)
	}
	if want := []string{"clientRequestId", "dryRun"}; !equalStrings(doc.ControlArguments, want) {
		t.Errorf("control_arguments = %q, want %q", doc.ControlArguments, want)
	}
}

func TestClientRequestIdIsTheKeyInEitherSpelling(t *testing.T) {
	s := newSession(t, noElicitation)
	first := s.mustCall("task_create", `{"title":"Add OAuth login","type":"feature","clientRequestId":"k-1"}`)
	replay := s.mustCall("task_create", `{"title":"Add OAuth login","type":"feature","client_request_id":"k-1"}`)
	var a, b map[string]any
	if err := json.Unmarshal([]byte(first), &a); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(replay), &b); err != nil {
		t.Fatal(err)
	}
	if a["idempotent_replay"] != nil || b["idempotent_replay"] != true {
		t.Fatalf("first idempotent_replay = %v, second = %v; want absent, then true\n%s\n%s", a["idempotent_replay"], b["idempotent_replay"], first, replay)
	}
	if a["data"].(map[string]any)["id"] != b["data"].(map[string]any)["id"] {
		t.Errorf("replay answered task %v, want the first call's %v", b["data"], a["data"])
	}
	reuse := s.call("task_create", `{"title":"Something else","type":"feature","clientRequestId":"k-1"}`)
	if e := errorOf(t, reuse.text); e.Code != "IDEMPOTENCY_KEY_REUSED" || e.Field != "clientRequestId" ||
		e.Message != `clientRequestId "k-1" was already used for a different request` {
		t.Errorf("reused key: %+v", e)
	}
}

func TestControlArgumentInBothSpellingsIsOneError(t *testing.T) {
	s := newSession(t, noElicitation)
	r := s.call("task_create", `{"title":"X","type":"feature","clientRequestId":"k-1","client_request_id":"k-1","dryRun":false,"dry_run":false}`)
	want := compact(`{"success":false,
		"error":{"code":"VALIDATION_ERROR","message":"clientRequestId and client_request_id are the same argument; send it once","field":"clientRequestId","details":{"arguments":["clientRequestId","client_request_id"]},"suggestions":{"hint":"Send clientRequestId only."}},
		"errors":[{"code":"VALIDATION_ERROR","message":"clientRequestId and client_request_id are the same argument; send it once","field":"clientRequestId","details":{"arguments":["clientRequestId","client_request_id"]},"suggestions":{"hint":"Send clientRequestId only."}},
		          {"code":"VALIDATION_ERROR","message":"dryRun and dry_run are the same argument; send it once","field":"dryRun","details":{"arguments":["dryRun","dry_run"]},"suggestions":{"hint":"Send dryRun only."}}]}`)
	if !r.isError || r.text != want {
		t.Fatalf("got isError=%v\n%s\nwant\n%s", r.isError, r.text, want)
	}
}

func TestDryRunInEitherSpellingWritesNothing(t *testing.T) {
	for _, k := range []string{"dryRun", "dry_run"} {
		t.Run(k, func(t *testing.T) {
			s := newSession(t, noElicitation)
			got := s.mustCall("task_create", `{"title":"Add OAuth login","type":"feature","`+k+`":true}`)
			var out map[string]any
			if err := json.Unmarshal([]byte(got), &out); err != nil {
				t.Fatal(err)
			}
			if out["valid"] != true || out["preview"] == nil {
				t.Fatalf("dry run answer: %s", got)
			}
			if r := s.call("task_update", `{"id":"`+firstID+`","updates":{"title":"Y"}}`); !r.isError || errorOf(t, r.text).Code != "NOT_FOUND" {
				t.Errorf("a dry run wrote the task: %s", r.text)
			}
		})
	}
}

func TestProposalIdAppliesInEitherSpelling(t *testing.T) {
	for _, k := range []string{"proposalId", "proposal_id"} {
		t.Run(k, func(t *testing.T) {
			s := newSession(t, noElicitation)
			withFamily(s)
			var p struct {
				Proposal struct {
					ID string `json:"proposal_id"`
				} `json:"proposal"`
				Suggestions []string `json:"suggestions"`
			}
			if err := json.Unmarshal([]byte(s.mustCall("task_delete", `{"id":"`+secondID+`"}`)), &p); err != nil {
				t.Fatal(err)
			}
			if want := "Nothing was written yet. Show the summary and preview to the user; if they confirm, call apply_proposal with proposalId \"" + p.Proposal.ID + "\" before it expires."; len(p.Suggestions) != 1 || p.Suggestions[0] != want {
				t.Errorf("suggestions = %q, want %q", p.Suggestions, want)
			}
			s.mustCall("apply_proposal", `{"`+k+`":"`+p.Proposal.ID+`"}`)
			none := s.call("apply_proposal", `{"`+k+`":"prop_none"}`)
			if e := errorOf(t, none.text); e.Code != "PROPOSAL_NOT_FOUND" || e.Field != "proposalId" {
				t.Errorf("unknown proposal: %s", none.text)
			}
		})
	}
}

// A field the server fills, sent by the agent (the id task_create
// generates), is answered with "leave it out" and no other field: an agent
// taking the first did_you_mean would send the id to parentId.
func TestServerFilledFieldOffersNoOtherField(t *testing.T) {
	s := newSession(t, noElicitation)
	r := s.call("task_create", `{"title":"X","type":"feature","id":"t-1"}`)
	entry := `{"code":"UNKNOWN_FIELD","message":"unknown field \"id\": the server fills id itself","field":"id","suggestions":{` +
		`"valid_values":["rootDir","title","type","area","status","priority","workflowState","parentId","assignee","tags","instruction","tasks"],` +
		`"hint":"id is filled by the server (generated ULID with prefix \"task-\"); leave it out"}}`
	if want := `{"success":false,"error":` + entry + `,"errors":[` + entry + `]}`; !r.isError || r.text != want {
		t.Fatalf("got\n%s\nwant\n%s", r.text, want)
	}
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
