// Package compat compares two versions of a capability's tool surface (the
// .mcpwrite.json documents the plugin writes) and reports what breaks agents
// already prompted with the old one, apart from compatible additions: the
// tool-surface counterpart of `buf breaking`.
//
// Breaking: a removed tool, service tool or input field; a new required
// field or a field that became required; a changed type; a removed enum
// value (an alias agents may send); a narrowed constraint (length, range,
// item count, a changed pattern); a changed classification or confirmation;
// a removed discovery tool. Compatible: new tools, new optional fields, new
// enum values, widened constraints, changed descriptions.
package compat

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/schemadoc"
)

// Change is one difference between the versions.
type Change struct {
	Breaking bool
	Tool     string // "" for a service-level change
	Message  string
}

func (c Change) String() string {
	kind := "compatible"
	if c.Breaking {
		kind = "BREAKING"
	}
	if c.Tool == "" {
		return kind + ": " + c.Message
	}
	return kind + ": tool " + c.Tool + ": " + c.Message
}

// Breaking reports whether any change breaks agents.
func Breaking(cs []Change) bool {
	for _, c := range cs {
		if c.Breaking {
			return true
		}
	}
	return false
}

// Compare returns the changes from old to new, breaking first, each group in
// a stable order. An input that is not a schema document is an error.
func Compare(old, new []byte) ([]Change, error) {
	var a, b schemadoc.Document
	if err := json.Unmarshal(old, &a); err != nil {
		return nil, fmt.Errorf("old surface: %w", err)
	}
	if err := json.Unmarshal(new, &b); err != nil {
		return nil, fmt.Errorf("new surface: %w", err)
	}
	var out []Change
	add := func(breaking bool, tool, format string, args ...any) {
		out = append(out, Change{Breaking: breaking, Tool: tool, Message: fmt.Sprintf(format, args...)})
	}
	oldTools, newTools := tools(a), tools(b)
	for _, name := range sortedKeys(oldTools) {
		ot := oldTools[name]
		nt, ok := newTools[name]
		if !ok {
			add(true, name, "removed")
			continue
		}
		if ot.Classification != nt.Classification {
			add(true, name, "classification %s -> %s", ot.Classification, nt.Classification)
		}
		if ot.Confirmation != nt.Confirmation {
			add(true, name, "confirmation %s -> %s", ot.Confirmation, nt.Confirmation)
		}
		var os, ns map[string]any
		if err := json.Unmarshal(ot.InputSchema, &os); err != nil {
			return nil, fmt.Errorf("old surface: tool %s: input schema: %w", name, err)
		}
		if err := json.Unmarshal(nt.InputSchema, &ns); err != nil {
			return nil, fmt.Errorf("new surface: tool %s: input schema: %w", name, err)
		}
		compareSchema(func(breaking bool, format string, args ...any) { add(breaking, name, format, args...) }, "", os, ns)
	}
	for _, name := range sortedKeys(newTools) {
		if _, ok := oldTools[name]; !ok {
			add(false, name, "added")
		}
	}
	oldSvc, newSvc := serviceTools(a), serviceTools(b)
	for _, name := range sortedKeys(oldSvc) {
		if !newSvc[name] {
			add(true, "", "service tool %s removed", name)
		}
	}
	for _, name := range sortedKeys(newSvc) {
		if !oldSvc[name] {
			add(false, "", "service tool %s added", name)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Breaking && !out[j].Breaking })
	return out, nil
}

func tools(d schemadoc.Document) map[string]schemadoc.Tool {
	m := map[string]schemadoc.Tool{}
	for _, s := range d.Services {
		for _, t := range s.Tools {
			m[t.Name] = t
		}
	}
	return m
}

// serviceTools are the validate, schema, apply, discard and discovery tools.
func serviceTools(d schemadoc.Document) map[string]bool {
	m := map[string]bool{}
	for _, s := range d.Services {
		for _, n := range []string{s.ValidateTool, s.SchemaTool, s.ApplyTool, s.DiscardTool} {
			if n != "" {
				m[n] = true
			}
		}
		for _, dt := range s.Discovery {
			m[dt.Tool] = true
		}
	}
	return m
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// compareSchema compares one input (sub)schema; at is its dotted path.
func compareSchema(add func(bool, string, ...any), at string, a, b map[string]any) {
	name := at
	if name == "" {
		name = "the input"
	}
	if ta, tb := a["type"], b["type"]; fmt.Sprint(ta) != fmt.Sprint(tb) {
		add(true, "%s: type %v -> %v", name, ta, tb)
		return
	}
	// Enum values agents may send.
	if ea, ok := a["enum"].([]any); ok {
		eb, _ := b["enum"].([]any)
		in := map[string]bool{}
		for _, v := range eb {
			in[fmt.Sprint(v)] = true
		}
		var removed []string
		for _, v := range ea {
			if !in[fmt.Sprint(v)] {
				removed = append(removed, fmt.Sprint(v))
			}
		}
		if len(removed) > 0 {
			add(true, "%s: value %s no longer accepted", name, strings.Join(removed, ", "))
		}
		if len(eb) > len(ea)-len(removed) {
			add(false, "%s: %d value(s) added", name, len(eb)-(len(ea)-len(removed)))
		}
	} else if _, ok := b["enum"]; ok {
		add(true, "%s: now limited to %d values", name, len(b["enum"].([]any)))
	}
	narrow := func(key string, lower bool) {
		va, okA := num(a[key])
		vb, okB := num(b[key])
		switch {
		case !okA && okB:
			add(true, "%s: %s %v added", name, key, vb)
		case okA && !okB:
			add(false, "%s: %s %v removed", name, key, va)
		case okA && okB && va != vb:
			narrower := (lower && vb > va) || (!lower && vb < va)
			add(narrower, "%s: %s %v -> %v", name, key, va, vb)
		}
	}
	for _, k := range []string{"minLength", "minimum", "minItems"} {
		narrow(k, true)
	}
	for _, k := range []string{"maxLength", "maximum", "maxItems"} {
		narrow(k, false)
	}
	pa, hadPattern := a["pattern"].(string)
	pb, hasPattern := b["pattern"].(string)
	switch {
	case hadPattern && !hasPattern:
		add(false, "%s: pattern %s removed", name, pa)
	case !hadPattern && hasPattern:
		add(true, "%s: pattern %s added", name, pb)
	case pa != pb:
		add(true, "%s: pattern %s -> %s", name, pa, pb)
	}
	if ia, ok := a["items"].(map[string]any); ok {
		if ib, ok := b["items"].(map[string]any); ok {
			compareSchema(add, at+"[]", ia, ib)
		}
	}
	propsA, _ := a["properties"].(map[string]any)
	propsB, _ := b["properties"].(map[string]any)
	reqA, reqB := set(a["required"]), set(b["required"])
	for _, k := range sortedKeys(propsA) {
		path := join(at, k)
		sb, ok := propsB[k].(map[string]any)
		if !ok {
			add(true, "%s: field removed", path)
			continue
		}
		if !reqA[k] && reqB[k] {
			add(true, "%s: now required", path)
		}
		if reqA[k] && !reqB[k] {
			add(false, "%s: now optional", path)
		}
		if sa, ok := propsA[k].(map[string]any); ok {
			compareSchema(add, path, sa, sb)
		}
	}
	for _, k := range sortedKeys(propsB) {
		if _, ok := propsA[k]; ok {
			continue
		}
		if reqB[k] {
			add(true, "%s: new required field", join(at, k))
		} else {
			add(false, "%s: new optional field", join(at, k))
		}
	}
}

func join(at, k string) string {
	if at == "" {
		return k
	}
	return at + "." + k
}

func set(v any) map[string]bool {
	m := map[string]bool{}
	if l, ok := v.([]any); ok {
		for _, x := range l {
			m[fmt.Sprint(x)] = true
		}
	}
	return m
}

func num(v any) (float64, bool) {
	f, ok := v.(float64)
	return f, ok
}
