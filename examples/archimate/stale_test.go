package archimate_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/domain"
	archimatev1 "github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/gen/archimate/v1"
	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/server"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcptest"
)

// staleSession is the reference server (loss and state previews on) with a
// client that cannot elicit, so deletes become proposals.
func staleSession(t *testing.T) (*domain.Repository, *mcp.ClientSession) {
	t.Helper()
	repo := domain.New()
	s, err := server.New(repo, runtime.WithRequestContextFunc(runtime.StaticRequestContext(devRC)))
	if err != nil {
		t.Fatal(err)
	}
	return repo, mcptest.Connect(t, s, mcptest.Options{})
}

// proposeDelete creates an element named name and proposes deleting it.
func proposeDelete(t *testing.T, cs *mcp.ClientSession, name string) (elementID, proposalID string) {
	t.Helper()
	out, isErr := call(t, cs, "createElement", `{"type":"ApplicationComponent","name":"`+name+`","description":"d"}`)
	if isErr {
		t.Fatalf("create: %v", out)
	}
	elementID = createdID(t, out)
	out, isErr = call(t, cs, "deleteElement", `{"id":"`+elementID+`"}`)
	p, _ := out["proposal"].(map[string]any)
	if isErr || p == nil {
		t.Fatalf("want a proposal, got %v", out)
	}
	if p["target"] != "element "+elementID || p["current_state"] != name+" (ApplicationComponent), version 1, no relationships" {
		t.Fatalf("proposal does not show the state it is bound to: %v", p)
	}
	return elementID, p["proposal_id"].(string)
}

// freshHint is the hint of a stale answer that carries a fresh proposal.
const freshHint = "Nothing was written. details.fresh_proposal is the same change against the current state: show it to the user and, if they confirm, call applyProposal with its proposal_id."

// takeFresh removes details.fresh_proposal from a stale answer (from error
// and from each entry of errors, which must agree), checks it proposes the
// same delete of elementID against the state now, and returns its id.
func takeFresh(t *testing.T, out map[string]any, stale, elementID, now string) string {
	t.Helper()
	var fresh map[string]any
	entries := []any{out["error"]}
	if es, ok := out["errors"].([]any); ok {
		entries = append(entries, es...)
	}
	for _, e := range entries {
		d, _ := e.(map[string]any)["details"].(map[string]any)
		f, _ := d["fresh_proposal"].(map[string]any)
		if f == nil || (fresh != nil && !cmp.Equal(f, fresh)) {
			t.Fatalf("want the same fresh proposal in every entry: %v", out)
		}
		fresh = f
		delete(d, "fresh_proposal")
	}
	id, _ := fresh["proposal_id"].(string)
	if id == "" || id == stale || fresh["action"] != "delete" || fresh["tool"] != "deleteElement" ||
		fresh["target"] != "element "+elementID || fresh["current_state"] != now {
		t.Fatalf("fresh proposal %v, want a new delete of %s as it is now (%s)", fresh, elementID, now)
	}
	return id
}

func staleAnswer(proposalID, elementID, before, after string) map[string]any {
	e := map[string]any{
		"code":    "PROPOSAL_STALE",
		"message": `Proposal "` + proposalID + `" is stale: element ` + elementID + ` changed since the user saw it (was: ` + before + `; now: ` + after + `). Nothing was written.`,
		"field":   "proposal_id",
		"details": map[string]any{"proposal_id": proposalID, "target": "element " + elementID, "before": before, "after": after},
		"suggestions": map[string]any{
			"hint": "Call the write tool again so the user confirms the current state.",
		},
	}
	return map[string]any{"success": false, "error": e, "errors": []any{e}}
}

// A delete proposal is bound to the element the user saw: renamed, deleted,
// or deleted and re-created under the same id in between, applying it
// answers PROPOSAL_STALE and deletes nothing.
func TestDeleteProposalOfAChangedElementIsStale(t *testing.T) {
	ctx := context.Background()
	meta := &archimatev1.MessageMeta{TenantId: devRC.TenantID, PrincipalId: "user-bob"}
	t.Run("renamed", func(t *testing.T) {
		repo, cs := staleSession(t)
		id, prop := proposeDelete(t, cs, "OrderService")
		if _, err := repo.UpdateElement(ctx, &archimatev1.UpdateElementRequest{Meta: meta, Id: id, Name: ptr("Orders"), ExpectedVersion: 1}); err != nil {
			t.Fatal(err)
		}
		out, isErr := call(t, cs, "applyProposal", `{"proposal_id":"`+prop+`"}`)
		now := "Orders (ApplicationComponent), version 2, no relationships"
		fresh := takeFresh(t, out, prop, id, now)
		want := staleAnswer(prop, id, "OrderService (ApplicationComponent), version 1, no relationships", now)
		want["error"].(map[string]any)["suggestions"] = map[string]any{"hint": freshHint}
		assertBody(t, out, isErr, want)
		if _, ok := repo.Element(devRC.TenantID, id); !ok {
			t.Fatal("the renamed element was deleted")
		}
		// The user confirms the delete of the element as it is now.
		if out, isErr := call(t, cs, "applyProposal", `{"proposal_id":"`+fresh+`"}`); isErr || out["success"] != true {
			t.Fatalf("apply of the fresh proposal: %v", out)
		}
		if _, ok := repo.Element(devRC.TenantID, id); ok {
			t.Fatal("the fresh proposal did not delete the element")
		}
	})
	t.Run("deleted and re-created under the same id", func(t *testing.T) {
		repo, cs := staleSession(t)
		id, prop := proposeDelete(t, cs, "OrderService")
		if _, err := repo.DeleteElement(ctx, &archimatev1.DeleteElementRequest{Meta: meta, Id: id}); err != nil {
			t.Fatal(err)
		}
		if _, err := repo.CreateElement(ctx, &archimatev1.CreateElementRequest{Meta: meta, Id: id, ModelId: domain.ActiveModel(devRC.TenantID),
			Type: archimatev1.ElementType_ELEMENT_TYPE_APPLICATION_COMPONENT, Layer: archimatev1.Layer_LAYER_APPLICATION, Name: "OrderService", Description: "d"}); err != nil {
			t.Fatal(err)
		}
		out, isErr := call(t, cs, "applyProposal", `{"proposal_id":"`+prop+`"}`)
		same := "OrderService (ApplicationComponent), version 1, no relationships"
		takeFresh(t, out, prop, id, same)
		want := staleAnswer(prop, id, same, same)
		want["error"].(map[string]any)["suggestions"] = map[string]any{"hint": freshHint}
		assertBody(t, out, isErr, want)
		if _, ok := repo.Element(devRC.TenantID, id); !ok {
			t.Fatal("the re-created element was deleted")
		}
	})
	t.Run("deleted", func(t *testing.T) {
		repo, cs := staleSession(t)
		id, prop := proposeDelete(t, cs, "OrderService")
		if _, err := repo.DeleteElement(ctx, &archimatev1.DeleteElementRequest{Meta: meta, Id: id}); err != nil {
			t.Fatal(err)
		}
		out, isErr := call(t, cs, "applyProposal", `{"proposal_id":"`+prop+`"}`)
		assertBody(t, out, isErr, staleAnswer(prop, id, "OrderService (ApplicationComponent), version 1, no relationships", "no longer exists"))
	})
	t.Run("unchanged applies", func(t *testing.T) {
		repo, cs := staleSession(t)
		id, prop := proposeDelete(t, cs, "OrderService")
		if out, isErr := call(t, cs, "applyProposal", `{"proposal_id":"`+prop+`"}`); isErr || out["success"] != true {
			t.Fatalf("apply: %v", out)
		}
		if _, ok := repo.Element(devRC.TenantID, id); ok {
			t.Fatal("the element was not deleted")
		}
	})
}

func assertBody(t *testing.T, got map[string]any, isErr bool, want map[string]any) {
	t.Helper()
	if !isErr {
		t.Fatalf("want an error result, got %v", got)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("answer (-want +got):\n%s", diff)
	}
}
