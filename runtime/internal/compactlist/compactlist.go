// Package compactlist is what the two tools/list writers of a compact list
// share: the go-sdk middleware (runtime/internal/sdkbind) and runtime/mcpgo's
// adapter. A compactly listed tool carries its schema hash in its _meta as a
// Hash until the list is written; the writer takes it out of the tool, puts
// one hash of all the listed compact tools in the list's _meta (ListHash),
// and spells out only the hints that differ from the protocol's defaults.
package compactlist

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"sort"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/toolcall"
)

// MetaKey is the _meta key of a schema hash: a tool's (in get_write_schema's
// answer and the full list) or a compact list's (in its result's _meta).
const MetaKey = "mcpwrite/schema_hash"

// Hash is a compactly listed tool's schema hash, as its _meta carries it
// under MetaKey until a writer lists it. Its type marks the tool compact.
type Hash string

// Of reports the schema hash of a compactly listed tool; ok is false for
// any other tool.
func Of(t *toolcall.Tool) (h Hash, ok bool) {
	if t == nil {
		return "", false
	}
	return OfMeta(t.Meta)
}

// OfMeta reports the schema hash a compactly listed tool's _meta holds; ok
// is false for any other tool's.
func OfMeta(meta map[string]any) (h Hash, ok bool) {
	h, ok = meta[MetaKey].(Hash)
	return h, ok
}

// ListHash is the schema hash of a compact list: "sha256:" and the first 8
// bytes, in hex, of the SHA-256 of each listed compact tool's name and hash
// ("name hash\n", by name). It changes exactly when a listed tool's schema
// hash changes, or a compact tool is listed or unlisted. It is "" for a
// list without compact tools.
func ListHash(tools map[string]Hash) string {
	if len(tools) == 0 {
		return ""
	}
	names := make([]string, 0, len(tools))
	for n := range tools {
		names = append(names, n)
	}
	sort.Strings(names)
	sum := sha256.New()
	for _, n := range names {
		sum.Write([]byte(n + " " + string(tools[n]) + "\n"))
	}
	return "sha256:" + hex.EncodeToString(sum.Sum(nil)[:8])
}

// Hints are a compact tool's annotations: each hint only where it differs
// from the protocol's default (read only false, destructive true,
// idempotent false, open world true).
type Hints struct {
	DestructiveHint *bool `json:"destructiveHint,omitempty"`
	IdempotentHint  bool  `json:"idempotentHint,omitempty"`
	OpenWorldHint   *bool `json:"openWorldHint,omitempty"`
	ReadOnlyHint    bool  `json:"readOnlyHint,omitempty"`
}

// HintsOf is a's hints as a compact list spells them, nil when every hint
// is the default.
func HintsOf(a *toolcall.Annotations) *Hints {
	if a == nil {
		return nil
	}
	h := Hints{ReadOnlyHint: a.ReadOnlyHint, IdempotentHint: a.IdempotentHint}
	if a.DestructiveHint != nil && !*a.DestructiveHint {
		h.DestructiveHint = a.DestructiveHint
	}
	if a.OpenWorldHint != nil && !*a.OpenWorldHint {
		h.OpenWorldHint = a.OpenWorldHint
	}
	if h == (Hints{}) {
		return nil
	}
	return &h
}

// Tool is a compact tool as a list writes it: the protocol's members it
// needs, in go-sdk's order, and no _meta.
type Tool struct {
	Annotations *Hints          `json:"annotations,omitempty"`
	Description string          `json:"description,omitempty"`
	InputSchema json.RawMessage `json:"inputSchema"`
	Name        string          `json:"name"`
}

// Listed is t as a compact list writes it.
func Listed(t *toolcall.Tool) Tool {
	return Tool{Annotations: HintsOf(t.Annotations), Description: t.Description, InputSchema: t.InputSchema, Name: t.Name}
}
