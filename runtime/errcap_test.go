package runtime

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/impl"
)

// A request of thousands of unknown keys is answered with the first 20
// problems and a count of the rest, not one entry per key.
func TestErrorAnswersAreCapped(t *testing.T) {
	var es impl.Errors
	for i := range 50_000 {
		es = append(es, &impl.ErrorEntry{Code: CodeUnknownField, Message: fmt.Sprintf("unknown field \"k%d\"", i), Field: fmt.Sprintf("k%d", i)})
	}
	es[3].Field = strings.Repeat("a", 300)
	es[4].Message = "value " + strings.Repeat("é", 2000) + " refused"
	b, err := marshalJSON(errorEnvelope(es))
	if err != nil {
		t.Fatal(err)
	}
	var env struct {
		Errors []map[string]any `json:"errors"`
	}
	if err := json.Unmarshal(b, &env); err != nil {
		t.Fatal(err)
	}
	entries := env.Errors
	if len(entries) != 21 {
		t.Fatalf("%d entries, want 20 and one TOO_MANY_ERRORS", len(entries))
	}
	last := fmt.Sprint(entries[20])
	if !strings.Contains(last, "TOO_MANY_ERRORS") || !strings.Contains(last, "49980 more problems are not listed") {
		t.Fatalf("last entry %s", last)
	}
	if len(b) > 8<<10 {
		t.Fatalf("answer is %d bytes, want at most 8 KiB", len(b))
	}
	if !strings.Contains(string(b), `"field":"`+strings.Repeat("a", 256)+`..."`) {
		t.Fatalf("long field path not clipped: %.400s", b)
	}
	if msg := entries[4]["message"]; msg != "value "+strings.Repeat("é", 509)+"..." {
		t.Fatalf("long message not clipped on a rune boundary: %.100s (%d bytes)", msg, len(fmt.Sprint(msg)))
	}
	if es[3].Field != strings.Repeat("a", 300) || len(es[4].Message) != 4014 {
		t.Fatal("capping changed the caller's entry")
	}
}

// A decoder describes the first problems it finds and only counts the rest,
// so thousands of unknown keys cost no suggestion search each; the answer
// still counts every problem.
func TestDecoderCountsProblemsBeyondWhatItDescribes(t *testing.T) {
	var b strings.Builder
	b.WriteString("{")
	for i := range 1000 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"k%04d":1`, i)
	}
	b.WriteString("}")
	obj, perr := impl.Parse([]byte(b.String()), impl.Limits{})
	if perr != nil {
		t.Fatalf("parse: %v", perr)
	}
	d := impl.NewDecoder(impl.Limits{})
	d.Known(obj, []string{"name", "title"})
	es := d.Errors()
	if len(es) != impl.MaxCollected+1 || es[0].Field != "k0000" || es[impl.MaxCollected-1].Field != "k0199" {
		t.Fatalf("%d entries, first %q", len(es), es[0].Field)
	}
	if last := es[impl.MaxCollected]; last.Code != impl.CodeTooManyErrors || last.Message != "800 more problems are not listed" {
		t.Fatalf("last entry %+v", last)
	}
	capped := capErrors(es)
	if len(capped) != impl.MaxErrorEntries+1 || capped[19].Field != "k0019" {
		t.Fatalf("%d entries after capping", len(capped))
	}
	last := capped[impl.MaxErrorEntries]
	if last.Code != impl.CodeTooManyErrors || last.Message != "980 more problems are not listed" ||
		last.Details["listed"] != impl.MaxErrorEntries || last.Details["not_listed"] != 980 {
		t.Fatalf("last entry %+v", last)
	}
}
