package golden_test

import (
	"encoding/json"
	"testing"
)

// goldenPairsJoinDecodeProblems calls the pair_checks case's tools with a
// decode problem and an invalid pair: the generated early check answers
// the pair with the decode problem, on agent ends (link_parts) and on an
// end the server fills with a constant (attach_to_frame), with no
// resolver and no handler. The helper writes entries with encoding/json,
// which leaves out the suggestions' extra members (valid_relationships);
// the archimate example's TestLaterStageProblemsJoinDecodeProblems reads
// them in a real answer.
func goldenPairsJoinDecodeProblems(t *testing.T, h *helperConn) {
	t.Helper()
	note := `{"code":"INVALID_TYPE","field":"note","message":"expected string, got number"}`
	hint := `"suggestions":{"hint":"A bolt screws into a nut; bolts and nuts mount on a frame"}`
	tests := []struct{ tool, args, want string }{
		{"link_parts", `{"link":"Screw","from_kind":"Bolt","to_kind":"Frame","note":7}`,
			`[` + note + `,{"code":"INVALID_RELATIONSHIP","field":"link","message":"Cannot create 'Screw' from Bolt to Frame",` + hint + `}]`},
		{"link_parts", `{"link":"Screw","from_kind":"Bolt","to_kind":"Nut","note":7}`, `[` + note + `]`},
		{"attach_to_frame", `{"link":"Screw","part_kind":"Nut","note":7}`,
			`[` + note + `,{"code":"INVALID_RELATIONSHIP","field":"link","message":"Cannot create 'Screw' from Nut to Frame",` + hint + `}]`},
	}
	for _, tt := range tests {
		r := h.call("pair_checks", "links.v1.LinkService", tt.tool, tt.args)
		if got, want := canonicalJSON(t, r.Text), canonicalJSON(t, tt.want); got != want {
			t.Errorf("pair_checks %s %s:\n got %s\nwant %s", tt.tool, tt.args, got, want)
		}
	}
}

// canonicalJSON is the JSON text s with sorted keys.
func canonicalJSON(t *testing.T, s string) string {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("%q: %v", s, err)
	}
	return mustMarshal(v)
}
