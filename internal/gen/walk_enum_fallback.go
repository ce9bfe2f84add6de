package gen

import (
	"fmt"
	"strings"

	"google.golang.org/protobuf/compiler/protogen"

	mcpwritev1 "github.com/mcpwrite/protoc-gen-mcpwrite/annotations/mcpwrite/v1"
)

// An enum only answers carry, in a service adopted with expose: ALL, whose
// derived aliases collide or that offers no value, would fail the whole
// service although no request sends it. When the author did not annotate
// the enum, answers spell its values as the proto writes them (the value
// names, unambiguous by construction) and the plugin warns; an annotated
// enum keeps failing with its error (the author's explicit choice).

// enumAnnotated reports whether e or one of its values carries an
// mcpwrite option.
func enumAnnotated(e *protogen.Enum) bool {
	if ext[*mcpwritev1.EnumRules](e.Desc.Options(), mcpwritev1.E_Enum) != nil {
		return true
	}
	for _, v := range e.Values {
		if valueRules(v) != nil {
			return true
		}
	}
	return false
}

// answerTable builds the alias table answers render e with. Under
// expose: ALL, for an unannotated enum whose table has problems, it takes
// the table back, warns and returns nil (proto value names).
func (b *builder) answerTable(sm *serviceModel, e *protogen.Enum, f *protogen.Field) *enumTable {
	style := b.fileStyle()
	if serviceRules(sm).GetExpose() != mcpwritev1.ServiceRules_ALL || enumAnnotated(e) {
		return b.styledTable(e, style, nil, f)
	}
	probs, enums := len(b.probs.list), len(b.file.enums)
	had := map[string]bool{}
	for k := range b.tables {
		had[k] = true
	}
	_, hadFirst := b.file.firstTable[e.Desc.FullName()]
	t := b.styledTable(e, style, nil, f)
	if len(b.probs.list) == probs {
		return t
	}
	var whys []string
	for _, p := range b.probs.list[probs:] {
		whys = append(whys, strings.TrimPrefix(p, e.Desc.ParentFile().Path()+": "))
	}
	b.probs.list = b.probs.list[:probs]
	b.file.enums = b.file.enums[:enums]
	for k := range b.tables {
		if !had[k] {
			delete(b.tables, k)
		}
	}
	if !hadFirst {
		delete(b.file.firstTable, e.Desc.FullName())
	}
	b.probs.leftOut = append(b.probs.leftOut, fmt.Sprintf(
		"service %s: answers spell %s as its proto value names: %s; to choose agent aliases annotate the enum with (mcpwrite.v1.enum) and its values with (mcpwrite.v1.value)",
		sm.proto.Desc.FullName(), e.Desc.FullName(), strings.Join(whys, "; ")))
	return nil
}

// fileStyle is the alias style every enum table of the file so far uses,
// PASCAL when they differ or there is none.
func (b *builder) fileStyle() aliasStyle {
	style := styleUnset
	for _, t := range b.file.enums {
		switch {
		case style == styleUnset:
			style = t.style
		case style != t.style:
			return stylePascal
		}
	}
	if style == styleUnset {
		return stylePascal
	}
	return style
}
