package archimate_test

import (
	"context"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/domain"
	archimatev1 "github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/gen/archimate/v1"
	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/server"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcptest"
)

// A delete confirmed through elicitation is bound to the element the user
// was asked about: when the element is renamed, or deleted and re-created
// under the same id, while the question is open, the user's yes answers
// PROPOSAL_STALE and deletes nothing. Both the in-call question
// (2025-11-25) and the round trip with signed state (2026-07-28) are
// checked.
func TestDeleteConfirmationOfAChangedElementIsStale(t *testing.T) {
	ctx := context.Background()
	meta := &archimatev1.MessageMeta{TenantId: devRC.TenantID, PrincipalId: "user-bob"}
	const shown = "OrderService (ApplicationComponent), version 1, no relationships"
	changes := []struct {
		name   string
		change func(t *testing.T, repo *domain.Repository, id string)
		after  string // "" means the delete runs
	}{
		{"renamed", func(t *testing.T, repo *domain.Repository, id string) {
			if _, err := repo.UpdateElement(ctx, &archimatev1.UpdateElementRequest{Meta: meta, Id: id, Name: ptr("Orders"), ExpectedVersion: 1}); err != nil {
				t.Error(err)
			}
		}, "Orders (ApplicationComponent), version 2, no relationships"},
		{"deleted and re-created under the same id", func(t *testing.T, repo *domain.Repository, id string) {
			if _, err := repo.DeleteElement(ctx, &archimatev1.DeleteElementRequest{Meta: meta, Id: id}); err != nil {
				t.Error(err)
			}
			if _, err := repo.CreateElement(ctx, &archimatev1.CreateElementRequest{Meta: meta, Id: id, ModelId: domain.ActiveModel(devRC.TenantID),
				Type: archimatev1.ElementType_ELEMENT_TYPE_APPLICATION_COMPONENT, Layer: archimatev1.Layer_LAYER_APPLICATION, Name: "OrderService", Description: "d"}); err != nil {
				t.Error(err)
			}
		}, shown},
		{"unchanged", func(*testing.T, *domain.Repository, string) {}, ""},
	}
	for _, protocol := range []string{"2025-11-25", ""} {
		for _, tt := range changes {
			name := tt.name + " on 2026-07-28"
			if protocol != "" {
				name = tt.name + " on " + protocol
			}
			t.Run(name, func(t *testing.T) {
				repo := domain.New()
				s, err := server.New(repo, runtime.WithRequestContextFunc(runtime.StaticRequestContext(devRC)))
				if err != nil {
					t.Fatal(err)
				}
				var id string
				asked := 0
				cs := mcptest.Connect(t, s, mcptest.Options{Protocol: protocol,
					Elicit: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
						asked++
						tt.change(t, repo, id) // while the user reads the question
						return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"confirm": true}}, nil
					}})
				out, isErr := call(t, cs, "createElement", `{"type":"ApplicationComponent","name":"OrderService","description":"d"}`)
				if isErr {
					t.Fatalf("create: %v", out)
				}
				id = createdID(t, out)

				out, isErr = call(t, cs, "deleteElement", `{"id":"`+id+`"}`)
				if asked != 1 {
					t.Fatalf("asked %d times, want 1", asked)
				}
				if tt.after == "" {
					if isErr || out["success"] != true || out["id"] != id {
						t.Fatalf("unchanged element: %v", out)
					}
					if _, ok := repo.Element(devRC.TenantID, id); ok {
						t.Fatal("the element was not deleted")
					}
					return
				}
				e := map[string]any{
					"code":    "PROPOSAL_STALE",
					"message": "The confirmation is stale: element " + id + " changed since the user saw it (was: " + shown + "; now: " + tt.after + "). Nothing was written.",
					"details": map[string]any{"target": "element " + id, "before": shown, "after": tt.after},
					"suggestions": map[string]any{
						"hint": "Call the write tool again so the user confirms the current state.",
					},
				}
				assertBody(t, out, isErr, map[string]any{"success": false, "error": e, "errors": []any{e}})
				if _, ok := repo.Element(devRC.TenantID, id); !ok {
					t.Fatal("the changed element was deleted")
				}
			})
		}
	}
}

// A name that would reorder, break or recolour the text the user reads
// (a right-to-left override, a newline forging a second line, a terminal
// escape) is shown as \uXXXX in the confirmation question and in the state
// a proposal shows.
func TestConfirmationTextShowsControlCharactersInNames(t *testing.T) {
	const name = `evil\u202Egnp.exe\nDelete nothing\u001b[2J`      // as JSON
	const shown = `evil\u202Egnp.exe\u000ADelete nothing\u001B[2J` // as the user reads it
	repo := domain.New()
	s, err := server.New(repo, runtime.WithRequestContextFunc(runtime.StaticRequestContext(devRC)))
	if err != nil {
		t.Fatal(err)
	}
	user := mcptest.Decline()
	cs := mcptest.Connect(t, s, mcptest.Options{Protocol: "2025-11-25", Elicit: user.Handler})
	out, isErr := call(t, cs, "createElement", `{"type":"ApplicationComponent","name":"`+name+`","description":"d"}`)
	if isErr {
		t.Fatalf("create: %v", out)
	}
	id := createdID(t, out)
	call(t, cs, "deleteElement", `{"id":"`+id+`"}`)
	asked := user.Asked()
	want := `Confirm Delete element: id="` + id + `". This permanently deletes data; it cannot be undone. What will be lost: element ` + shown + "."
	// The question is the summary line, then the request as the agent
	// wrote it, one field a line: no meta, no model the server resolved.
	want += "\n\nid: " + id + "\ncascade: true"
	if len(asked) != 1 || asked[0] != want || strings.ContainsAny(asked[0], "\u202E\x1b") {
		t.Fatalf("asked %q, want the first line %q", asked, want)
	}

	_, cs = staleSession(t)
	out, _ = call(t, cs, "createElement", `{"type":"ApplicationComponent","name":"`+name+`","description":"d"}`)
	out, _ = call(t, cs, "deleteElement", `{"id":"`+createdID(t, out)+`"}`)
	p, _ := out["proposal"].(map[string]any)
	if p == nil || p["current_state"] != shown+" (ApplicationComponent), version 1, no relationships" {
		t.Fatalf("proposal %v", out)
	}
}
