package runtime

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/schemadoc"
)

func TestFillShapesMarkMapKeys(t *testing.T) {
	fills := []schemadoc.ServerFill{
		{Field: "fields.structValue", ProtoField: "fields.struct_value"}, // through a map
		{Field: "values.nullValue", ProtoField: "values.null_value"},     // not a field of Struct
		{Field: "a.b", ProtoField: "a"},                                  // paths of two lengths
	}
	got := fillShapes(&structpb.Struct{}, fills)
	want := [][]string{{"fields", "*", "structValue"}, {"values", "nullValue"}, {"a", "b"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("shapes (-want +got):\n%s", diff)
	}
	if got := fillShapes(nil, fills[:1]); !cmp.Equal(got, [][]string{{"fields", "structValue"}}) {
		t.Errorf("without a request: %q", got)
	}
}

func TestPathShapeDropsIndicesAndKeepsKeys(t *testing.T) {
	for path, want := range map[string][]string{
		"notes[1].id":        {"notes", "id"},
		"tags.red.id":        {"tags", "red", "id"},
		`tags["a.b"].id`:     {"tags", "a.b", "id"},
		"grid[0][2].cell":    {"grid", "cell"},
		"meta.tenant_id":     {"meta", "tenant_id"},
		"id":                 {"id"},
		`tags["unterminated`: {"tags", `["unterminated`},
		"open[3":             {"open", "[3"},
	} {
		if got := pathShape(path); !cmp.Equal(got, want) {
			t.Errorf("pathShape(%q) = %q, want %q", path, got, want)
		}
	}
	if !shapeMatches([]string{"tags", "*", "id"}, pathShape(`tags["a.b"].Id`)) || shapeMatches([]string{"tags", "*", "id"}, pathShape("tags.id")) {
		t.Error("shapeMatches: a key matches *, and a path without the key does not match")
	}
}
