package gen

// The input-schema budget. A request with many nested optional messages
// makes an input schema of a hundred kilobytes (Dataproc's update tools,
// Cloud Build's triggers), which hosts load into every conversation. Past
// the budget (schema_budget, 16 KB by default) the deepest optional
// message subtrees are given as JSON text instead, level by level from
// the deepest, the largest first, until the schema fits; get_write_schema
// gives the complete schema, and the decoder takes either form of such a
// field (the object or JSON text of it), as it does for recursive levels.

import (
	"fmt"
	"sort"
	"strings"

	"github.com/invopop/jsonschema"
)

// DefaultSchemaBudget is the input-schema budget, in bytes, when the
// schema_budget parameter does not set one.
const DefaultSchemaBudget = 16 << 10

// maxBudgetPaths bounds the paths a budget warning lists.
const maxBudgetPaths = 8

// budgetCandidate is one optional message subtree of a tool's schema.
type budgetCandidate struct {
	f     *fieldModel
	path  string
	depth int
	bytes int
}

// budgetSchemas gives, in every tool of fm whose input schema is over
// budget bytes, the deepest optional message subtrees as JSON text until
// it fits, and returns one warning per such tool: what was collapsed and
// the bytes before and after.
func budgetSchemas(fm *fileModel, budget int) []string {
	if budget <= 0 {
		return nil
	}
	var warns []string
	for _, sm := range fm.services {
		for _, t := range sm.tools {
			if w := budgetTool(t, budget); w != "" {
				warns = append(warns, where(t.method.Desc)+": "+w)
			}
		}
	}
	return warns
}

// budgetTool collapses t's schema to budget and says what it collapsed.
func budgetTool(t *toolModel, budget int) string {
	long := map[string]string{}
	raw := mustSchemaJSON(agentDescriptions(inputSchema(t), "input", long))
	before := len(raw)
	if before <= budget {
		t.inputSchema, t.inputLong = raw, long
		return ""
	}
	text := map[*fieldModel]bool{}
	var paths []string
	for {
		t.textFields = text
		size, cands := measureInput(t)
		if size <= budget || len(cands) == 0 {
			break
		}
		// The deepest level first, its largest subtrees first, until the
		// estimate fits; then measure again.
		deepest := cands[0].depth
		for _, c := range cands {
			if c.depth != deepest || size <= budget {
				break
			}
			if !text[c.f] {
				text[c.f] = true
				c.f.textOK = true
				paths = append(paths, c.path)
				size -= c.bytes - len(budgetTextNote(c.f.child)) - 32
			}
		}
	}
	t.textFields = text
	after, _ := measureInput(t)
	mask := ""
	if after > budget && !t.briefMask {
		t.briefMask = true
		if brief, _ := measureInput(t); brief < after {
			after, mask = brief, "; the update_mask's path list is in get_write_schema"
		} else {
			t.briefMask = false
		}
	}
	listed := paths
	if len(listed) > maxBudgetPaths {
		listed = append(append([]string{}, paths[:maxBudgetPaths]...), fmt.Sprintf("and %d more", len(paths)-maxBudgetPaths))
	}
	w := fmt.Sprintf("tool %s: input schema of %d bytes is over the budget of %d (schema_budget): %d optional subtrees are JSON text, the complete schema is in get_write_schema (%s)%s; now %d bytes",
		t.name, before, budget, len(paths), strings.Join(listed, ", "), mask, after)
	if after > budget {
		w += ", still over: no optional subtree is left to give as JSON text"
	}
	return w
}

// measureInput is the size of t's input schema as written now and its
// optional message subtrees that are still objects, deepest first, then
// largest, then by path.
func measureInput(t *toolModel) (int, []budgetCandidate) {
	var cands []budgetCandidate
	x := newExpansion()
	x.text, x.briefMask = t.textFields, t.briefMask
	x.seen = func(f *fieldModel, path string, depth int, s *jsonschema.Schema) {
		cands = append(cands, budgetCandidate{f: f, path: path, depth: depth, bytes: len(mustSchemaJSON(s))})
	}
	size := len(mustSchemaJSON(agentDescriptions(inputSchemaIn(t, x), "input", map[string]string{})))
	sort.SliceStable(cands, func(i, j int) bool {
		a, b := cands[i], cands[j]
		if a.depth != b.depth {
			return a.depth > b.depth
		}
		if a.bytes != b.bytes {
			return a.bytes > b.bytes
		}
		return a.path < b.path
	})
	return size, cands
}
