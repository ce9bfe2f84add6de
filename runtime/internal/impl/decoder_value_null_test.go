package impl

import (
	"reflect"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"
)

// A map of google.protobuf.Value decoded as generated code does (MapEntries,
// then StructValue per entry): a null value reaches the handler as a null
// Value under its key, in the entry-list form the schema asks for and in the
// object form, and nulls nested in JSON text are kept too.
func TestMapOfValueKeepsNulls(t *testing.T) {
	want := map[string]*structpb.Value{
		"gone":  structpb.NewNullValue(),
		"text":  structpb.NewNullValue(),
		"inner": structpb.NewStructValue(mustStruct(t, map[string]any{"a": nil})),
		"n":     structpb.NewNumberValue(1),
	}
	for name, js := range map[string]string{
		"entries": `[{"key":"gone","value":null},{"key":"text","value":"null"},{"key":"inner","value":"{\"a\":null}"},{"key":"n","value":"1"}]`,
		"object":  `{"gone":null,"text":"null","inner":{"a":null},"n":1}`,
	} {
		t.Run(name, func(t *testing.T) {
			d := NewDecoder(Limits{})
			ks, vs, ok := d.MapEntries(valueOf(t, js), "extras")
			if !ok {
				t.Fatalf("MapEntries failed: %q", linesOf(d.Errors()))
			}
			got := map[string]*structpb.Value{}
			for i, k := range ks {
				if x, ok := d.StructValue(vs[i], k); ok {
					got[k] = x
				}
			}
			if d.Errors() != nil {
				t.Fatalf("errors: %q", linesOf(d.Errors()))
			}
			if len(got) != len(want) {
				t.Fatalf("got keys %v, want %d keys", ks, len(want))
			}
			for k, w := range want {
				if !proto.Equal(got[k], w) {
					t.Errorf("%s = %v, want %v", k, got[k], w)
				}
			}
		})
	}
}

// The entry schema requires "key" and "value"; the decoder refuses an entry
// without either (an entry without a value would otherwise vanish from the
// map), naming the entry's path.
func TestMapEntryRequiresKeyAndValue(t *testing.T) {
	d := NewDecoder(Limits{})
	_, _, ok := d.MapEntries(valueOf(t, `[{"key":"a"},{"value":"x"},{"key":"b","value":"y"}]`), "labels")
	if ok {
		t.Fatal("MapEntries accepted entries without a key or a value")
	}
	want := []errLine{
		{CodeMissingRequired, `missing required field "value"`, "labels[0].value"},
		{CodeMissingRequired, `missing required field "key"`, "labels[1].key"},
	}
	if got := linesOf(d.Errors()); !reflect.DeepEqual(got, want) {
		t.Errorf("errors = %q\nwant %q", got, want)
	}
}
