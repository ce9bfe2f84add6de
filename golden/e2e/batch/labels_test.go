package batch_test

import (
	"context"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/protobuf/proto"

	labelsv1 "github.com/mcpwrite/protoc-gen-mcpwrite/golden/e2e/batch/gen/labels/v1"
	"github.com/mcpwrite/protoc-gen-mcpwrite/golden/e2e/batch/gen/labels/v1/labelsv1mcpwrite"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcptest"
)

// labeler knows one person, Ada (p-1).
type labeler struct{ got *labelsv1.LabelNotesRequest }

func (l *labeler) LabelNotes(_ context.Context, in *labelsv1.LabelNotesRequest) (*labelsv1.LabelNotesResponse, error) {
	l.got = proto.Clone(in).(*labelsv1.LabelNotesRequest)
	return &labelsv1.LabelNotesResponse{Labels: in.GetLabels()}, nil
}

func (l *labeler) ResolvePersonRef(_ context.Context, _ proto.Message, ref string) (runtime.Reference, error) {
	ada := runtime.Referent{ID: "p-1", Name: "Ada"}
	if ref == "Ada" || ref == "p-1" {
		return runtime.Reference{Matches: []runtime.Referent{ada}}, nil
	}
	return runtime.Reference{Known: []runtime.Referent{ada}}, nil
}

// TestMapValueReferenceIsAnsweredWithTheDecodeProblems: a reference inside
// a map's value that names no one is answered, on labels.<key>.owner, in
// the same round as a decode problem elsewhere, so the agent fixes both at
// once; alone it is answered on the same path. The map is sent as an object
// and as the {"key","value"} entries its schema asks for.
func TestMapValueReferenceIsAnsweredWithTheDecodeProblems(t *testing.T) {
	server := mcp.NewServer(&mcp.Implementation{Name: "labels", Version: "test"}, nil)
	rc := func(context.Context, *mcp.CallToolRequest) (runtime.RequestContext, bool) {
		return runtime.RequestContext{TenantID: "acme", PrincipalID: "ada"}, true
	}
	l := &labeler{}
	if err := labelsv1mcpwrite.RegisterLabelServiceTools(server, l, runtime.WithRequestContextFunc(rc)); err != nil {
		t.Fatalf("register: %v", err)
	}
	cs := mcptest.Connect(t, server, mcptest.Options{})
	notFound := `NOT_FOUND labels.blue.owner: no person has the id or name "B…"`
	want := `CONSTRAINT_VIOLATION title: must be at most 10 characters, got 12` + "\n" + notFound
	for form, labels := range map[string]string{
		"object":  `"labels":{"red":{"owner":"Ada"},"blue":{"owner":"Bob"}}`,
		"entries": `"labels":[{"key":"red","value":{"owner":"Ada"}},{"key":"blue","value":{"owner":"Bob"}}]`,
	} {
		if got := errorOf(t, mcptest.Call(t, cs, "label_notes", `{`+labels+`}`)); got != notFound {
			t.Errorf("%s, alone:\n got %s\nwant %s", form, got, notFound)
		}
		if got := errorOf(t, mcptest.Call(t, cs, "label_notes", `{`+labels+`,"title":"Twelve chars"}`)); got != want {
			t.Errorf("%s, with a decode problem:\n got %s\nwant %s", form, got, want)
		}
	}
	if r := mcptest.Call(t, cs, "label_notes", `{"labels":[{"key":"red","value":{"owner":"Ada"}}]}`); r.IsError || l.got.GetLabels()["red"].GetOwner() != "p-1" {
		t.Errorf("a good call: %s, owner %q", r.Text, l.got.GetLabels()["red"].GetOwner())
	}
}
