package gen

// How many levels of a recursive message an input schema spells out,
// while one schema is written, and the text a level past them takes.

import (
	"fmt"
	"strconv"

	"google.golang.org/protobuf/reflect/protoreflect"
)

// expansion tracks, while one input schema is written, how many levels of
// each recursive message are open on the path and the depth in force.
type expansion struct {
	open  map[*messageModel]int
	limit map[*messageModel]int
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
