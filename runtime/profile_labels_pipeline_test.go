package runtime_test

import (
	"bytes"
	"context"
	"runtime/pprof"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/impl"
)

// goroutineLabels is the pprof labels of the calling goroutine as the
// goroutine profile prints them ("" without labels).
func goroutineLabels(t *testing.T) string {
	var b bytes.Buffer
	if err := pprof.Lookup("goroutine").WriteTo(&b, 1); err != nil {
		t.Fatal(err)
	}
	for _, rec := range strings.Split(b.String(), "\n\n") {
		if !strings.Contains(rec, "runtime_test.goroutineLabels") {
			continue
		}
		for _, line := range strings.Split(rec, "\n") {
			if l, ok := strings.CutPrefix(line, "# labels: "); ok {
				return l
			}
		}
		return ""
	}
	t.Fatal("the goroutine profile has no goroutineLabels frame")
	return ""
}

// labelsSeen runs create_note with opts and returns the labels of the
// enrichment's and the handler's goroutine.
func labelsSeen(t *testing.T, opts ...runtime.Option) (enrich, handler string) {
	h := newHarness(t, harnessOpts{opts: opts, service: func(s *impl.Service) {
		tool := s.Tools[0]
		en, inv := tool.Enrich, tool.Invoke
		tool.Enrich = func(c *impl.Call, req proto.Message) error {
			enrich = goroutineLabels(t)
			return en(c, req)
		}
		tool.Invoke = func(ctx context.Context, req proto.Message) (proto.Message, error) {
			handler = goroutineLabels(t)
			return inv(ctx, req)
		}
	}})
	if r := h.call(alice, "create_note", `{"title":"a","description":"b"}`); r.isError || !strings.Contains(r.text, `"success":true`) {
		t.Fatalf("create_note: %s", r.text)
	}
	return enrich, handler
}

func TestProfileLabelsNameTheWritePhase(t *testing.T) {
	enrich, handler := labelsSeen(t, runtime.WithProfileLabels())
	if want := `{"mcpwrite.phase":"prepare"}`; enrich != want {
		t.Errorf("enrichment runs with labels %s, want %s", enrich, want)
	}
	if want := `{"mcpwrite.phase":"handler"}`; handler != want {
		t.Errorf("handler runs with labels %s, want %s", handler, want)
	}
}

func TestProfileLabelsAreOffByDefault(t *testing.T) {
	enrich, handler := labelsSeen(t)
	if enrich != "" || handler != "" {
		t.Errorf("without WithProfileLabels the call is labelled: enrich %q, handler %q", enrich, handler)
	}
}
