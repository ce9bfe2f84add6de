package gen

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

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

// portableName reports whether s matches portableNameExp: 1 to 64 ASCII
// letters, digits, _ and -.
func portableName(s string) bool {
	if len(s) == 0 || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// forbidden keywords are outside the portable subset.
var forbidden = []string{"$ref", "$defs", "definitions", "anyOf", "oneOf", "allOf", "not", "if", "then", "else", "patternProperties", "dependentSchemas", "dependencies"}

// LintSchema checks one input schema against the portable profile and
// returns one message per problem, in a stable order.
func LintSchema(tool string, raw []byte) []string {
	root, err := unmarshalAny(raw)
	if err != nil {
		return []string{fmt.Sprintf("tool %s: input schema is not JSON: %v", tool, err)}
	}
	var out []string
	props := 0
	// path is the dotted prefix of v's children ("customer.billing."); at
	// names v itself in messages.
	var walk func(v any, path string, depth int)
	walk = func(v any, path string, depth int) {
		at := strings.TrimSuffix(path, ".")
		if at == "" {
			at = "the input"
		}
		s, ok := v.(map[string]any)
		if !ok {
			out = append(out, fmt.Sprintf("tool %s: %s is a boolean schema; MCP clients refuse property schemas that are not objects", tool, at))
			return
		}
		if _, typed := s["type"]; !typed {
			if _, alt := s["anyOf"]; !alt {
				out = append(out, fmt.Sprintf("tool %s: %s has no type; OpenAI strict mode refuses typeless values", tool, at))
			}
		}
		anyBranches := anyObjectBranches(s)
		for _, b := range anyBranches {
			walk(b, path, depth)
		}
		for _, k := range forbidden {
			if k == "anyOf" && anyBranches != nil {
				continue // the candidates of a google.protobuf.Any
			}
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
				if !portableName(k) && (k != anyTypeKey || path == "" || !isAnyObject(s)) {
					out = append(out, fmt.Sprintf("tool %s: property %s%s does not match %s", tool, path, k, portableNameExp))
				}
				walk(p[k], path+k+".", depth+1)
			}
		}
		if it, has := s["items"]; has {
			walk(it, strings.TrimSuffix(path, ".")+"[].", depth)
		}
	}
	if m, ok := root.(map[string]any); !ok || m["type"] != "object" {
		out = append(out, fmt.Sprintf("tool %s: the input schema must be type object", tool))
	}
	walk(root, "", 1)
	if props > maxToolProps {
		out = append(out, fmt.Sprintf("tool %s: %d properties in all (portable limit %d)", tool, props, maxToolProps))
	}
	if !portableName(tool) {
		out = append(out, fmt.Sprintf("tool %s: the name does not match %s; name the tool with letters, digits, _ and - only, e.g. option (mcpwrite.v1.tool) = {name: %q}", tool, portableNameExp, acceptedName(tool)))
	}
	return out
}

// LintOutputSchema checks an output schema against what MCP clients
// validate: type object at the top, and every property, item and branch
// schema an object with a type (or typed anyOf branches), never a boolean
// schema. Open objects and anyOf are fine in output schemas.
func LintOutputSchema(tool string, raw []byte) []string {
	root, err := unmarshalAny(raw)
	if err != nil {
		return []string{fmt.Sprintf("tool %s: output schema is not JSON: %v", tool, err)}
	}
	var out []string
	var walk func(v any, at string)
	walk = func(v any, at string) {
		s, ok := v.(map[string]any)
		if !ok {
			out = append(out, fmt.Sprintf("tool %s: output %s is a boolean schema; MCP clients refuse property schemas that are not objects", tool, at))
			return
		}
		branches, alt := s["anyOf"].([]any)
		if _, typed := s["type"]; !typed && !alt {
			out = append(out, fmt.Sprintf("tool %s: output %s has no type", tool, at))
		}
		for i, b := range branches {
			walk(b, fmt.Sprintf("%s|%d", at, i))
		}
		if p, ok := s["properties"].(map[string]any); ok {
			keys := make([]string, 0, len(p))
			for k := range p {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				walk(p[k], strings.TrimPrefix(at+"."+k, "the output."))
			}
		}
		if ap, ok := s["additionalProperties"]; ok && ap != false && ap != true {
			walk(ap, at+"{}")
		}
		if it, ok := s["items"]; ok {
			walk(it, at+"[]")
		}
	}
	if m, ok := root.(map[string]any); !ok || m["type"] != "object" {
		out = append(out, fmt.Sprintf("tool %s: the output schema must be type object", tool))
	}
	walk(root, "the output")
	return out
}

// lintDocument lints every tool of a document, input and output schemas;
// each warning starts with the position of the tool's method in fm.
func lintDocument(doc schemadoc.Document, fm *fileModel) []string {
	at := map[string]string{}
	for _, s := range fm.services {
		for _, t := range s.tools {
			at[t.name] = where(t.method.Desc)
		}
	}
	var out []string
	for _, s := range doc.Services {
		for _, t := range s.Tools {
			ws := LintSchema(t.Name, t.InputSchema)
			if len(t.OutputSchema) > 0 {
				ws = append(ws, LintOutputSchema(t.Name, t.OutputSchema)...)
			}
			for _, w := range ws {
				if a := at[t.Name]; a != "" {
					w = a + ": " + w
				}
				out = append(out, w)
			}
		}
	}
	return out
}

// anyTypeKey is the key protojson gives an Any's type URL. Hosts check the
// names of a tool's top-level properties (Anthropic's API refuses a key
// outside ^[a-zA-Z0-9_.-]{1,64}$); "@type" is only ever nested, in the
// object of an Any field.
const anyTypeKey = "@type"

// isAnyObject reports the object schema of one google.protobuf.Any
// candidate: closed, "@type" required and a one-value string enum.
func isAnyObject(s map[string]any) bool {
	p, _ := s["properties"].(map[string]any)
	t, _ := p[anyTypeKey].(map[string]any)
	e, _ := t["enum"].([]any)
	req, _ := s["required"].([]any)
	return s["type"] == "object" && s["additionalProperties"] == false && t["type"] == "string" && len(e) == 1 &&
		len(req) > 0 && req[0] == anyTypeKey
}

// anyObjectBranches are the branches of s when s is the anyOf of an Any
// field's candidates (every branch an Any object), nil otherwise.
func anyObjectBranches(s map[string]any) []any {
	branches, ok := s["anyOf"].([]any)
	if !ok || len(branches) < 2 {
		return nil
	}
	for _, b := range branches {
		if bs, ok := b.(map[string]any); !ok || !isAnyObject(bs) {
			return nil
		}
	}
	return branches
}

// unmarshalAny is json.Unmarshal(raw, &v) into an any: the same values
// (map[string]any, []any, string, float64, bool, nil; the last of a
// duplicate key wins), read without reflection. The lints read every
// generated schema back, so this is on the plugin's path once per schema.
// A string with an escape or invalid UTF-8, and any input that is not
// JSON, are left to encoding/json, so such values and every error are
// exactly its own.
func unmarshalAny(raw []byte) (any, error) {
	r := anyReader{b: raw}
	r.space()
	v, ok := r.value()
	if ok {
		r.space()
		ok = r.i == len(r.b)
	}
	if !ok {
		var v any
		err := json.Unmarshal(raw, &v)
		return v, err
	}
	return v, nil
}

// anyReader reads one JSON value from b at i; ok false means "not the
// simple JSON this reader takes", never a verdict on the input.
type anyReader struct {
	b []byte
	i int
}

func (r *anyReader) space() {
	for r.i < len(r.b) {
		switch r.b[r.i] {
		case ' ', '\t', '\n', '\r':
			r.i++
		default:
			return
		}
	}
}

func (r *anyReader) value() (any, bool) {
	if r.i >= len(r.b) {
		return nil, false
	}
	switch c := r.b[r.i]; {
	case c == '{':
		return r.object()
	case c == '[':
		return r.array()
	case c == '"':
		return r.str()
	case c == 't':
		return true, r.word("true")
	case c == 'f':
		return false, r.word("false")
	case c == 'n':
		return nil, r.word("null")
	case c == '-' || c >= '0' && c <= '9':
		return r.number()
	}
	return nil, false
}

func (r *anyReader) word(w string) bool {
	if len(r.b)-r.i < len(w) || string(r.b[r.i:r.i+len(w)]) != w {
		return false
	}
	r.i += len(w)
	return true
}

func (r *anyReader) object() (any, bool) {
	r.i++ // {
	m := map[string]any{}
	r.space()
	if r.i < len(r.b) && r.b[r.i] == '}' {
		r.i++
		return m, true
	}
	for {
		r.space()
		if r.i >= len(r.b) || r.b[r.i] != '"' {
			return nil, false
		}
		k, ok := r.str()
		if !ok {
			return nil, false
		}
		r.space()
		if r.i >= len(r.b) || r.b[r.i] != ':' {
			return nil, false
		}
		r.i++
		r.space()
		v, ok := r.value()
		if !ok {
			return nil, false
		}
		m[k.(string)] = v
		if done, ok := r.after('}'); !ok || done {
			return m, ok
		}
	}
}

// after reads what follows a member or element: a comma (more to come) or
// the closing byte (done), past any space; anything else is not ok.
func (r *anyReader) after(closing byte) (done, ok bool) {
	r.space()
	if r.i >= len(r.b) {
		return false, false
	}
	switch r.b[r.i] {
	case ',':
		r.i++
		return false, true
	case closing:
		r.i++
		return true, true
	}
	return false, false
}

func (r *anyReader) array() (any, bool) {
	r.i++ // [
	a := []any{}
	r.space()
	if r.i < len(r.b) && r.b[r.i] == ']' {
		r.i++
		return a, true
	}
	for {
		r.space()
		v, ok := r.value()
		if !ok {
			return nil, false
		}
		a = append(a, v)
		if done, ok := r.after(']'); !ok || done {
			return a, ok
		}
	}
}

// str reads a string without escapes or control characters, in valid
// UTF-8: the strings the schema writer produces but for escaped ones.
func (r *anyReader) str() (any, bool) {
	start := r.i + 1
	for j := start; j < len(r.b); j++ {
		switch c := r.b[j]; {
		case c == '"':
			s := r.b[start:j]
			if !utf8.Valid(s) {
				return nil, false
			}
			r.i = j + 1
			return string(s), true
		case c == '\\' || c < 0x20:
			return nil, false
		}
	}
	return nil, false
}

// number reads a JSON number (its grammar checked) as encoding/json does:
// strconv.ParseFloat of its text.
func (r *anyReader) number() (any, bool) {
	b, j := r.b, r.i
	if b[j] == '-' {
		j++
	}
	digits := func() int {
		n := 0
		for j < len(b) && b[j] >= '0' && b[j] <= '9' {
			j++
			n++
		}
		return n
	}
	switch {
	case j < len(b) && b[j] == '0':
		j++
	case digits() == 0:
		return nil, false
	}
	if j < len(b) && b[j] == '.' {
		j++
		if digits() == 0 {
			return nil, false
		}
	}
	if j < len(b) && (b[j] == 'e' || b[j] == 'E') {
		j++
		if j < len(b) && (b[j] == '+' || b[j] == '-') {
			j++
		}
		if digits() == 0 {
			return nil, false
		}
	}
	f, err := strconv.ParseFloat(string(b[r.i:j]), 64)
	if err != nil {
		return nil, false
	}
	r.i = j
	return f, true
}
