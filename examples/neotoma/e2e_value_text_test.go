package neotoma_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/testing/protocmp"
	"google.golang.org/protobuf/types/known/structpb"

	neotomav1 "github.com/mcpwrite/protoc-gen-mcpwrite/examples/neotoma/gen/neotoma/v1"
)

// A google.protobuf.Value position is advertised as JSON text in a string;
// agents send a text value both as JSON text ("\"ada@new.org\"") and bare
// ("ada@new.org"). Both reach the handler as the same string.
func TestCorrectTakesTextValueBareOrAsJSONText(t *testing.T) {
	for _, tt := range []struct{ name, value string }{
		{"bare text", `"ada@new.org"`},
		{"JSON text of a string", `"\"ada@new.org\""`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := newServer(t)
			cs := s.connect(ada, nil)
			stored := mustSucceed(t, cs, "store", `{"entities":[{"entity_type":"person","canonical_name":"Ada Lovelace","email":"ada@example.org"}]}`)
			id := stored["entities"].([]any)[0].(map[string]any)["entity_id"].(string)
			out := mustSucceed(t, cs, "correct", `{"entity_id":"`+id+`","entity_type":"person","field":"email","value":`+tt.value+`}`)
			if out["value"] != "ada@new.org" {
				t.Errorf("answer value = %#v, want the string ada@new.org", out["value"])
			}
			reqs := s.rec.received()
			got, ok := reqs[len(reqs)-1].(*neotomav1.CorrectRequest)
			if !ok {
				t.Fatalf("last domain request = %T, want *CorrectRequest", reqs[len(reqs)-1])
			}
			if diff := cmp.Diff(structpb.NewStringValue("ada@new.org"), got.GetValue(), protocmp.Transform()); diff != "" {
				t.Errorf("domain request value (-want +got):\n%s", diff)
			}
			if snap, _ := s.rec.Snapshot(ada.TenantID, ada.PrincipalID, id); snap["email"] != "ada@new.org" {
				t.Errorf("snapshot email = %v, want ada@new.org", snap["email"])
			}
		})
	}
}
