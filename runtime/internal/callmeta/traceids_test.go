package callmeta

import (
	"context"
	"encoding/hex"
	"regexp"
	"strings"
	"testing"
)

var hostileIDs = map[string]string{
	"CR/LF":      "corr-1\r\nX-Injected: yes",
	"LF":         "corr-1\nlevel=ERROR msg=forged",
	"NUL":        "corr\x00-1",
	"100 kB":     strings.Repeat("a", 100<<10),
	"U+202E":     "corr-\u202e1-gnp.exe",
	"space":      "corr 1",
	"quote":      `corr"1`,
	"129 bytes":  strings.Repeat("b", 129),
	"DEL":        "corr\x7f",
	"high bytes": "corr-\xff",
}

func TestValidTraceID(t *testing.T) {
	for name, v := range hostileIDs {
		if ValidTraceID(v) {
			t.Errorf("%s: ValidTraceID(%.40q) = true", name, v)
		}
	}
	for _, v := range []string{"corr-1", strings.Repeat("c", 128), "a.b_c:d/e+f=g@h-i", "4bf92f3577b34da6a3ce929d0e0e4736", "urn:uuid:0f8fad5b-d9cb-469f-a165-70867728950e"} {
		if !ValidTraceID(v) {
			t.Errorf("ValidTraceID(%q) = false", v)
		}
	}
	if ValidTraceID("") {
		t.Error(`ValidTraceID("") = true`)
	}
	if got := traceIDProblem("ab\r\n"); got != "byte 2 is outside A-Z a-z 0-9 . _ : / + = @ -" {
		t.Errorf("reason %q", got)
	}
	if got := traceIDProblem(strings.Repeat("a", 100<<10)); got != "longer than 128 bytes (102400)" {
		t.Errorf("reason %q", got)
	}
}

var hexID = regexp.MustCompile(`^[0-9a-f]{32}$`)

func TestCleanTraceIDsReplacesInvalidIDs(t *testing.T) {
	for name, v := range hostileIDs {
		md := RequestMetadata{TenantID: "t", PrincipalID: "p", CorrelationID: v, CausationID: v, SessionID: v, TraceParent: "00-" + v}
		got := CleanTraceIDs(&md)
		if len(got) != 4 || got[0].Field != "correlation_id" || got[1].Field != "causation_id" || got[2].Field != "session_id" || got[3].Field != "traceparent" {
			t.Fatalf("%s: replacements %+v", name, got)
		}
		if !hexID.MatchString(md.CorrelationID) || !hexID.MatchString(md.CausationID) || !hexID.MatchString(md.SessionID) || md.CorrelationID == md.CausationID ||
			!ValidTraceParent(md.TraceParent) || got[0].Replacement != md.CorrelationID {
			t.Fatalf("%s: cleaned to %+v", name, md)
		}
		for _, r := range got {
			if strings.Contains(r.Reason, v) {
				t.Fatalf("%s: the reason repeats the refused value", name)
			}
		}
	}
	md := RequestMetadata{CorrelationID: "corr-1", CausationID: "", SessionID: "QWERTY234567ABCDEFGHIJKLMN", TraceParent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}
	want := md
	if got := CleanTraceIDs(&md); got != nil || md != want {
		t.Fatalf("valid ids changed: %+v %+v", got, md)
	}
}

// The client adapters' headers never carry an invalid id, whoever put it
// in the context.
func TestOutgoingHeadersNeverForwardInvalidIDs(t *testing.T) {
	for name, v := range hostileIDs {
		ctx := WithRequestMetadata(context.Background(), RequestMetadata{TenantID: "t", PrincipalID: "p", CorrelationID: v, CausationID: "cause-1", TraceParent: v})
		got := OutgoingHeaders(ctx)
		if len(got) != 1 || got[HeaderCausationID] != "cause-1" {
			t.Errorf("%s: headers %q, want only the valid causation id", name, got)
		}
	}
}

// validTraceParentBySplit is ValidTraceParent's definition: four '-'
// separated fields of 2, 32, 16 and 2 hex digits, trace and parent ids not
// all zeros.
func validTraceParentBySplit(s string) bool {
	parts := strings.Split(s, "-")
	if len(parts) != 4 || len(parts[0]) != 2 || len(parts[1]) != 32 || len(parts[2]) != 16 || len(parts[3]) != 2 {
		return false
	}
	for _, p := range parts {
		if _, err := hex.DecodeString(p); err != nil {
			return false
		}
	}
	return parts[1] != strings.Repeat("0", 32) && parts[2] != strings.Repeat("0", 16)
}

func TestValidTraceParentIsTheDefinition(t *testing.T) {
	const tp = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	cases := []string{tp, "", "00", strings.ToUpper(tp), tp + "-", tp[:54], "-" + tp[1:],
		"00-00000000000000000000000000000000-00f067aa0ba902b7-01",
		"00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
		"ff-00000000000000000000000000000001-0000000000000001-00",
		"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-0-",
		"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b-701"}
	// Every byte value at every position of a valid traceparent.
	for i := range len(tp) {
		for b := range 256 {
			cases = append(cases, tp[:i]+string([]byte{byte(b)})+tp[i+1:])
		}
	}
	// One digit set in an otherwise zero traceparent, at every position.
	const zero = "00-00000000000000000000000000000000-0000000000000000-00"
	for i := range len(zero) {
		cases = append(cases, zero[:i]+"1"+zero[i+1:], tp[:36]+zero[36:52]+tp[52:], zero[:36]+tp[36:])
	}
	for _, s := range cases {
		if got, want := ValidTraceParent(s), validTraceParentBySplit(s); got != want {
			t.Errorf("ValidTraceParent(%q) = %v, want %v", s, got, want)
		}
	}
}
