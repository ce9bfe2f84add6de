package gen_test

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/mcpwrite/protoc-gen-mcpwrite/internal/gen"
)

// closed wraps properties in a portable object schema.
func closed(props string) string {
	return `{"type":"object","additionalProperties":false,"properties":{` + props + `}}`
}

// nested wraps inner in one closed object per name, outermost first.
func nested(names []string, inner string) string {
	s := closed(inner)
	for i := len(names) - 1; i >= 0; i-- {
		s = closed(`"` + names[i] + `":` + s)
	}
	return s
}

func TestLintSchemaReportsEachPortabilityProblem(t *testing.T) {
	var many []string
	for i := range 101 {
		many = append(many, fmt.Sprintf(`"p%d":{"type":"string"}`, i))
	}
	var hundredOne []string
	for i := range 101 {
		hundredOne = append(hundredOne, fmt.Sprintf(`"V%d"`, i))
	}
	cases := []struct {
		name   string
		tool   string
		schema string
		want   []string
	}{
		{
			name:   "a closed object with scalar properties is portable",
			tool:   "create_element",
			schema: closed(`"name":{"type":"string"},"tags":{"type":"array","items":{"type":"string"}}`),
		},
		{
			name:   "a map is an object whose additionalProperties is the value schema",
			tool:   "t",
			schema: closed(`"labels":{"type":"object","additionalProperties":{"type":"string"}}`),
		},
		{
			name:   "a boolean subschema",
			tool:   "t",
			schema: closed(`"value":true`),
			want:   []string{"tool t: value is a boolean schema; MCP clients refuse property schemas that are not objects"},
		},
		{
			name:   "a property without a type",
			tool:   "t",
			schema: closed(`"value":{"description":"anything"}`),
			want:   []string{"tool t: value has no type; OpenAI strict mode refuses typeless values"},
		},
		{
			name:   "a top level that is not an object",
			tool:   "t",
			schema: `{"type":"array","items":{"type":"string"}}`,
			want:   []string{"tool t: the input schema must be type object"},
		},
		{
			name:   "an open object",
			tool:   "t",
			schema: closed(`"attrs":{"type":"object"}`),
			want:   []string{"tool t: attrs is an open object; OpenAI strict mode needs additionalProperties false"},
		},
		{
			name:   "a map of open objects names the map value",
			tool:   "t",
			schema: closed(`"labels":{"type":"object","additionalProperties":{"type":"object"}}`),
			want:   []string{"tool t: labels{} is an open object; OpenAI strict mode needs additionalProperties false"},
		},
		{
			name:   "an open object inside array items",
			tool:   "t",
			schema: closed(`"rows":{"type":"array","items":{"type":"object"}}`),
			want:   []string{"tool t: rows[] is an open object; OpenAI strict mode needs additionalProperties false"},
		},
		{
			name:   "an open root",
			tool:   "t",
			schema: `{"type":"object","properties":{}}`,
			want:   []string{"tool t: the input is an open object; OpenAI strict mode needs additionalProperties false"},
		},
		{
			name:   "combinators and references",
			tool:   "t",
			schema: closed(`"x":{"anyOf":[{"type":"string"}],"$ref":"#/x"}`),
			want: []string{
				"tool t: x uses $ref, outside the portable subset",
				"tool t: x uses anyOf, outside the portable subset",
			},
		},
		{
			name:   "a type array",
			tool:   "t",
			schema: closed(`"x":{"type":["string","null"]}`),
			want:   []string{"tool t: x has a type array; use one type"},
		},
		{
			name:   "a non-string enum value",
			tool:   "t",
			schema: closed(`"level":{"type":"integer","enum":[1,2]}`),
			want:   []string{"tool t: level has a non-string enum value 1"},
		},
		{
			name:   "too many enum values",
			tool:   "t",
			schema: closed(`"kind":{"type":"string","enum":[` + strings.Join(hundredOne, ",") + `]}`),
			want:   []string{"tool t: kind has 101 enum values (portable limit 100)"},
		},
		{
			name:   "objects nested too deep",
			tool:   "t",
			schema: nested([]string{"a", "b", "c", "d", "e"}, `"f":{"type":"string"}`),
			want:   []string{"tool t: a.b.c.d.e nests objects 6 deep (portable limit 5)"},
		},
		{
			name:   "a property name outside the portable pattern",
			tool:   "t",
			schema: closed(`"full name":{"type":"string"}`),
			want:   []string{"tool t: property full name does not match ^[a-zA-Z0-9_-]{1,64}$"},
		},
		{
			name:   "too many properties",
			tool:   "t",
			schema: closed(strings.Join(many, ",")),
			want:   []string{"tool t: 101 properties in all (portable limit 100)"},
		},
		{
			name:   "a tool name outside the portable pattern",
			tool:   "crm.add",
			schema: closed(`"x":{"type":"string"}`),
			want:   []string{`tool crm.add: the name does not match ^[a-zA-Z0-9_-]{1,64}$; name the tool with letters, digits, _ and - only, e.g. option (mcpwrite.v1.tool) = {name: "crm_add"}`},
		},
		{
			name:   "not JSON",
			tool:   "t",
			schema: `{`,
			want:   []string{"tool t: input schema is not JSON: unexpected end of JSON input"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := gen.LintSchema(tc.tool, []byte(tc.schema))
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("LintSchema:\n got: %q\nwant: %q", got, tc.want)
			}
		})
	}
}

func TestLintOutputSchemaChecksTheMCPToolShape(t *testing.T) {
	cases := []struct {
		name, schema string
		want         []string
	}{
		{"typed branches and open objects are fine", `{"type":"object","properties":{"value":{"anyOf":[{"type":"string"},{"type":"null"}]},"meta":{"type":"object"}}}`, nil},
		{"a boolean property schema", `{"type":"object","properties":{"value":true}}`,
			[]string{"tool t: output value is a boolean schema; MCP clients refuse property schemas that are not objects"}},
		{"a typeless property, item and map value", `{"type":"object","properties":{"a":{},"b":{"type":"array","items":{}},"c":{"type":"object","additionalProperties":{}}}}`,
			[]string{"tool t: output a has no type", "tool t: output b[] has no type", "tool t: output c{} has no type"}},
		{"a boolean anyOf branch", `{"type":"object","properties":{"v":{"anyOf":[true]}}}`,
			[]string{"tool t: output v|0 is a boolean schema; MCP clients refuse property schemas that are not objects"}},
		{"top level not an object", `{"type":"string"}`, []string{"tool t: the output schema must be type object"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := gen.LintOutputSchema("t", []byte(tc.schema)); !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
		})
	}
}
