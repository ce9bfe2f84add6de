package gen

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/schemadoc"
)

// The portable profile every input schema should meet (the intersection of
// what agent vendors accept in tool schemas).
const (
	maxEnumValues   = 100
	maxDepth        = 5
	maxToolProps    = 100
	portableNameExp = `^[a-zA-Z0-9_-]{1,64}$`
)

var portableName = regexp.MustCompile(portableNameExp)

// forbidden keywords are outside the portable subset.
var forbidden = []string{"$ref", "$defs", "definitions", "anyOf", "oneOf", "allOf", "not", "if", "then", "else", "patternProperties", "dependentSchemas", "dependencies"}

// LintSchema checks one input schema against the portable profile and
// returns one message per problem, in a stable order.
func LintSchema(tool string, raw []byte) []string {
	var root any
	if err := json.Unmarshal(raw, &root); err != nil {
		return []string{fmt.Sprintf("tool %s: input schema is not JSON: %v", tool, err)}
	}
	var out []string
	props := 0
	// path is the dotted prefix of v's children ("customer.billing."); at
	// names v itself in messages.
	var walk func(v any, path string, depth int)
	walk = func(v any, path string, depth int) {
		s, ok := v.(map[string]any)
		if !ok {
			return
		}
		at := strings.TrimSuffix(path, ".")
		if at == "" {
			at = "the input"
		}
		for _, k := range forbidden {
			if _, has := s[k]; has {
				out = append(out, fmt.Sprintf("tool %s: %s uses %s, outside the portable subset", tool, at, k))
			}
		}
		if t, has := s["type"]; has {
			if _, isStr := t.(string); !isStr {
				out = append(out, fmt.Sprintf("tool %s: %s has a type array; use one type", tool, at))
			}
		}
		if e, has := s["enum"].([]any); has {
			if len(e) > maxEnumValues {
				out = append(out, fmt.Sprintf("tool %s: %s has %d enum values (portable limit %d)", tool, at, len(e), maxEnumValues))
			}
			for _, x := range e {
				if _, isStr := x.(string); !isStr {
					out = append(out, fmt.Sprintf("tool %s: %s has a non-string enum value %v", tool, at, x))
					break
				}
			}
		}
		if s["type"] == "object" {
			if depth > maxDepth {
				out = append(out, fmt.Sprintf("tool %s: %s nests objects %d deep (portable limit %d)", tool, at, depth, maxDepth))
			}
			ap, hasAP := s["additionalProperties"]
			p, _ := s["properties"].(map[string]any)
			switch {
			case hasAP && ap == false:
			case hasAP && ap != true:
				// A map: additionalProperties is the value schema.
				walk(ap, strings.TrimSuffix(path, ".")+"{}.", depth+1)
			default:
				out = append(out, fmt.Sprintf("tool %s: %s is an open object; OpenAI strict mode needs additionalProperties false", tool, at))
			}
			keys := make([]string, 0, len(p))
			for k := range p {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			props += len(keys)
			for _, k := range keys {
				if !portableName.MatchString(k) {
					out = append(out, fmt.Sprintf("tool %s: property %s%s does not match %s", tool, path, k, portableNameExp))
				}
				walk(p[k], path+k+".", depth+1)
			}
		}
		if it, has := s["items"]; has {
			walk(it, strings.TrimSuffix(path, ".")+"[].", depth)
		}
	}
	walk(root, "", 1)
	if props > maxToolProps {
		out = append(out, fmt.Sprintf("tool %s: %d properties in all (portable limit %d)", tool, props, maxToolProps))
	}
	if !portableName.MatchString(tool) {
		out = append(out, fmt.Sprintf("tool name %s does not match %s", tool, portableNameExp))
	}
	return out
}

// lintDocument lints every tool of a document.
func lintDocument(doc schemadoc.Document) []string {
	var out []string
	for _, s := range doc.Services {
		for _, t := range s.Tools {
			out = append(out, LintSchema(t.Name, t.InputSchema)...)
		}
	}
	return out
}
