package runtime

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// decodedResultFacts is what readResultFacts replaced: encoding/json into
// the members the observer reads. On the runtime's own results (keys
// spelled exactly) the two agree.
func decodedResultFacts(raw []byte) resultFacts {
	var body struct {
		Error *struct {
			Code    string `json:"code"`
			TraceID string `json:"trace_id"`
		} `json:"error"`
		Replay   bool            `json:"idempotent_replay"`
		Proposal json.RawMessage `json:"proposal"`
	}
	_ = json.Unmarshal(raw, &body)
	f := resultFacts{replay: body.Replay, proposal: len(body.Proposal) > 0 && string(body.Proposal) != "null"}
	if body.Error != nil {
		f.code, f.traceID = body.Error.Code, body.Error.TraceID
	}
	return f
}

func TestReadResultFacts(t *testing.T) {
	cases := []struct {
		raw  string
		want resultFacts
	}{
		{`{"element":{"id":"e1","name":"Svc \"A\" {x}","tags":["a","]"]},"version":3}`, resultFacts{}},
		{`{"element":{"id":"e1"},"idempotent_replay":true,"original_request_time":"2025-01-02T03:04:05Z"}`, resultFacts{replay: true}},
		{`{"error":{"code":"NOT_FOUND","message":"no element","suggestions":{"similar":["a"]}}}`, resultFacts{code: "NOT_FOUND"}},
		{`{"error":{"code":"INTERNAL","trace_id":"0123456789abcdef0123456789abcdef"}}`, resultFacts{code: "INTERNAL", traceID: "0123456789abcdef0123456789abcdef"}},
		{` { "error" : { "trace_id" : "t\u0031" , "code" : "A\\B" } } `, resultFacts{code: `A\B`, traceID: "t1"}},
		{`{"proposal":{"id":"p1","expires_at":"x"}}`, resultFacts{proposal: true}},
		{`{"proposal":null}`, resultFacts{}},
		{`{"proposal":[]}`, resultFacts{proposal: true}},
		{`{"proposal":0}`, resultFacts{proposal: true}},
		{`{"idempotent_replay":false,"idempotent_replay":true}`, resultFacts{replay: true}},
		{`{"idempotent_replay":"true"}`, resultFacts{}},
		{`{"error":{"code":"A"},"error":null}`, resultFacts{}},
		{`{"error":{"code":"A"},"error":{"trace_id":"t"}}`, resultFacts{code: "A", traceID: "t"}},
		{`{"error":{"code":"A"},"error":"x"}`, resultFacts{code: "A"}},
		{`{"error":{"code":5,"trace_id":null}}`, resultFacts{}},
		{`{"error":{"code":"A","trace_id":"t","code":5,"trace_id":null}}`, resultFacts{code: "A", traceID: "t"}},
		{`{"n":-1.5e+3,"m":0,"error":{"code":"X"}}`, resultFacts{code: "X"}},
		// Not one JSON object: no facts.
		{`{"error":{"code":"X"}`, resultFacts{}},
		{`{"error":{"code":"X"}} {}`, resultFacts{}},
		{`{"error":{"code":"X"},"n":01}`, resultFacts{}},
		{`{"error":{"code":"X"},"n":tru}`, resultFacts{}},
		{`{"error":{"code":"X"},}`, resultFacts{}},
		{"{\"error\":{\"code\":\"X\u0001\"}}", resultFacts{}},
		{`[{"error":{"code":"X"}}]`, resultFacts{}},
		{``, resultFacts{}},
	}
	for _, c := range cases {
		if got := readResultFacts([]byte(c.raw)); got != c.want {
			t.Errorf("readResultFacts(%s) = %+v, want %+v", c.raw, got, c.want)
		}
		if got := decodedResultFacts([]byte(c.raw)); got != c.want {
			t.Errorf("the decode it replaced reads %s as %+v, want %+v", c.raw, got, c.want)
		}
	}
}

// TestReadResultFactsAgreesWithDecoding compares the two on random objects
// with the observer's members at any depth and in any order.
func TestReadResultFactsAgreesWithDecoding(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 36))
	keys := []string{"error", "code", "trace_id", "idempotent_replay", "proposal", "element", "x", "code", "error"}
	var value func(depth int) string
	value = func(depth int) string {
		switch n := rng.IntN(9); {
		case n == 0 && depth < 4:
			parts := make([]string, rng.IntN(4))
			for i := range parts {
				parts[i] = fmt.Sprintf("%q:%s", keys[rng.IntN(len(keys))], value(depth+1))
			}
			return "{" + strings.Join(parts, ",") + "}"
		case n == 1 && depth < 4:
			parts := make([]string, rng.IntN(3))
			for i := range parts {
				parts[i] = value(depth + 1)
			}
			return "[" + strings.Join(parts, ", ") + "]"
		case n == 2:
			return []string{"true", "false", "null"}[rng.IntN(3)]
		case n == 3:
			return []string{"0", "-12", "3.25", "1e9"}[rng.IntN(4)]
		default:
			return []string{`"NOT_FOUND"`, `"a\"b"`, `"{[,]}"`, `"\u00e9"`, `""`}[rng.IntN(5)]
		}
	}
	for i := range 20000 {
		parts := make([]string, rng.IntN(5))
		for j := range parts {
			parts[j] = fmt.Sprintf("%q: %s", keys[rng.IntN(len(keys))], value(1))
		}
		raw := "{" + strings.Join(parts, ",") + "}"
		if i%2 == 1 {
			raw = raw[:rng.IntN(len(raw))] // truncated: not JSON
		}
		if got, want := readResultFacts([]byte(raw)), decodedResultFacts([]byte(raw)); got != want {
			t.Fatalf("%s: read %+v, decoded %+v", raw, got, want)
		}
	}
}

func BenchmarkReadResultFacts(b *testing.B) {
	raw := []byte(`{"element":{"id":"svc-1","modelId":"model-t","type":"ApplicationComponent","layer":"Application","name":"Svc-1","description":"Handles order processing","version":1},"idempotent_replay":true,"original_request_time":"2025-01-02T03:04:05Z"}`)
	b.Run("read", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			readResultFacts(raw)
		}
	})
	b.Run("decode", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			decodedResultFacts(raw)
		}
	})
}
