package runtime

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/toolcall"
	"google.golang.org/protobuf/proto"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/impl"
)

// entryJSON renders one error entry with a fixed key order. Suggestions.Extra
// is merged into the suggestions object after the standard keys.
func entryJSON(e *impl.ErrorEntry) object {
	o := object{{"code", e.Code}, {"message", e.Message}}
	if e.Field != "" {
		o = append(o, member{"field", e.Field})
	}
	if len(e.Details) > 0 {
		o = append(o, member{"details", e.Details})
	}
	if e.TraceID != "" {
		o = append(o, member{"trace_id", e.TraceID})
	}
	if s := e.Suggestions; s != nil {
		var so object
		if len(s.DidYouMean) > 0 {
			so = append(so, member{"did_you_mean", s.DidYouMean})
		}
		if len(s.ValidValues) > 0 {
			so = append(so, member{"valid_values", s.ValidValues})
		}
		if s.Hint != "" {
			so = append(so, member{"hint", s.Hint})
		}
		for _, k := range sortedKeys(s.Extra) {
			switch k {
			case "did_you_mean", "valid_values", "hint":
				continue
			}
			so = append(so, member{k, s.Extra[k]})
		}
		if len(so) > 0 {
			o = append(o, member{"suggestions", so})
		}
	}
	return o
}

// entriesJSON renders a list of entries; never null.
func entriesJSON(es impl.Errors) []object {
	out := make([]object, 0, len(es))
	for _, e := range es {
		if e != nil {
			out = append(out, entryJSON(e))
		}
	}
	return out
}

// maxFieldPath bounds a field path in an answer, in bytes: the path of a
// recursive field at the default depth limit (16 levels of
// "sections[12]", 208 bytes) is answered whole, so a refusal at the limit
// names the level it refuses.
const maxFieldPath = 256

// maxErrorMessage bounds an entry's message in an answer, in bytes: a
// domain error quoting a whole input value stays readable and small.
const maxErrorMessage = 1024

// capErrors keeps the first impl.MaxErrorEntries problems, adds an entry that
// counts the rest, and clips long field paths and messages (copying what it
// changes).
func capErrors(es impl.Errors) impl.Errors {
	var kept impl.Errors
	counted := 0 // problems only counted where they were found (Decoder)
	for _, e := range es {
		switch {
		case e == nil:
		case e.Code == impl.CodeTooManyErrors:
			n, _ := e.Details["not_listed"].(int)
			counted += n
		default:
			kept = append(kept, e)
		}
	}
	rest := counted
	if len(kept) > impl.MaxErrorEntries {
		rest += len(kept) - impl.MaxErrorEntries
		kept = kept[:impl.MaxErrorEntries:impl.MaxErrorEntries]
	}
	for i, e := range kept {
		if len(e.Field) > maxFieldPath || len(e.Message) > maxErrorMessage {
			c := cloneEntry(e)
			c.Field = truncateText(e.Field, maxFieldPath)
			c.Message = truncateText(e.Message, maxErrorMessage)
			kept[i] = c
		}
	}
	if rest > 0 {
		e := impl.TooMany(rest)
		e.Details["listed"] = len(kept)
		kept = append(kept, e)
	}
	return kept
}

// warningsJSON renders warnings; never null.
func warningsJSON(ws []impl.Warning) []impl.Warning {
	if ws == nil {
		return []impl.Warning{}
	}
	return ws
}

// errorEnvelope is the failure shape of every tool: the first problem under
// "error" for agents that read one, all of them under "errors".
//
// An answer lists at most impl.MaxErrorEntries problems, then one
// TOO_MANY_ERRORS entry counting the rest, and field paths longer than
// maxFieldPath bytes and messages longer than maxErrorMessage bytes are
// clipped: a hostile request cannot make the answer larger than itself.
func errorEnvelope(es impl.Errors) object {
	all := entriesJSON(capErrors(es))
	var first any = object{{"code", impl.CodeInternal}, {"message", "internal error"}}
	if len(all) > 0 {
		first = all[0]
	}
	return object{{"success", false}, {"error", first}, {"errors", all}}
}

// reservedKeys are the envelope's own top-level keys; a response field with
// one of these names is not copied, so the envelope keeps its meaning.
var reservedKeys = map[string]bool{
	"success": true, "suggestions": true, "warnings": true,
	"idempotent_replay": true, "original_request_time": true,
}

// successEnvelope renders a handler response: success first, then every
// top-level response field as protojson writes it (declaration order), then
// next steps and warnings. A response that is not a JSON object (a wrapper
// type) is put under resultKey.
//
// Enum values are shown by their agent-facing aliases (enums), and a
// response field named warnings (strings, or objects with code and message)
// joins the envelope's warnings instead of being dropped.
func successEnvelope(resp proto.Message, resultKey string, suggestions []string, warnings []impl.Warning, enums map[string]*impl.EnumTable, shape answerShape) (object, error) {
	return successEnvelopeWith(responseFields, resp, resultKey, suggestions, warnings, enums, shape)
}

// successEnvelopeWith is successEnvelope with the response rendered by
// fields.
func successEnvelopeWith(fieldsOf func(proto.Message, map[string]*impl.EnumTable, answerShape) (object, json.RawMessage, error), resp proto.Message, resultKey string, suggestions []string, warnings []impl.Warning, enums map[string]*impl.EnumTable, shape answerShape) (object, error) {
	o := make(object, 1, 8)
	o[0] = member{"success", true}
	if resp != nil {
		fields, raw, err := fieldsOf(resp, enums, shape)
		if err != nil {
			return nil, err
		}
		if fields == nil {
			if resultKey == "" {
				resultKey = "result"
			}
			o = append(o, member{resultKey, raw})
		} else {
			for _, f := range fields {
				if f.Key == "warnings" {
					warnings = append(warnings, domainWarnings(f.Val)...)
				}
				if !reservedKeys[f.Key] {
					o = append(o, f)
				}
			}
		}
	}
	if suggestions == nil {
		suggestions = []string{}
	}
	o = append(o, member{"suggestions", suggestions}, member{"warnings", warningsJSON(warnings)})
	return o, nil
}

// responseFields renders a response as the envelope's members, each
// top-level field written out as its member with enum values aliased. A
// response that is not a JSON object (a wrapper type) comes back whole, as
// raw, with nil fields. The encoder writes it in one pass; what it leaves
// to protojson (respond_encode.go) takes responseFieldsProtojson.
func responseFields(resp proto.Message, enums map[string]*impl.EnumTable, shape answerShape) (object, json.RawMessage, error) {
	fields, err := encodeResponseFields(resp, enums, shape)
	if err == nil {
		return fields, nil, nil
	}
	return responseFieldsProtojson(resp, enums, shape)
}

// responseFieldsProtojson is responseFields through protojson: rendered
// once, parsed once, enum values aliased in the tree, and each top-level
// field written out as its member.
func responseFieldsProtojson(resp proto.Message, enums map[string]*impl.EnumTable, shape answerShape) (object, json.RawMessage, error) {
	b, err := shape.protojson().Marshal(resp)
	if err != nil {
		return nil, nil, err
	}
	obj, errs := impl.Parse(b, ownOutputLimits(b))
	if len(errs) > 0 || obj == nil {
		raw, err := compactJSON(b)
		return nil, raw, err
	}
	shape.prune(obj, resp.ProtoReflect())
	if len(enums) > 0 {
		aliasObject(obj, resp.ProtoReflect().Descriptor(), enums)
	}
	fields := make(object, 0, len(obj.Keys))
	var buf bytes.Buffer
	for i, k := range obj.Keys {
		start := buf.Len()
		writeValue(&buf, obj.Vals[i])
		fields = append(fields, member{k, json.RawMessage(buf.Bytes()[start:buf.Len():buf.Len()])})
	}
	return fields, nil, nil
}

// toolResult wraps an envelope as a CallToolResult whose structured content
// and text content are the same JSON, so clients that read either see one
// answer.
//
// The text content and the structured content are body's bytes, shared
// (the structured content already is body), not a copy: nothing writes
// body once it is an answer.
func toolResult(body []byte, isError bool) *toolcall.Result {
	return &toolcall.Result{
		Content:           []string{unsafe.String(unsafe.SliceData(body), len(body))},
		StructuredContent: json.RawMessage(body),
		IsError:           isError,
	}
}

// lowerFirst turns "Create a relationship." into "create a relationship".
func lowerFirst(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexAny(s, ".\n"); i >= 0 {
		s = s[:i]
	}
	if s == "" {
		return s
	}
	if !utf8.ValidString(s) {
		// Through runes, so invalid bytes read as U+FFFD.
		r := []rune(s)
		if len(r) > 1 && isUpper(r[1]) {
			return s
		}
		if isUpper(r[0]) {
			r[0] += 'a' - 'A'
		}
		return string(r)
	}
	r0, n := utf8.DecodeRuneInString(s)
	if n < len(s) {
		if r1, _ := utf8.DecodeRuneInString(s[n:]); isUpper(r1) {
			return s // an acronym: keep "MCP ..."
		}
	}
	if isUpper(r0) {
		return string(r0+'a'-'A') + s[n:]
	}
	return s
}

func isUpper(r rune) bool { return r >= 'A' && r <= 'Z' }

// humanize turns "purchase_order" into "Purchase order".
func humanize(s string) string {
	s = strings.ReplaceAll(s, "_", " ")
	if s == "" {
		return s
	}
	r := []rune(s)
	if r[0] >= 'a' && r[0] <= 'z' {
		r[0] -= 'a' - 'A'
	}
	return string(r)
}

// domainWarnings reads a response's own warnings field: a list of strings or
// of objects shaped like Warning.
func domainWarnings(v any) []impl.Warning {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	var texts []string
	if json.Unmarshal(raw, &texts) == nil {
		out := make([]impl.Warning, 0, len(texts))
		for _, t := range texts {
			out = append(out, impl.Warning{Code: "DOMAIN_WARNING", Message: t})
		}
		return out
	}
	var ws []impl.Warning
	if json.Unmarshal(raw, &ws) == nil {
		for i := range ws {
			if ws[i].Code == "" {
				ws[i].Code = "DOMAIN_WARNING"
			}
		}
		return ws
	}
	return nil
}
