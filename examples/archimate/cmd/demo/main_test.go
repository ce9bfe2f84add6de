package main

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcptest"
)

// TestMain forbids the demo's identity (and the server's development
// default) in what it shows the agent.
func TestMain(m *testing.M) {
	mcptest.ForbidInAnswers("tenant-acme", "user-ada", "tenant-dev", "user-dev")
	os.Exit(m.Run())
}

// The demo runs against the committed code, every step answers as it
// claims, and it opens with the introduction and ends with the summary.
func TestDemoRunsEveryStepAsClaimed(t *testing.T) {
	var out bytes.Buffer
	if err := run(&out); err != nil {
		t.Fatalf("demo failed: %v\n%s", err, out.String())
	}
	s := out.String()
	// The demo prints every answer its agent receives: none carries the
	// tenant or principal.
	mcptest.CheckAnswer(t, "the demo", s)
	if !strings.HasPrefix(s, intro+"\n== tools/list: 14 tools\n") {
		t.Fatalf("demo does not open with the introduction and the tool list:\n%.400s", s)
	}
	for i := 1; i <= 9; i++ {
		if !strings.Contains(s, "\n== "+string(rune('0'+i))+". ") {
			t.Errorf("step %d missing", i)
		}
	}
	if !strings.HasSuffix(s, "\n== Summary: 9 steps, each answered as claimed. The agent sent names and friendly types; the server filled ids, layers, the model and the tenant, caught two mistakes with suggestions, replayed a retry instead of writing twice, refused an invalid relationship and turned a delete into a proposal the user confirmed.\n") {
		t.Fatalf("demo does not end with the summary:\n%s", s[max(0, len(s)-400):])
	}
}

// A step whose answer differs from its claim fails the demo with the step
// and what was expected.
func TestDemoStepChecksFail(t *testing.T) {
	err := want(false, "idempotent_replay: true")
	if err == nil || err.Error() != "the answer does not show idempotent_replay: true" {
		t.Fatalf("err = %v", err)
	}
	sc := map[string]any{"errors": []any{map[string]any{"code": "INVALID_ENUM_VALUE", "suggestions": map[string]any{"did_you_mean": []any{"ApplicationComponent"}}}}}
	if codes(sc) != "INVALID_ENUM_VALUE" || didYouMean(sc, 0) != "ApplicationComponent" || didYouMean(sc, 1) != "" {
		t.Fatalf("codes %q, did_you_mean %q", codes(sc), didYouMean(sc, 0))
	}
}
