package runtime

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/impl"
)

func TestUnknownTopLevelFieldPointsToWhereItBelongs(t *testing.T) {
	schema := []byte(`{"type":"object","properties":{"id":{"type":"string"},
		"updates":{"type":"object","properties":{"status":{"type":"string"},"title":{"type":"string"}}},
		"items":{"type":"array","items":{"type":"object","properties":{"sku":{"type":"string"},"title":{"type":"string"}}}}}}`)
	paths := nestedPaths(schema)
	if diff := cmp.Diff(map[string][]string{"status": {"updates.status"}, "title": {"items[].title", "updates.title"}, "sku": {"items[].sku"}}, paths); diff != "" {
		t.Fatalf("paths (-want +got):\n%s", diff)
	}
	es := impl.Errors{
		{Code: CodeUnknownField, Field: "status", Message: `unknown field "status"`},
		{Code: CodeUnknownField, Field: "title", Message: `unknown field "title"`, Suggestions: &impl.Suggestions{DidYouMean: []string{"id"}}},
		{Code: CodeUnknownField, Field: "colour", Message: `unknown field "colour"`},
		{Code: CodeUnknownField, Field: "updates.sku", Message: `unknown field "sku"`},
	}
	hintNesting(es, paths)
	want := []*impl.Suggestions{
		{DidYouMean: []string{"updates.status"}, Hint: "status belongs inside updates: send it as updates.status"},
		{DidYouMean: []string{"items[].title", "id"}, Hint: "title belongs inside items[]: send it as items[].title or updates.title"},
		nil,
		nil,
	}
	for i, e := range es {
		if diff := cmp.Diff(want[i], e.Suggestions); diff != "" {
			t.Errorf("%s (-want +got):\n%s", e.Field, diff)
		}
	}
}
