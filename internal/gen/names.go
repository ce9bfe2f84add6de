package gen

import (
	"strings"

	mcpwritev1 "github.com/mcpwrite/protoc-gen-mcpwrite/annotations/mcpwrite/v1"
	"github.com/mcpwrite/protoc-gen-mcpwrite/internal/naming"
)

// Every emitted identifier and tool name is derived here, from the shared
// vocabulary of internal/naming (word splitting, casing, enum prefixes).

// toolName applies the service's naming style to a method or service-tool name.
func toolName(style mcpwritev1.ServiceRules_ToolNaming, prefix, name string) string {
	switch style {
	case mcpwritev1.ServiceRules_CAMEL_CASE:
		return prefix + naming.Camel(naming.Words(name))
	case mcpwritev1.ServiceRules_AS_IS:
		return prefix + name
	default:
		return prefix + naming.Snake(naming.Words(name))
	}
}

// aliasFor renders an enum value name (prefix already stripped) in a style.
func aliasFor(style mcpwritev1.EnumAlias_Style, stripped string) string {
	ws := naming.Words(stripped)
	switch style {
	case mcpwritev1.EnumAlias_SNAKE:
		return naming.Snake(ws)
	case mcpwritev1.EnumAlias_KEBAB:
		return naming.Kebab(ws)
	default:
		return naming.Pascal(ws)
	}
}

// valueAlias is the alias an enum value is offered under when no
// annotation names one: the value's name without the enum's conventional
// prefix (naming.EnumPrefix), in style. The runtime derives the same PASCAL
// alias for a table built without aliases (runtime.NewEnumTable).
func valueAlias(style mcpwritev1.EnumAlias_Style, enumName, valueName string) string {
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

// serviceCtorName is the constructor of a service's runtime.Service:
// NewArchitectureService for ArchitectureService (no stutter),
// NewPlannerService for Planner.
func serviceCtorName(sm *serviceModel) string {
	return "New" + strings.TrimSuffix(sm.proto.GoName, "Service") + "Service"
}
