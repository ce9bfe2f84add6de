package runtime

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/impl"
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

func TestSentPathFollowsListsObjectsEntriesAndQuotedKeys(t *testing.T) {
	body, errs := impl.Parse([]byte(`{"notes":[{"id":"a"},{"title":"b"}],"tags":{"red":{"owner":"x"},"a.b":{"owner":"y"}},`+
		`"labels":[{"key":"a.b","value":{"owner":"z"}},{"key":"blue","value":{"owner":null}}],"grid":[[1,2],[3]]}`), impl.Limits{})
	if len(errs) != 0 {
		t.Fatal(errs)
	}
	for path, want := range map[string]bool{
		"notes[0].id":         true,
		"notes[1].id":         false,
		"notes[2].id":         false,
		"tags.red.owner":      true,
		`tags["a.b"].owner`:   true,
		`tags["a.c"].owner`:   false,
		`labels["a.b"].owner`: true,
		"labels.blue.owner":   false, // null is not sent
		"grid[0][1]":          true,
		"grid[1][1]":          false,
		`tags["a.b`:           false, // unterminated: not read
		"notes[x].id":         false,
		"missing":             false,
	} {
		if got := sentPath(body, path); got != want {
			t.Errorf("sentPath(%q) = %v, want %v", path, got, want)
		}
	}
}

// A fill inside a message the request does not hold was not made: the dry
// run does not list it; inside one it holds, it does.
func TestFilledPathsSkipMessagesTheRequestDoesNotHold(t *testing.T) {
	f := schemadoc.ServerFill{Field: "structValue.fields", ProtoField: "struct_value.fields"}
	if got := filledPaths(structpb.NewNullValue(), f); len(got) != 0 {
		t.Errorf("without the message: %q, want none", got)
	}
	if got := filledPaths(structpb.NewStructValue(&structpb.Struct{}), f); !cmp.Equal(got, []string{"structValue.fields"}) {
		t.Errorf("with the message: %q", got)
	}
}
