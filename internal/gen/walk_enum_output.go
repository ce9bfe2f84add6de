package gen

import (
	"strings"

	"google.golang.org/protobuf/compiler/protogen"
	"google.golang.org/protobuf/reflect/protoreflect"

	mcpwritev1 "github.com/mcpwrite/protoc-gen-mcpwrite/annotations/mcpwrite/v1"
)

// An answer spells every enum value one way, chosen per enum (EnumRules
// output) or for the service (ServiceRules enum_output): the agent aliases
// (the default), the value names as the proto writes them, or the value
// names in upper or lower snake case without the enum's prefix. The choice
// is made here, as the table the service renders the enum with: none for
// proto names (the encoder writes the value name), a table of the chosen
// spelling otherwise.

// outputSpelling is how answers spell enum e in sm.
func outputSpelling(sm *serviceModel, e *protogen.Enum) mcpwritev1.EnumRules_Output {
	if o := ext[*mcpwritev1.EnumRules](e.Desc.Options(), mcpwritev1.E_Enum).GetOutput(); o != mcpwritev1.EnumRules_OUTPUT_UNSPECIFIED {
		return o
	}
	if o := serviceRules(sm).GetEnumOutput(); o != mcpwritev1.EnumRules_OUTPUT_UNSPECIFIED {
		return o
	}
	return mcpwritev1.EnumRules_ALIAS
}

// serviceEnumOutput is the service's enum_output for the schema document,
// "" when the service sets none.
func serviceEnumOutput(sm *serviceModel) string {
	if o := serviceRules(sm).GetEnumOutput(); o != mcpwritev1.EnumRules_OUTPUT_UNSPECIFIED {
		return o.String()
	}
	return ""
}

// outputTable is the table answers render e with (nil: the value names as
// the proto writes them). f is the field that carries e, for problems.
func (b *builder) outputTable(sm *serviceModel, e *protogen.Enum, f *protogen.Field) *enumTable {
	switch o := outputSpelling(sm, e); o {
	case mcpwritev1.EnumRules_PROTO_NAME:
		return nil
	case mcpwritev1.EnumRules_LOWER_SNAKE, mcpwritev1.EnumRules_UPPER_SNAKE:
		return b.snakeTable(e, o == mcpwritev1.EnumRules_UPPER_SNAKE)
	case mcpwritev1.EnumRules_ALIAS:
	default:
		b.probs.fieldf(f, "unknown enum output %d (annotations newer than the plugin? upgrade protoc-gen-mcpwrite)", int32(o))
		return nil
	}
	if t, ok := b.file.firstTable[e.Desc.FullName()]; ok {
		return t // the aliases agents send
	}
	// An enum only answers carry takes the style the file's agent enums
	// share, so one answer does not mix ApplicationComponent and part_of.
	return b.answerTable(sm, e, f)
}

// snakeTable spells e's values in snake case without the enum's prefix,
// upper or lower; an explicit alias of a value wins.
func (b *builder) snakeTable(e *protogen.Enum, upper bool) *enumTable {
	key := string(e.Desc.FullName()) + "|output-lower"
	suffix := "LowerSnake"
	if upper {
		key, suffix = string(e.Desc.FullName())+"|output-upper", "UpperSnake"
	}
	if t, ok := b.tables[key]; ok {
		return t
	}
	t := &enumTable{enum: e, varName: "enum" + e.GoIdent.GoName + "Output" + suffix, style: styleSnake}
	for _, v := range e.Values {
		vr := valueRules(v)
		vname := string(v.Desc.Name())
		if vr.GetHidden() || strings.HasSuffix(vname, "UNSPECIFIED") {
			continue
		}
		alias := vr.GetAlias()
		if alias == "" {
			alias = valueAlias(styleSnake, string(e.Desc.Name()), vname)
			if upper {
				alias = strings.ToUpper(alias)
			}
		}
		t.values = append(t.values, aliasValue{value: v, alias: alias})
	}
	b.tables[key] = t
	b.file.enums = append(b.file.enums, t)
	return t
}

// outputEnums collects the alias tables of every enum a response carries.
func (b *builder) outputEnums(sm *serviceModel, m *protogen.Message, seen map[protoreflect.FullName]bool) {
	if seen[m.Desc.FullName()] {
		return
	}
	seen[m.Desc.FullName()] = true
	for _, f := range m.Fields {
		vf := valueField(f)
		switch {
		case vf.Enum != nil:
			name := vf.Enum.Desc.FullName()
			if _, ok := sm.outputEnums[name]; ok {
				continue
			}
			if t := b.outputTable(sm, vf.Enum, f); t != nil {
				sm.outputEnums[name] = t
			}
		case vf.Message != nil && !wellKnown[vf.Message.Desc.FullName()]:
			b.outputEnums(sm, vf.Message, seen)
		}
	}
}
