// Package outline_test drives a recursive request message end to end: the
// official MCP Go SDK client lists the tool, sends a tree deeper than the
// levels its schema spells out (the deeper levels as JSON text, text inside
// text too), and the handler receives the whole tree decoded and enriched;
// a tree past the decoder's depth limit is refused.
package outline_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	outlinev1 "github.com/mcpwrite/protoc-gen-mcpwrite/golden/e2e/outline/gen/outline/v1"
	"github.com/mcpwrite/protoc-gen-mcpwrite/golden/e2e/outline/gen/outline/v1/outlinev1mcpwrite"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcptest"
)

// handler keeps the last request it received.
type handler struct {
	mu  sync.Mutex
	got *outlinev1.CreateOutlineRequest
}

func (h *handler) CreateOutline(_ context.Context, in *outlinev1.CreateOutlineRequest) (*outlinev1.CreateOutlineResponse, error) {
	h.mu.Lock()
	h.got = in
	h.mu.Unlock()
	count, depth := measure(in.GetSections(), 1)
	return &outlinev1.CreateOutlineResponse{OutlineId: in.GetOutlineId(), SectionCount: int32(count), Depth: int32(depth)}, nil
}

func (h *handler) last() *outlinev1.CreateOutlineRequest {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.got
}

// measure counts the sections of a forest and its depth (level: the
// forest's own level).
func measure(ss []*outlinev1.Section, level int) (count, depth int) {
	for _, s := range ss {
		count++
		depth = max(depth, level)
		c, d := measure(s.GetSections(), level+1)
		count, depth = count+c, max(depth, d)
	}
	return count, depth
}

// render writes a forest as title(children...), titles joined by commas.
func render(ss []*outlinev1.Section) string {
	var parts []string
	for _, s := range ss {
		p := s.GetTitle()
		if len(s.GetSections()) > 0 {
			p += "(" + render(s.GetSections()) + ")"
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, ",")
}

// ids collects every section_id of a forest.
func ids(ss []*outlinev1.Section, into map[string]int) {
	for _, s := range ss {
		into[s.GetSectionId()]++
		ids(s.GetSections(), into)
	}
}

func connect(t *testing.T, opts ...runtime.Option) (*mcp.ClientSession, *handler) {
	t.Helper()
	h := &handler{}
	server := mcp.NewServer(&mcp.Implementation{Name: "outline", Version: "test"}, nil)
	rc := func(context.Context, *mcp.CallToolRequest) (runtime.RequestContext, bool) {
		return runtime.RequestContext{TenantID: "acme", PrincipalID: "ada"}, true
	}
	opts = append([]runtime.Option{
		runtime.WithRequestContextFunc(rc),
		runtime.WithClock(func() time.Time { return time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC) }),
	}, opts...)
	if err := outlinev1mcpwrite.RegisterOutlineServiceTools(server, h, opts...); err != nil {
		t.Fatalf("register: %v", err)
	}
	return mcptest.Connect(t, server, mcptest.Options{}), h
}

// node is one section as an agent writes it: an object, or (text true) a
// string holding JSON text of the object.
func node(title string, text bool, children ...string) string {
	obj := `{"title":` + quote(title)
	if len(children) > 0 {
		obj += `,"sections":[` + strings.Join(children, ",") + `]`
	}
	obj += "}"
	if text {
		return quote(obj)
	}
	return obj
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

const textNote = `JSON text of one Section object with the same fields as the level above, e.g. "{\"title\":\"...\"}". The schema spells out 2 levels of Section; deeper levels travel as JSON text.`

// TestSchemaSpellsOutTwoLevels: sections (recursion_depth 2) is an object
// at levels 1 and 2 and JSON text at level 3.
func TestSchemaSpellsOutTwoLevels(t *testing.T) {
	cs, _ := connect(t)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Tools) == 0 {
		t.Fatal("no tools listed")
	}
	var tool *mcp.Tool
	for _, x := range res.Tools {
		if x.Name == "create_outline" {
			tool = x
		}
	}
	if tool == nil {
		t.Fatalf("create_outline not listed")
	}
	raw, err := json.Marshal(tool.InputSchema)
	if err != nil {
		t.Fatal(err)
	}
	var s map[string]any
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatal(err)
	}
	level := s
	for i := 1; i <= 2; i++ {
		items := dig(t, level, "properties", "sections", "items")
		if items["type"] != "object" {
			t.Fatalf("level %d: sections items are %v, want an object", i, items["type"])
		}
		level = items
	}
	got := dig(t, level, "properties", "sections", "items")
	want := map[string]any{"type": "string", "description": textNote}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("level 3:\n got %v\nwant %v", got, want)
	}
}

func dig(t *testing.T, m map[string]any, keys ...string) map[string]any {
	t.Helper()
	for _, k := range keys {
		next, ok := m[k].(map[string]any)
		if !ok {
			t.Fatalf("no object at %q in %v", k, m)
		}
		m = next
	}
	return m
}

// TestDeepTreeReachesHandlerWhole sends a tree of 7 levels: levels 1-2 as
// objects, level 3 as JSON text holding levels 3-5 as objects, level 6 as
// JSON text inside that text, and level 7 as an object inside it.
func TestDeepTreeReachesHandlerWhole(t *testing.T) {
	cs, h := connect(t)
	l7 := node("g", false)
	l6 := node("f", true, l7)
	l5 := node("e", false, l6)
	l4 := node("d", false, l5)
	l3 := node("c", true, l4)
	l2 := node("b", false, l3, node("c2", true))
	l1 := node("a", false, l2)
	args := `{"title":"Guide","sections":[` + l1 + `,` + node("z", false) + `]}`
	r := mcptest.Call(t, cs, "create_outline", args)
	if r.IsError {
		t.Fatalf("create_outline failed: %s", r.Text)
	}
	got := h.last()
	if got == nil {
		t.Fatal("the handler was not called")
	}
	if want := "a(b(c(d(e(f(g)))),c2)),z"; render(got.GetSections()) != want {
		t.Fatalf("tree: got %s, want %s", render(got.GetSections()), want)
	}
	// Enrichment reached every level, the ones sent as text included.
	seen := map[string]int{}
	ids(got.GetSections(), seen)
	if len(seen) != 9 || seen[""] != 0 {
		t.Fatalf("section ids: want 9 distinct non-empty ids, got %v", seen)
	}
	if got.GetOutlineId() == "" {
		t.Fatal("outline_id was not generated")
	}
	if r.Body["section_count"] != float64(9) || r.Body["depth"] != float64(7) {
		t.Fatalf("answer: got %s", r.Text)
	}
}

// deep is a tree of n levels: the first two as objects, the third as JSON
// text holding the rest as objects, so the payload itself stays shallow.
func deep(n int) string {
	s := node(fmt.Sprintf("l%d", n), false)
	for i := n - 1; i >= 3; i-- {
		s = node(fmt.Sprintf("l%d", i), false, s)
	}
	return node("l1", false, node("l2", false, quote(s)))
}

// deepObjects is a tree of n levels, every level an object.
func deepObjects(n int) string {
	s := node(fmt.Sprintf("l%d", n), false)
	for i := n - 1; i >= 1; i-- {
		s = node(fmt.Sprintf("l%d", i), false, s)
	}
	return s
}

// sectionsPath is the path of the section at level n of a deep tree.
func sectionsPath(n int) string {
	return strings.TrimSuffix(strings.Repeat("sections[0].", n), ".")
}

// TestTreeTooDeepAsObjectsAnswersAlike: a tree past the depth limit is
// refused with the same answer whether its levels came as objects or as
// JSON text: the full path of the first level past the limit, how levels
// count, details.limit and the hint to send deeper levels in further calls.
func TestTreeTooDeepAsObjectsAnswersAlike(t *testing.T) {
	cs, h := connect(t)
	entry := func(args string) string {
		r := mcptest.Call(t, cs, "create_outline", args)
		es, _ := r.Body["errors"].([]any)
		if !r.IsError || len(es) != 1 {
			t.Fatalf("want one error, got %s", r.Text)
		}
		m := es[0].(map[string]any)
		return fmt.Sprintf("%v %v: %v | details %v | hint %v", m["code"], m["field"], m["message"], m["details"], m["suggestions"])
	}
	want := "CONSTRAINT_VIOLATION " + sectionsPath(16) + ": " + fmt.Sprintf(tooDeep, 32) +
		" | details map[limit:32] | hint map[hint:Send fewer levels in one call: write the upper levels first, then add the deeper ones in further calls.]"
	if got := entry(`{"title":"Deep","sections":[` + deepObjects(16) + `]}`); got != want {
		t.Errorf("as objects:\n got %s\nwant %s", got, want)
	}
	if got := entry(`{"title":"Deep","sections":[` + deep(16) + `]}`); got != want {
		t.Errorf("as text:\n got %s\nwant %s", got, want)
	}
	if h.last() != nil {
		t.Fatal("the handler was called with a tree past the depth limit")
	}
}

// errorsOf returns the code, field and message of each error of an answer.
func errorsOf(t *testing.T, r mcptest.Result) []string {
	t.Helper()
	if !r.IsError {
		t.Fatalf("want an error, got %s", r.Text)
	}
	es, _ := r.Body["errors"].([]any)
	var out []string
	for _, e := range es {
		m := e.(map[string]any)
		out = append(out, fmt.Sprintf("%v %v: %v", m["code"], m["field"], m["message"]))
	}
	return out
}

const tooDeep = "nesting is deeper than the limit of %d levels (objects and arrays, counted from the top of the arguments, JSON text included)"

// TestTreePastDepthLimitIsRefused: JSON text counts toward the decoder's
// depth limit from the level that holds it, under the default limit (32)
// and a configured one. A section is two levels (its object and its
// sections array); section level k is at JSON depth 2k+1.
func TestTreePastDepthLimitIsRefused(t *testing.T) {
	cs, h := connect(t)
	// 15 levels: the deepest object is at depth 31, within the limit.
	if r := mcptest.Call(t, cs, "create_outline", `{"title":"Deep","sections":[`+deep(15)+`]}`); r.IsError {
		t.Fatalf("15 levels: %s", r.Text)
	}
	if n, _ := measure(h.last().GetSections(), 1); n != 15 {
		t.Fatalf("15 levels: the handler got %d sections", n)
	}
	h.mu.Lock()
	h.got = nil
	h.mu.Unlock()
	// 16 levels reach depth 33. The text (levels 3-16, 28 levels deep on
	// its own) would pass a parse of its own; it is refused where it sits,
	// at the full path of the first level past the limit, as the same tree
	// sent as objects is (TestTreeTooDeepAsObjectsAnswersAlike).
	got := errorsOf(t, mcptest.Call(t, cs, "create_outline", `{"title":"Deep","sections":[`+deep(16)+`]}`))
	want := []string{"CONSTRAINT_VIOLATION " + sectionsPath(16) + ": " + fmt.Sprintf(tooDeep, 32)}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("16 levels:\n got %q\nwant %q", got, want)
	}
	if h.last() != nil {
		t.Fatal("the handler was called with a tree past the depth limit")
	}

	cs, h = connect(t, runtime.WithLimits(runtime.Limits{MaxDepth: 10}))
	if r := mcptest.Call(t, cs, "create_outline", `{"title":"Four","sections":[`+deep(4)+`]}`); r.IsError {
		t.Fatalf("4 levels under MaxDepth 10: %s", r.Text)
	}
	if n, d := measure(h.last().GetSections(), 1); n != 4 || d != 4 {
		t.Fatalf("4 levels under MaxDepth 10: the handler got %d sections, %d deep", n, d)
	}
	got = errorsOf(t, mcptest.Call(t, cs, "create_outline", `{"title":"Five","sections":[`+deep(5)+`]}`))
	want = []string{"CONSTRAINT_VIOLATION " + sectionsPath(5) + ": " + fmt.Sprintf(tooDeep, 10)}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("5 levels under MaxDepth 10:\n got %q\nwant %q", got, want)
	}
}

// TestBadTextLevel: a level that is not JSON text of an object is refused
// at its path, every one of them in one answer.
func TestBadTextLevel(t *testing.T) {
	cs, h := connect(t)
	args := `{"title":"T","sections":[{"title":"a","sections":[{"title":"b","sections":["{\"title\":", "[1]", 7, "{\"title\":\"\"}"]}]}]}`
	got := errorsOf(t, mcptest.Call(t, cs, "create_outline", args))
	want := []string{
		"INVALID_JSON sections[0].sections[0].sections[0]: expected JSON text of an object: invalid JSON at byte 9: unexpected end of input where a value was expected",
		"INVALID_TYPE sections[0].sections[0].sections[1]: expected JSON text of an object, got JSON text of an array",
		"INVALID_TYPE sections[0].sections[0].sections[2]: expected object (or a string holding JSON text of one), got number",
		"CONSTRAINT_VIOLATION sections[0].sections[0].sections[3].title: must be at least 1 character, got 0",
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("errors:\n got %q\nwant %q", got, want)
	}
	if h.last() != nil {
		t.Fatal("the handler was called with a bad tree")
	}
}

// TestPreparerAppliesTheConfiguredLimits: runtime.NewPreparer (decode,
// validate and enrich without MCP) reads the text levels under the limits
// it was given, as the tool path does, and enriches every level.
func TestPreparerAppliesTheConfiguredLimits(t *testing.T) {
	p, err := runtime.NewPreparer(outlinev1mcpwrite.NewOutlineService(&handler{}), runtime.WithLimits(runtime.Limits{MaxDepth: 10}))
	if err != nil {
		t.Fatal(err)
	}
	_, es := p.Decode("create_outline", []byte(`{"title":"Five","sections":[`+deep(5)+`]}`))
	if len(es) != 1 || es[0].Code != "CONSTRAINT_VIOLATION" || es[0].Field != sectionsPath(5) || es[0].Message != fmt.Sprintf(tooDeep, 10) {
		t.Fatalf("Decode of 5 levels under MaxDepth 10: %v", es)
	}
	m, es := p.Prepare(context.Background(), "create_outline", []byte(`{"title":"Four","sections":[`+deep(4)+`]}`), runtime.RequestContext{TenantID: "acme", PrincipalID: "ada"})
	if len(es) > 0 {
		t.Fatalf("Prepare of 4 levels: %v", es)
	}
	req := m.(*outlinev1.CreateOutlineRequest)
	seen := map[string]int{}
	ids(req.GetSections(), seen)
	if render(req.GetSections()) != "l1(l2(l3(l4)))" || len(seen) != 4 || seen[""] != 0 {
		t.Fatalf("Prepare: tree %s, ids %v", render(req.GetSections()), seen)
	}
}
