package runtime

import (
	"encoding/json"
	"sort"
	"strings"
)

// nestedPaths indexes an input schema's properties below the top level by
// name: "status" -> ["updates.status"]. Agents often flatten nested objects;
// the index lets an UNKNOWN_FIELD error say where the field belongs.
func nestedPaths(schema json.RawMessage) map[string][]string {
	var root map[string]any
	if json.Unmarshal(schema, &root) != nil {
		return nil
	}
	out := map[string][]string{}
	var walk func(s map[string]any, path string, depth int)
	walk = func(s map[string]any, path string, depth int) {
		if depth > 8 {
			return
		}
		if items, ok := s["items"].(map[string]any); ok {
			walk(items, path+"[]", depth+1)
		}
		props, _ := s["properties"].(map[string]any)
		for name, p := range props {
			full := name
			if path != "" {
				full = path + "." + name
				out[name] = append(out[name], full)
			}
			if ps, ok := p.(map[string]any); ok {
				walk(ps, full, depth+1)
			}
		}
	}
	walk(root, "", 0)
	for k := range out {
		sort.Strings(out[k])
	}
	return out
}

// hintNesting adds "it belongs inside ..." to top-level UNKNOWN_FIELD errors
// whose key is a nested field of the input.
func hintNesting(es Errors, paths map[string][]string) {
	for _, e := range es {
		if e == nil || e.Code != CodeUnknownField || strings.ContainsAny(e.Field, ".[") {
			continue
		}
		where := paths[e.Field]
		if len(where) == 0 {
			continue
		}
		if e.Suggestions == nil {
			e.Suggestions = &Suggestions{}
		}
		parent := where[0][:strings.LastIndex(where[0], ".")]
		e.Suggestions.DidYouMean = append([]string{where[0]}, e.Suggestions.DidYouMean...)
		if e.Suggestions.Hint == "" {
			e.Suggestions.Hint = e.Field + " belongs inside " + parent + ": send it as " + strings.Join(where, " or ")
		}
	}
}
