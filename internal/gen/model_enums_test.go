package gen

import (
	"fmt"
	"sort"
	"testing"

	mcpwritev1 "github.com/mcpwrite/protoc-gen-mcpwrite/annotations/mcpwrite/v1"
)

// enumPairs lists, for each model enum, every value of its annotation enum
// converted: "number NAME -> model String" ("unknown" when it does not
// convert), and every model value no annotation value converts to.
func enumPairs[T ~int](annotationNames map[int32]string, modelNames []string, convert func(int32) (T, bool)) []string {
	var out []string
	hit := map[int]bool{}
	for n, name := range annotationNames {
		v, ok := convert(n)
		if !ok {
			out = append(out, fmt.Sprintf("%d %s -> unknown", n, name))
			continue
		}
		hit[int(v)] = true
		out = append(out, fmt.Sprintf("%d %s -> %s", n, name, fmt.Sprint(v)))
	}
	for i, name := range modelNames {
		if !hit[i] {
			out = append(out, "model "+name+" has no annotation value")
		}
	}
	sort.Strings(out)
	return out
}

// Every value of the annotation enums the model holds converts, by name,
// to the model value that prints the same name, and every model value is
// reached: an annotation value added without its model counterpart fails.
func TestModelEnumsConvertEveryAnnotationValue(t *testing.T) {
	got := map[string][]string{
		"kind": enumPairs(mcpwritev1.ToolRules_Kind_name, toolKindNames, func(n int32) (toolKind, bool) {
			return kindOf(mcpwritev1.ToolRules_Kind(n))
		}),
		"classification": enumPairs(mcpwritev1.ToolRules_Classification_name, toolClassNames, func(n int32) (toolClass, bool) {
			return classOf(mcpwritev1.ToolRules_Classification(n))
		}),
		"confirmation": enumPairs(mcpwritev1.ToolRules_Confirmation_name, confirmModeNames, func(n int32) (confirmMode, bool) {
			return confirmOf(mcpwritev1.ToolRules_Confirmation(n))
		}),
		"elicit_fallback": enumPairs(mcpwritev1.ToolRules_ElicitFallback_name, fallbackModeNames, func(n int32) (fallbackMode, bool) {
			return fallbackOf(mcpwritev1.ToolRules_ElicitFallback(n))
		}),
		"tool_naming": enumPairs(mcpwritev1.ServiceRules_ToolNaming_name, toolNamingNames, func(n int32) (toolNaming, bool) {
			return namingOf(mcpwritev1.ServiceRules_ToolNaming(n))
		}),
		"style": enumPairs(mcpwritev1.EnumAlias_Style_name, aliasStyleNames, func(n int32) (aliasStyle, bool) {
			return styleOf(mcpwritev1.EnumAlias_Style(n))
		}),
	}
	want := map[string][]string{
		"kind":            {"0 KIND_UNSPECIFIED -> KIND_UNSPECIFIED", "1 CREATE -> CREATE", "2 UPDATE -> UPDATE", "3 DELETE -> DELETE", "4 ACTION -> ACTION", "5 READ -> READ"},
		"classification":  {"0 CLASSIFICATION_UNSPECIFIED -> CLASSIFICATION_UNSPECIFIED", "1 SAFE_CREATE -> SAFE_CREATE", "2 SAFE_UPDATE -> SAFE_UPDATE", "3 DESTRUCTIVE_UPDATE -> DESTRUCTIVE_UPDATE", "4 DESTRUCTIVE_DELETE -> DESTRUCTIVE_DELETE", "5 READ_ONLY -> READ_ONLY"},
		"confirmation":    {"0 CONFIRMATION_UNSPECIFIED -> CONFIRMATION_UNSPECIFIED", "1 DIRECT -> DIRECT", "2 PROPOSAL -> PROPOSAL", "3 ELICIT -> ELICIT"},
		"elicit_fallback": {"0 ELICIT_FALLBACK_UNSPECIFIED -> ELICIT_FALLBACK_UNSPECIFIED", "1 PROPOSE -> PROPOSE", "2 REFUSE -> REFUSE"},
		"tool_naming":     {"0 TOOL_NAMING_UNSPECIFIED -> TOOL_NAMING_UNSPECIFIED", "1 SNAKE_CASE -> SNAKE_CASE", "2 CAMEL_CASE -> CAMEL_CASE", "3 AS_IS -> AS_IS"},
		"style":           {"0 STYLE_UNSPECIFIED -> STYLE_UNSPECIFIED", "1 PASCAL -> PASCAL", "2 SNAKE -> SNAKE", "3 KEBAB -> KEBAB"},
	}
	for what, w := range want {
		if fmt.Sprint(got[what]) != fmt.Sprint(w) {
			t.Errorf("%s converts as\n%q\nwant\n%q", what, got[what], w)
		}
	}
}

// A value the annotations package does not know (a newer annotation)
// does not convert, and prints as its number.
func TestModelEnumsRefuseUnknownValues(t *testing.T) {
	if v, ok := kindOf(mcpwritev1.ToolRules_Kind(9)); ok {
		t.Errorf("kindOf(9) = %v, true; want false", v)
	}
	if v, ok := styleOf(mcpwritev1.EnumAlias_Style(-1)); ok {
		t.Errorf("styleOf(-1) = %v, true; want false", v)
	}
	if got := toolKind(9).String(); got != "9" {
		t.Errorf("toolKind(9).String() = %q, want \"9\"", got)
	}
	if v, ok := convertEnum[toolKind]([]string{"KIND_UNSPECIFIED"}, mcpwritev1.ToolRules_Kind_name, 1); ok || v != kindUnset {
		t.Errorf("convertEnum of CREATE into a model without it = %v, %v; want %v, false", v, ok, kindUnset)
	}
}
