package gen

// How many levels of a recursive message an input schema spells out,
// while one schema is written, and the text a level past them takes.

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/invopop/jsonschema"

	"google.golang.org/protobuf/reflect/protoreflect"
)

// expansion tracks, while one input schema is written, how many levels of
// each recursive message are open on the path and the depth in force.
type expansion struct {
	open  map[*messageModel]int
	limit map[*messageModel]int
	// text are the optional message fields the tool's schema budget gives
	// as JSON text (schema_budget.go); nil for a complete schema.
	text map[*fieldModel]bool
	// briefMask: an update_mask names its resource's paths only in
	// get_write_schema (the budget's last resort).
	briefMask bool
	// depth and path locate the value being written: objects open above
	// it, and its agent path ("a.b[].c").
	depth int
	path  []string
	// seen, when set, is told of every optional message subtree written
	// that the budget could give as JSON text.
	seen func(f *fieldModel, path string, depth int, s *jsonschema.Schema)
}

func newExpansion() *expansion {
	return &expansion{open: map[*messageModel]int{}, limit: map[*messageModel]int{}}
}

// enter opens one more level of m reached through f; it reports false
// (and opens nothing) when that level is past the depth in force, limit.
func (x *expansion) enter(f *fieldModel, m *messageModel) (leave func(), limit int, ok bool) {
	limit = x.limit[m]
	if limit == 0 {
		limit = defaultRecursionDepth
	}
	if f != nil && f.recursionDepth != nil {
		limit = *f.recursionDepth
	}
	if x.open[m]+1 > limit {
		return nil, limit, false
	}
	prevOpen, prevLimit := x.open[m], x.limit[m]
	x.open[m], x.limit[m] = prevOpen+1, limit
	return func() { x.open[m], x.limit[m] = prevOpen, prevLimit }, limit, true
}

// recursiveTextNote describes the JSON text a level past the schema's
// expansion takes, with an example naming the message's first string field.
func recursiveTextNote(m *messageModel, limit int) string {
	levels := strconv.Itoa(limit) + " levels"
	if limit == 1 {
		levels = "1 level"
	}
	example := ""
	for _, f := range m.agentFields() {
		if f.proto.Desc.Kind() == protoreflect.StringKind && !f.proto.Desc.IsList() {
			example = fmt.Sprintf(`, e.g. "{\"%s\":\"...\"}"`, f.agentName)
			break
		}
	}
	return fmt.Sprintf("JSON text of one %s object with the same fields as the level above%s. The schema spells out %s of %s; deeper levels travel as JSON text.",
		m.proto.Desc.Name(), example, levels, m.proto.Desc.Name())
}

// budgetTextNote describes an optional subtree the tool's schema budget
// gives as JSON text.
func budgetTextNote(m *messageModel) string {
	return fmt.Sprintf("JSON text of one %s object (or the object itself); get_write_schema gives its complete schema.", m.proto.Desc.Name())
}

// at is the agent path of the value being written.
func (x *expansion) at() string {
	return strings.ReplaceAll(strings.Join(x.path, "."), ".[]", "[]")
}

// enterPath adds seg to the path of the value being written until the
// returned function is called.
func (x *expansion) enterPath(seg string) func() {
	x.path = append(x.path, seg)
	return func() { x.path = x.path[:len(x.path)-1] }
}
