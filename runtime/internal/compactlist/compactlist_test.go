package compactlist

import (
	"encoding/json"
	"testing"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/toolcall"
)

func TestListHashIsOfTheSortedNameHashLines(t *testing.T) {
	// The first 8 bytes of sha256("a sha256:01\nb sha256:02\n").
	const want = "sha256:75bd5e4795094b0f"
	got := ListHash(map[string]Hash{"b": "sha256:02", "a": "sha256:01"})
	if got != want {
		t.Fatalf("ListHash = %s, want %s", got, want)
	}
	if ListHash(map[string]Hash{"a": "sha256:01", "b": "sha256:03"}) == got {
		t.Fatal("a changed tool hash left the list hash unchanged")
	}
	if ListHash(map[string]Hash{"a": "sha256:01"}) == got {
		t.Fatal("an unlisted tool left the list hash unchanged")
	}
	if ListHash(nil) != "" {
		t.Fatal("a list without compact tools has a hash")
	}
}

func TestListedSpellsOnlyTheHintsThatDifferFromTheDefaults(t *testing.T) {
	f, tr := false, true
	for _, tc := range []struct {
		a    *toolcall.Annotations
		want string
	}{
		{&toolcall.Annotations{DestructiveHint: &f, OpenWorldHint: &f}, `{"annotations":{"destructiveHint":false,"openWorldHint":false},"description":"d","inputSchema":{"type":"object"},"name":"t"}`},
		{&toolcall.Annotations{IdempotentHint: true, DestructiveHint: &tr, OpenWorldHint: &tr}, `{"annotations":{"idempotentHint":true},"description":"d","inputSchema":{"type":"object"},"name":"t"}`},
		{&toolcall.Annotations{ReadOnlyHint: true, IdempotentHint: true, DestructiveHint: &f, OpenWorldHint: &f}, `{"annotations":{"destructiveHint":false,"idempotentHint":true,"openWorldHint":false,"readOnlyHint":true},"description":"d","inputSchema":{"type":"object"},"name":"t"}`},
		{&toolcall.Annotations{}, `{"description":"d","inputSchema":{"type":"object"},"name":"t"}`},
		{nil, `{"description":"d","inputSchema":{"type":"object"},"name":"t"}`},
	} {
		tool := &toolcall.Tool{Name: "t", Description: "d", InputSchema: json.RawMessage(`{"type":"object"}`), Annotations: tc.a, Meta: map[string]any{MetaKey: Hash("sha256:01")}}
		b, err := json.Marshal(Listed(tool))
		if err != nil || string(b) != tc.want {
			t.Errorf("Listed = %s, %v; want %s", b, err, tc.want)
		}
	}
	if _, ok := Of(&toolcall.Tool{Meta: map[string]any{MetaKey: "sha256:01"}}); ok {
		t.Error("a tool whose hash is a plain string is taken for a compact one")
	}
	if h, ok := Of(&toolcall.Tool{Meta: map[string]any{MetaKey: Hash("sha256:01")}}); !ok || h != "sha256:01" {
		t.Errorf("Of = %s, %v", h, ok)
	}
}
