package golden_test

import (
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/domain"
	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/gen/archimate/v1/archimatev1mcpwrite"
	crmdomain "github.com/mcpwrite/protoc-gen-mcpwrite/examples/crm/domain"
	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/crm/gen/crm/v1/crmv1mcpwrite"
	neotomadomain "github.com/mcpwrite/protoc-gen-mcpwrite/examples/neotoma/domain"
	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/neotoma/gen/neotoma/v1/neotomav1mcpwrite"
	purchasingdomain "github.com/mcpwrite/protoc-gen-mcpwrite/examples/purchasing/domain"
	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/purchasing/gen/purchasing/v1/purchasingv1mcpwrite"
	tasksdomain "github.com/mcpwrite/protoc-gen-mcpwrite/examples/tasks/domain"
	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/tasks/gen/tasks/v1/tasksv1mcpwrite"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
)

// exampleServersWith registers each example's tools with options.
var exampleServersWith = map[string]func(*mcp.Server, ...runtime.Option) error{
	"archimate": func(s *mcp.Server, o ...runtime.Option) error {
		return archimatev1mcpwrite.RegisterArchitectureServiceTools(s, domain.New(), o...)
	},
	"crm": func(s *mcp.Server, o ...runtime.Option) error {
		return crmv1mcpwrite.RegisterCrmServiceTools(s, crmdomain.New(nil), o...)
	},
	"neotoma": func(s *mcp.Server, o ...runtime.Option) error {
		mem := neotomadomain.New(nil)
		return neotomav1mcpwrite.RegisterMemoryServiceTools(s, mem, append(o, runtime.WithVocabulary(mem.EntityTypeVocabulary()))...)
	},
	"purchasing": func(s *mcp.Server, o ...runtime.Option) error {
		return purchasingv1mcpwrite.RegisterPurchasingServiceTools(s, purchasingdomain.NewDemo(), o...)
	},
	"tasks": func(s *mcp.Server, o ...runtime.Option) error {
		return tasksv1mcpwrite.RegisterTaskServiceTools(s, tasksdomain.New(t0Root), o...)
	},
}

// mutation is a payload one change away from schema-valid.
type mutation struct {
	what  string
	field string // the argument the refusal must name
	args  map[string]any
	// lenient names the documented lenient form that accepts it ("" none).
	lenient string
}

// Lenient forms, as docs/schemas.md lists them.
const (
	lenientJSONText = "a JSON-text position given the value itself"
	lenientMap      = "a map given as a JSON object"
)

// mutations derives the single-mutation invalid payloads of base, a valid
// instance of in.
func mutations(in *schemaNode, base map[string]any) []mutation {
	with := func(k string, v any) map[string]any {
		out := make(map[string]any, len(base)+1)
		for x, y := range base {
			out[x] = y
		}
		if v == nil {
			delete(out, k)
		} else {
			out[k] = v
		}
		return out
	}
	out := []mutation{{what: "unknown key", field: "zz_not_a_field", args: with("zz_not_a_field", 1)}}
	for _, k := range in.Required {
		out = append(out, mutation{what: "missing required " + k, field: k, args: with(k, nil)})
	}
	for _, k := range in.propNames() {
		s := in.Properties[k]
		if isControl(k) {
			continue
		}
		wrong, lenient := wrongType(s)
		out = append(out, mutation{what: "wrong type for " + k, field: k, args: with(k, wrong), lenient: lenient})
		if len(s.Enum) > 0 {
			out = append(out, mutation{what: "enum value outside the list for " + k, field: k, args: with(k, "NotAValueOfThisList")})
		}
		if b, ok := s.Const.(bool); ok {
			out = append(out, mutation{what: "not the const for " + k, field: k, args: with(k, !b)})
		}
		for _, b := range overBounds(s) {
			out = append(out, mutation{what: b.what + " for " + k, field: k, args: with(k, b.v)})
		}
	}
	return out
}

func isControl(k string) bool {
	switch k {
	case "dry_run", "dryRun", "client_request_id", "clientRequestId":
		return true
	}
	return false
}

// wrongType is a value of another JSON type than s admits, and the lenient
// form that accepts it, if any.
func wrongType(s *schemaNode) (any, string) {
	switch s.typ() {
	case "string":
		if strings.Contains(s.Description, "JSON text of any value") {
			return 7, lenientJSONText
		}
		return 7, ""
	case "integer", "number":
		return "7x", ""
	case "boolean":
		return "yes", ""
	case "array":
		if s.Items != nil && s.Items.Properties["key"] != nil && s.Items.Properties["value"] != nil {
			return map[string]any{}, lenientMap
		}
		return "x", ""
	case "object":
		return "x", ""
	}
	return []any{}, ""
}

type bound struct {
	what string
	v    any
}

// overBounds are values just outside s's length, number and item bounds.
func overBounds(s *schemaNode) []bound {
	var out []bound
	if s.MaxLength != nil {
		out = append(out, bound{"over maxLength", strings.Repeat("a", *s.MaxLength+1)})
	}
	if s.MinLength != nil && *s.MinLength > 0 {
		out = append(out, bound{"under minLength", strings.Repeat("a", *s.MinLength-1)})
	}
	if s.Maximum != nil {
		out = append(out, bound{"over maximum", *s.Maximum + 1})
	}
	if s.ExclusiveMaximum != nil {
		out = append(out, bound{"at exclusiveMaximum", *s.ExclusiveMaximum})
	}
	if s.Minimum != nil {
		out = append(out, bound{"under minimum", *s.Minimum - 1})
	}
	if s.ExclusiveMinimum != nil {
		out = append(out, bound{"at exclusiveMinimum", *s.ExclusiveMinimum})
	}
	if s.MaxItems != nil && s.Items != nil && s.Items.typ() == "string" && len(s.Items.Enum) == 0 && s.Items.Pattern == "" {
		items := make([]any, *s.MaxItems+1)
		for i := range items {
			items[i] = "item" + strings.Repeat("x", i)
		}
		out = append(out, bound{"over maxItems", items})
	}
	if s.MinItems != nil && *s.MinItems > 0 {
		out = append(out, bound{"under minItems", []any{}})
	}
	if s.Pattern != "" && !matches(s, "!~ no match") {
		out = append(out, bound{"outside pattern", "!~ no match"})
	}
	return out
}
