// Package compat compares two versions of a capability's tool surface (the
// .mcpwrite.json documents the plugin writes) and reports what breaks agents
// already prompted with the old one, apart from compatible additions: the
// tool-surface counterpart of `buf breaking`.
//
// Breaking: a removed tool, service tool, input field or output field; a new
// required field or a field that became required (also under a new
// required_when condition); a field that no longer takes a name for an id
// (reference); a changed type; a removed
// or renamed enum value (an alias agents may send); a narrowed constraint
// (length, range, item count, a changed pattern); a changed or removed
// default; a changed classification or confirmation; a removed discovery
// tool. Compatible: new tools, new optional fields, new output fields, new
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
	return CompareDocuments([][]byte{old}, [][]byte{new})
}

// CompareDocuments compares two surfaces made of several documents (one per
// proto file), as a capability repo has them: tools are matched by name
// across the documents, so a tool may move between files.
func CompareDocuments(old, new [][]byte) ([]Change, error) {
	a, err := parse("old surface", old)
	if err != nil {
		return nil, err
	}
	b, err := parse("new surface", new)
	if err != nil {
		return nil, err
	}
	var out []Change
	add := func(breaking bool, tool, format string, args ...any) {
		out = append(out, Change{Breaking: breaking, Tool: tool, Message: fmt.Sprintf(format, args...)})
	}
	oldTools, err := tools("old surface", a)
	if err != nil {
		return nil, err
	}
	newTools, err := tools("new surface", b)
	if err != nil {
		return nil, err
	}
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
		if of, nf := fallbackName(ot.ElicitFallback), fallbackName(nt.ElicitFallback); of != nf {
			// Refusing where a proposal used to wait for the user takes a
			// path away from clients that cannot ask; the reverse adds one.
			add(nf == "REFUSE", name, "elicit_fallback %s -> %s", of, nf)
		}
		toolAdd := func(breaking bool, format string, args ...any) { add(breaking, name, format, args...) }
		os, ns, err := schemas(name, "input", ot.InputSchema, nt.InputSchema)
		if err != nil {
			return nil, err
		}
		compareSchema(toolAdd, "", os, ns)
		oo, no, err := schemas(name, "output", ot.OutputSchema, nt.OutputSchema)
		if err != nil {
			return nil, err
		}
		compareOutput(toolAdd, "", oo, no)
		compareRequiredWhen(toolAdd, ot.RequiredWhen, nt.RequiredWhen)
		compareReferences(toolAdd, ot.References, nt.References)
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

func parse(which string, raw [][]byte) ([]schemadoc.Document, error) {
	var out []schemadoc.Document
	for _, r := range raw {
		var d schemadoc.Document
		if err := json.Unmarshal(r, &d); err != nil {
			return nil, fmt.Errorf("%s: %w", which, err)
		}
		if d.Source == "" {
			return nil, fmt.Errorf("%s: not a .mcpwrite.json document (no \"source\")", which)
		}
		out = append(out, d)
	}
	return out, nil
}

// schemas decodes one tool's old and new input or output schema; an absent
// schema is an empty one.
func schemas(tool, which string, a, b json.RawMessage) (map[string]any, map[string]any, error) {
	var sa, sb map[string]any
	if len(a) > 0 {
		if err := json.Unmarshal(a, &sa); err != nil {
			return nil, nil, fmt.Errorf("old surface: tool %s: %s schema: %w", tool, which, err)
		}
	}
	if len(b) > 0 {
		if err := json.Unmarshal(b, &sb); err != nil {
			return nil, nil, fmt.Errorf("new surface: tool %s: %s schema: %w", tool, which, err)
		}
	}
	return sa, sb, nil
}

func tools(which string, ds []schemadoc.Document) (map[string]schemadoc.Tool, error) {
	m := map[string]schemadoc.Tool{}
	from := map[string]string{}
	for _, d := range ds {
		for _, s := range d.Services {
			for _, t := range s.Tools {
				if prev, ok := from[t.Name]; ok {
					return nil, fmt.Errorf("%s: tool %s is in both %s and %s", which, t.Name, prev, d.Source)
				}
				m[t.Name], from[t.Name] = t, d.Source
			}
		}
	}
	return m, nil
}

// serviceTools are the validate, schema, apply, discard and discovery tools.
func serviceTools(ds []schemadoc.Document) map[string]bool {
	m := map[string]bool{}
	for _, d := range ds {
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
	compareEnum(add, name, a, b)
	compareBounds(add, name, a, b)
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

// compareEnum compares the enum values agents may send. Aliases keep the
// order of the proto enum, so a value gone where a new one now stands is a
// renamed alias.
func compareEnum(add func(bool, string, ...any), name string, a, b map[string]any) {
	if ea, ok := a["enum"].([]any); ok {
		eb, _ := b["enum"].([]any)
		inA, inB := strSet(ea), strSet(eb)
		var removed, renamed []string
		added := 0
		for i, v := range ea {
			if inB[fmt.Sprint(v)] {
				continue
			}
			if i < len(eb) && !inA[fmt.Sprint(eb[i])] {
				renamed = append(renamed, fmt.Sprintf("%v -> %v", v, eb[i]))
				added--
				continue
			}
			removed = append(removed, fmt.Sprint(v))
		}
		for _, v := range eb {
			if !inA[fmt.Sprint(v)] {
				added++
			}
		}
		if len(renamed) > 0 {
			add(true, "%s: value renamed %s", name, strings.Join(renamed, ", "))
		}
		if len(removed) > 0 {
			add(true, "%s: value %s no longer accepted", name, strings.Join(removed, ", "))
		}
		if added > 0 {
			add(false, "%s: %d value(s) added", name, added)
		}
	} else if eb, ok := b["enum"].([]any); ok {
		add(true, "%s: now limited to %d values", name, len(eb))
	}
}

// compareBounds compares a schema's default, length, value and item bounds
// and pattern: a narrower bound breaks agents, a wider one does not.
func compareBounds(add func(bool, string, ...any), name string, a, b map[string]any) {
	da, hadDefault := a["default"]
	db, hasDefault := b["default"]
	switch {
	case hadDefault && !hasDefault:
		add(true, "%s: default %s removed", name, jsonText(da))
	case hadDefault && jsonText(da) != jsonText(db):
		add(true, "%s: default %s -> %s", name, jsonText(da), jsonText(db))
	case !hadDefault && hasDefault:
		add(false, "%s: default %s added", name, jsonText(db))
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
}

// compareOutput compares one output (sub)schema: what agents read back. A
// removed or retyped field breaks them; a new field does not.
func compareOutput(add func(bool, string, ...any), at string, a, b map[string]any) {
	name := "output"
	if at != "" {
		name = "output " + at
	}
	if ta, tb := a["type"], b["type"]; fmt.Sprint(ta) != fmt.Sprint(tb) {
		add(true, "%s: type %v -> %v", name, ta, tb)
		return
	}
	if ia, ok := a["items"].(map[string]any); ok {
		if ib, ok := b["items"].(map[string]any); ok {
			compareOutput(add, at+"[]", ia, ib)
		}
	}
	propsA, _ := a["properties"].(map[string]any)
	propsB, _ := b["properties"].(map[string]any)
	for _, k := range sortedKeys(propsA) {
		sb, ok := propsB[k].(map[string]any)
		if !ok {
			add(true, "output %s: field removed", join(at, k))
			continue
		}
		if sa, ok := propsA[k].(map[string]any); ok {
			compareOutput(add, join(at, k), sa, sb)
		}
	}
	for _, k := range sortedKeys(propsB) {
		if _, ok := propsA[k]; !ok {
			add(false, "output %s: new field", join(at, k))
		}
	}
}

func strSet(l []any) map[string]bool {
	m := map[string]bool{}
	for _, v := range l {
		m[fmt.Sprint(v)] = true
	}
	return m
}

func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
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

// compareRequiredWhen reports conditions under which a field became required
// (agents that meet them without the field now fail) or no longer is.
func compareRequiredWhen(add func(bool, string, ...any), a, b []schemadoc.RequiredWhen) {
	conds := func(rs []schemadoc.RequiredWhen) map[string][2]string {
		out := map[string][2]string{}
		for _, r := range rs {
			for _, v := range r.Equals {
				out[r.Field+"\x00"+r.When+"\x00"+jsonText(v)] = [2]string{r.Field, r.When + " is " + jsonText(v)}
			}
		}
		return out
	}
	old, cur := conds(a), conds(b)
	for _, k := range sortedKeys(cur) {
		if _, ok := old[k]; !ok {
			add(true, "%s: now required when %s", cur[k][0], cur[k][1])
		}
	}
	for _, k := range sortedKeys(old) {
		if _, ok := cur[k]; !ok {
			add(false, "%s: no longer required when %s", old[k][0], old[k][1])
		}
	}
}

// compareReferences reports fields that stopped taking a name (agents that
// send one now fail) or started to.
func compareReferences(add func(bool, string, ...any), a, b []schemadoc.Reference) {
	kinds := func(rs []schemadoc.Reference) map[string]string {
		out := map[string]string{}
		for _, r := range rs {
			out[r.Field] = r.Kind
		}
		return out
	}
	old, cur := kinds(a), kinds(b)
	for _, f := range sortedKeys(old) {
		if _, ok := cur[f]; !ok {
			add(true, "%s: no longer takes %s names, only ids", f, old[f])
		}
	}
	for _, f := range sortedKeys(cur) {
		if _, ok := old[f]; !ok {
			add(false, "%s: now takes %s names as well as ids", f, cur[f])
		}
	}
}

// fallbackName is a tool's elicit_fallback as written ("" is PROPOSE).
func fallbackName(f string) string {
	if f == "" {
		return "PROPOSE"
	}
	return f
}
