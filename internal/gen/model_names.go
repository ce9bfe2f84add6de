package gen

import (
	"strings"

	"google.golang.org/protobuf/compiler/protogen"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/mcpwrite/protoc-gen-mcpwrite/internal/naming"
)

// Every emitted identifier and tool name is derived here, from the shared
// vocabulary of internal/naming (word splitting, casing, enum prefixes).

// toolName applies the service's naming style to a method or service-tool name.
func toolName(style toolNaming, prefix, name string) string {
	switch style {
	case namingCamel:
		return prefix + naming.Camel(naming.Words(name))
	case namingAsIs:
		return prefix + name
	default:
		return prefix + naming.Snake(naming.Words(name))
	}
}

// aliasFor renders an enum value name (prefix already stripped) in a style.
func aliasFor(style aliasStyle, stripped string) string {
	ws := naming.Words(stripped)
	switch style {
	case styleSnake:
		return naming.Snake(ws)
	case styleKebab:
		return naming.Kebab(ws)
	default:
		return naming.Pascal(ws)
	}
}

// valueAlias is the alias an enum value is offered under when no
// annotation names one: the value's name without the enum's conventional
// prefix (naming.EnumPrefix), in style. The runtime derives the same PASCAL
// alias for a table built without aliases (mcpwriteimpl.NewEnumTable).
func valueAlias(style aliasStyle, enumName, valueName string) string {
	return aliasFor(style, strings.TrimPrefix(valueName, naming.EnumPrefix(enumName)))
}

// plural makes a discovery tool noun plural: ElementType -> ElementTypes.
func plural(s string) string {
	switch {
	case strings.HasSuffix(s, "y") && !strings.HasSuffix(s, "ey") && !strings.HasSuffix(s, "ay"):
		return s[:len(s)-1] + "ies"
	case strings.HasSuffix(s, "s") || strings.HasSuffix(s, "x") || strings.HasSuffix(s, "ch") || strings.HasSuffix(s, "sh"):
		return s + "es"
	}
	return s + "s"
}

// resolverMethod renders the Handler method of a resolver: active_model -> ResolveActiveModel.
func resolverMethod(name string) string { return "Resolve" + naming.Pascal(naming.Words(name)) }

// isSnakeName reports whether s is lower snake_case (resolver names).
func isSnakeName(s string) bool {
	if s == "" || s[0] < 'a' || s[0] > 'z' || strings.HasSuffix(s, "_") || strings.Contains(s, "__") {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_') {
			return false
		}
	}
	return true
}

// isToolName reports whether s is a portable tool or property name.
func isToolName(s string) bool {
	if len(s) == 0 || len(s) > 64 {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-') {
			return false
		}
	}
	return true
}

// handlerName is the generated Handler interface of a service.
func handlerName(sm *serviceModel) string { return sm.proto.GoName + "Handler" }

// serviceCtorName is the constructor of a service's mcpwriteimpl.Service:
// NewArchitectureService for ArchitectureService (no stutter),
// NewPlannerService for Planner.
func serviceCtorName(sm *serviceModel) string {
	return "New" + strings.TrimSuffix(sm.proto.GoName, "Service") + "Service"
}

// getterName is the generated getter of a message field: GetTitle.
func getterName(f *protogen.Field) string { return "Get" + f.GoName }

// registerName is a service's registration function: RegisterPlannerTools.
func registerName(sm *serviceModel) string { return "Register" + sm.proto.GoName + "Tools" }

// decodeName is the decoder of an agent-facing message: decodeCreateElementRequest.
func decodeName(m *messageModel) string { return "decode" + m.goName() }

// fieldsVarName is the variable listing a message's agent fields, for the
// decoder's unknown-field check.
func fieldsVarName(m *messageModel) string { return "fields" + m.goName() }

// patternVarName is the compiled pattern of a field's values, or of its map
// keys (key).
func patternVarName(m *messageModel, f *protogen.Field, key bool) string {
	name := "pattern" + m.goName() + f.GoName
	if key {
		name += "Key"
	}
	return name
}

// enrichName is the function that fills the server-supplied fields of a
// message for one service: enrichPlannerCreateTaskRequest.
func enrichName(sm *serviceModel, m *messageModel) string {
	return "enrich" + sm.proto.GoName + m.goName()
}

// fillVarName is the variable an unconditional fill reads a value into.
func fillVarName(f *protogen.Field) string { return "v" + f.GoName }

// enumTableVarName is the variable of an alias table: enumElementType for
// the default style, enumElementTypeSnake for another, ...ForKind when a
// field's extra aliases make the table its own.
func enumTableVarName(e *protogen.Enum, style aliasStyle, extraOf *protogen.Field) string {
	name := "enum" + e.GoIdent.GoName
	if style != stylePascal {
		name += naming.Pascal(naming.Words(style.String()))
	}
	if extraOf != nil {
		name += "For" + naming.Pascal(naming.Words(string(extraOf.Desc.Name())))
	}
	return name
}

// pairTableVarName is the pair table a method's pair_check reads.
func pairTableVarName(m *protogen.Method) string { return "pairs" + m.GoName }

// adapterNames are the identifiers of a service's gRPC or connect-go
// client adapter.
type adapterNames struct {
	client    string // the client interface: PlannerClient, PlannerConnectClient
	resolvers string // the resolvers interface: PlannerResolvers
	impl      string // the adapter type: clientAdapterPlanner, connectAdapterPlanner
	ctor      string // its constructor: NewPlannerClientAdapter, NewPlannerConnectAdapter
}

func grpcAdapterNames(sm *serviceModel) adapterNames {
	svc := sm.proto.GoName
	return adapterNames{client: svc + "Client", resolvers: svc + "Resolvers", impl: "clientAdapter" + svc, ctor: "New" + svc + "ClientAdapter"}
}

func connectAdapterNames(sm *serviceModel) adapterNames {
	svc := sm.proto.GoName
	return adapterNames{client: svc + "ConnectClient", resolvers: svc + "Resolvers", impl: "connectAdapter" + svc, ctor: "New" + svc + "ConnectAdapter"}
}

// goType is the one renderer of a field's Go type; qual renders a named
// type (the generated file's import-resolving QualifiedGoIdent, or
// fullGoIdent where the type is only compared).
func goType(f *protogen.Field, qual func(protogen.GoIdent) string) string {
	var t string
	switch {
	case f.Desc.IsMap():
		return "map[" + goType(f.Message.Fields[0], qual) + "]" + goType(f.Message.Fields[1], qual)
	case f.Message != nil:
		t = "*" + qual(f.Message.GoIdent)
	case f.Enum != nil:
		t = qual(f.Enum.GoIdent)
	default:
		t = scalarGoType(f)
	}
	if f.Desc.IsList() {
		return "[]" + t
	}
	return t
}

// fullGoIdent renders a Go identifier with its whole import path.
func fullGoIdent(id protogen.GoIdent) string { return string(id.GoImportPath) + "." + id.GoName }

// scalarGoType is the Go type of a scalar field.
func scalarGoType(f *protogen.Field) string {
	switch f.Desc.Kind() {
	case protoreflect.BoolKind:
		return "bool"
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		return "int32"
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		return "uint32"
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		return "int64"
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return "uint64"
	case protoreflect.FloatKind:
		return "float32"
	case protoreflect.DoubleKind:
		return "float64"
	case protoreflect.StringKind:
		return "string"
	case protoreflect.BytesKind:
		return "[]byte"
	case protoreflect.EnumKind:
		return string(f.Enum.GoIdent.GoImportPath) + "." + f.Enum.GoIdent.GoName
	}
	return "any"
}

// goName is the message model's part of generated Go names.
func (m *messageModel) goName() string { return m.proto.GoIdent.GoName + m.variant }
