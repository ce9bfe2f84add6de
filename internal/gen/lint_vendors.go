package gen

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// VendorNotes lists what each agent vendor's strict tool mode does with one
// input schema beyond the portable profile (LintSchema): the changes a team
// makes, or the guarantees it loses, when it turns strict mode on.
//   - OpenAI strict mode requires every property to be required (optional
//     ones become required and nullable) and forbids open objects (maps).
//   - Anthropic strict tool use ignores numeric and length bounds and
//     patterns; the server-side checks still apply.
//   - Gemini: @google/genai's mcpToTool sends the input schema unchanged as
//     the declaration's parametersJsonSchema, so nothing needs noting
//     (measured for every example tool by interop/vendors.mjs; the older
//     OpenAPI-subset "parameters" form dropped additionalProperties).
//   - Amazon Nova supports only type, properties and required at the top
//     level and advises at most two levels of nesting.
func VendorNotes(tool string, raw []byte) []string {
	var root map[string]any
	if err := json.Unmarshal(raw, &root); err != nil {
		return []string{fmt.Sprintf("tool %s: input schema is not JSON: %v", tool, err)}
	}
	var optional, bounded, maps, patterns []string
	depth := 0
	var walk func(s map[string]any, path string, level int)
	walk = func(s map[string]any, path string, level int) {
		if level > depth {
			depth = level
		}
		for _, k := range []string{"minLength", "maxLength", "minimum", "maximum", "minItems", "maxItems"} {
			if _, ok := s[k]; ok && path != "" {
				bounded = appendOnce(bounded, path)
			}
		}
		if _, ok := s["pattern"]; ok && path != "" {
			patterns = appendOnce(patterns, path)
		}
		if ap, ok := s["additionalProperties"].(map[string]any); ok {
			maps = append(maps, path)
			walk(ap, path+"{}", level+1)
		}
		if items, ok := s["items"].(map[string]any); ok {
			walk(items, path+"[]", level)
		}
		props, _ := s["properties"].(map[string]any)
		req := map[string]bool{}
		if rs, ok := s["required"].([]any); ok {
			for _, r := range rs {
				req[fmt.Sprint(r)] = true
			}
		}
		keys := make([]string, 0, len(props))
		for k := range props {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			p := k
			if path != "" {
				p = path + "." + k
			}
			if !req[k] {
				optional = append(optional, p)
			}
			if ps, ok := props[k].(map[string]any); ok {
				next := level
				if ps["type"] == "object" {
					next = level + 1
				}
				walk(ps, p, next)
			}
		}
	}
	walk(root, "", 1)
	var out []string
	note := func(vendor, format string, args ...any) {
		out = append(out, fmt.Sprintf("tool %s: %s: %s", tool, vendor, fmt.Sprintf(format, args...)))
	}
	if len(optional) > 0 {
		note("openai-strict", "optional properties must become required and nullable: %s", strings.Join(optional, ", "))
	}
	if len(maps) > 0 {
		note("openai-strict", "open objects are not accepted: %s", strings.Join(maps, ", "))
	}
	if len(bounded) > 0 {
		note("anthropic-strict", "length, range and item bounds are not enforced while sampling (the server still checks them): %s", strings.Join(bounded, ", "))
	}
	if len(patterns) > 0 {
		note("anthropic-strict", "patterns are not enforced while sampling: %s", strings.Join(patterns, ", "))
	}
	if depth > 2 {
		note("nova", "objects nest %d levels; Nova advises at most 2", depth)
	}
	return out
}

func appendOnce(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}
