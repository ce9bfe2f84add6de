package gen

import (
	"strings"
	"unicode"

	mcpwritev1 "github.com/mcpwrite/protoc-gen-mcpwrite/annotations/mcpwrite/v1"
)

// Every emitted identifier and tool name is derived here.

// words splits CamelCase, snake_case, kebab-case and SCREAMING_CASE into
// lower-case words: "CreateElement" -> [create element], "HTTPServer" ->
// [http server], "APPLICATION_COMPONENT" -> [application component].
func words(s string) []string {
	var out []string
	var cur []rune
	rs := []rune(s)
	flush := func() {
		if len(cur) > 0 {
			out = append(out, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	for i, r := range rs {
		switch {
		case r == '_' || r == '-' || r == ' ' || r == '.':
			flush()
		case unicode.IsUpper(r):
			if len(cur) > 0 {
				prev := rs[i-1]
				nextLower := i+1 < len(rs) && unicode.IsLower(rs[i+1])
				if unicode.IsLower(prev) || unicode.IsDigit(prev) || (unicode.IsUpper(prev) && nextLower) {
					flush()
				}
			}
			cur = append(cur, r)
		default:
			cur = append(cur, r)
		}
	}
	flush()
	return out
}

func pascal(ws []string) string {
	var b strings.Builder
	for _, w := range ws {
		if w == "" {
			continue
		}
		rs := []rune(w)
		rs[0] = unicode.ToUpper(rs[0])
		b.WriteString(string(rs))
	}
	return b.String()
}

func camel(ws []string) string {
	p := pascal(ws)
	if p == "" {
		return p
	}
	rs := []rune(p)
	rs[0] = unicode.ToLower(rs[0])
	return string(rs)
}

func snake(ws []string) string { return strings.Join(ws, "_") }

// toolName applies the service's naming style to a method or service-tool name.
func toolName(naming mcpwritev1.ServiceRules_ToolNaming, prefix, name string) string {
	switch naming {
	case mcpwritev1.ServiceRules_CAMEL_CASE:
		return prefix + camel(words(name))
	case mcpwritev1.ServiceRules_AS_IS:
		return prefix + name
	default:
		return prefix + snake(words(name))
	}
}

// aliasFor renders an enum value name (prefix already stripped) in a style.
func aliasFor(style mcpwritev1.EnumAlias_Style, stripped string) string {
	ws := words(stripped)
	switch style {
	case mcpwritev1.EnumAlias_SNAKE:
		return snake(ws)
	case mcpwritev1.EnumAlias_KEBAB:
		return strings.Join(ws, "-")
	default:
		return pascal(ws)
	}
}

// enumPrefix is the conventional value prefix of an enum: ElementType -> ELEMENT_TYPE_.
func enumPrefix(enumName string) string {
	return strings.ToUpper(snake(words(enumName))) + "_"
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
func resolverMethod(name string) string { return "Resolve" + pascal(words(name)) }

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
