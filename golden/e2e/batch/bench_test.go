package batch_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/mcpwrite/protoc-gen-mcpwrite/golden/e2e/batch/gen/batch/v1/batchv1mcpwrite"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
)

// BenchmarkPrepareNotes decodes and enriches a batch of n notes, each with
// its own fills and key, without MCP: what every item costs the server.
func BenchmarkPrepareNotes(b *testing.B) {
	p, err := runtime.NewPreparer(batchv1mcpwrite.NewNoteService(&handler{}))
	if err != nil {
		b.Fatal(err)
	}
	rc := runtime.RequestContext{TenantID: "acme", PrincipalID: "ada"}
	for _, n := range []int{1, 3} {
		var items []string
		for i := range n {
			items = append(items, fmt.Sprintf(`{"kind":"Task","title":"Note %d","client_request_id":"n-%d"}`, i, i))
		}
		args := []byte(`{"notes":[` + strings.Join(items, ",") + `]}`)
		b.Run(fmt.Sprintf("notes=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, es := p.Prepare(context.Background(), "import_notes", args, rc); len(es) > 0 {
					b.Fatal(es)
				}
			}
		})
	}
}
