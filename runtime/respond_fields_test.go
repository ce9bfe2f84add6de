package runtime

import (
	"testing"

	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/wrapperspb"
)

// A response is written as protojson writes it: no HTML escaping, literal
// UTF-8, only what JSON requires escaped; a non-object response (a wrapper)
// goes under the result key.
func TestSuccessEnvelopeWritesTheResponseAsProtojsonDoes(t *testing.T) {
	resp, err := structpb.NewStruct(map[string]any{"note": "<a & b>\u2028é\"\\\n\x01", "n": 1.5, "list": []any{true, nil}})
	if err != nil {
		t.Fatal(err)
	}
	o, err := successEnvelope(resp, "", nil, nil, nil, answerShape{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := marshalJSON(o)
	if err != nil {
		t.Fatal(err)
	}
	want := "{\"success\":true,\"list\":[true,null],\"n\":1.5,\"note\":\"<a & b>\u2028é\\\"\\\\\\n\\u0001\",\"suggestions\":[],\"warnings\":[]}"
	if string(got) != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	o, err = successEnvelope(wrapperspb.String("x<y"), "value", nil, nil, nil, answerShape{})
	if err != nil {
		t.Fatal(err)
	}
	got, _ = marshalJSON(o)
	if want := `{"success":true,"value":"x<y","suggestions":[],"warnings":[]}`; string(got) != want {
		t.Errorf("wrapper: got %s, want %s", got, want)
	}
}
