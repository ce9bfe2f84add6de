package gen

import (
	"encoding/json"
	"fmt"
	"sort"
)

// ToOpenAIStrict converts an input schema to OpenAI's strict function
// calling form the way agent SDKs do before sending tools to the model:
// every object closed (additionalProperties false) with every property
// required, optional properties made nullable. It returns an error where
// such a conversion gives up and the SDK falls back to a non-strict tool:
// a boolean or typeless schema, an open object, a map (an object whose
// additionalProperties is a schema), or a keyword strict mode does not
// support (strictUnsupported).
func ToOpenAIStrict(raw []byte) ([]byte, error) {
	var root any
	if err := json.Unmarshal(raw, &root); err != nil {
		return nil, fmt.Errorf("input schema is not JSON: %w", err)
	}
	out, err := strictSchema(root, "the input", false)
	if err != nil {
		return nil, err
	}
	return json.Marshal(out)
}

// strictUnsupported are the keywords OpenAI's strict mode does not support
// (its structured-outputs guide; the openai SDK's toStrictJsonSchema refuses
// the same list): a schema using one is not converted.
var strictUnsupported = []string{
	"$anchor", "$dynamicAnchor", "$dynamicRef", "$recursiveAnchor", "$recursiveRef",
	"allOf", "contains", "contentEncoding", "contentMediaType", "contentSchema",
	"dependentRequired", "dependentSchemas", "dependencies", "else", "if", "maxContains",
	"maxProperties", "minContains", "minProperties", "not", "oneOf", "patternProperties",
	"prefixItems", "propertyNames", "then", "unevaluatedItems", "unevaluatedProperties", "uniqueItems",
}

func strictSchema(v any, at string, nullable bool) (map[string]any, error) {
	s, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s: cannot convert a boolean schema to strict mode", at)
	}
	for _, k := range strictUnsupported {
		if _, has := s[k]; has {
			return nil, fmt.Errorf("%s: keyword %s is not supported in strict mode", at, k)
		}
	}
	c := make(map[string]any, len(s))
	for k, x := range s {
		c[k] = x
	}
	if branches, ok := s["anyOf"].([]any); ok {
		var out []any
		for i, b := range branches {
			bs, err := strictSchema(b, fmt.Sprintf("%s|%d", at, i), false)
			if err != nil {
				return nil, err
			}
			out = append(out, bs)
		}
		if nullable {
			out = append(out, map[string]any{"type": "null"})
		}
		c["anyOf"] = out
		return c, nil
	}
	t, ok := s["type"].(string)
	if !ok {
		return nil, fmt.Errorf("%s: cannot convert an open JSON schema (no single type) to strict mode", at)
	}
	switch t {
	case "object":
		switch ap := s["additionalProperties"].(type) {
		case bool:
			if ap {
				return nil, fmt.Errorf("%s: cannot convert an open JSON schema object to strict mode", at)
			}
		case nil:
			if _, has := s["additionalProperties"]; !has {
				return nil, fmt.Errorf("%s: cannot convert an open JSON schema object to strict mode", at)
			}
		default:
			return nil, fmt.Errorf("%s: cannot convert a map (additionalProperties with a schema) to strict mode", at)
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
		np := make(map[string]any, len(props))
		all := make([]any, 0, len(keys))
		for _, k := range keys {
			ps, err := strictSchema(props[k], k, !req[k])
			if err != nil {
				return nil, err
			}
			np[k] = ps
			all = append(all, k)
		}
		c["properties"] = np
		c["required"] = all
	case "array":
		if it, ok := s["items"]; ok {
			is, err := strictSchema(it, at+"[]", false)
			if err != nil {
				return nil, err
			}
			c["items"] = is
		}
	}
	if nullable {
		c["type"] = []any{t, "null"}
		if e, ok := c["enum"].([]any); ok {
			c["enum"] = append(append([]any(nil), e...), nil)
		}
	}
	return c, nil
}
