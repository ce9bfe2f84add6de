package gen

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/schemadoc"
)

// document builds the getWriteSchema document of a file: a plain function
// of the resolved model.
func document(fm *fileModel) schemadoc.Document {
	doc := schemadoc.Document{Source: fm.proto.Desc.Path()}
	for _, sm := range fm.services {
		sd := schemadoc.Service{
			Name:         string(sm.proto.Desc.FullName()),
			ValidateTool: sm.validateTool,
			SchemaTool:   sm.schemaTool,
			ApplyTool:    sm.applyTool,
			DiscardTool:  sm.discardTool,
		}
		sd.OperationsTool = sm.operationsTool
		sd.FieldNaming = sm.fieldNaming()
		sd.ZeroValues = sm.emitZeroValues
		sd.EnumOutput = serviceEnumOutput(sm)
		sd.ZeroValueFields = sm.zeroFieldNames()
		for _, t := range sm.tools {
			sd.Tools = append(sd.Tools, toolDoc(t))
		}
		for _, d := range sm.discovery {
			dd := schemadoc.Discovery{Tool: d.tool, Enum: string(d.table.enum.Desc.FullName()), Description: d.desc}
			if d.groupBy != nil {
				dd.GroupBy = string(d.groupBy.Desc.FullName())
			}
			if d.pairs != nil {
				dd.PairsOf = string(d.pairs.ends.enum.Desc.FullName())
			}
			for _, v := range d.table.values {
				dv := schemadoc.DiscoveryValue{Value: v.alias, Description: v.desc}
				if d.groupBy != nil {
					if g := impliedIn(v.value, d.groupBy); g != nil {
						dv.Group = groupAlias(g)
					}
				}
				if d.pairs != nil {
					dv.ValidPairs = d.pairs.docPairs(v.value)
				}
				dd.Values = append(dd.Values, dv)
			}
			sd.Discovery = append(sd.Discovery, dd)
		}
		for _, v := range sm.vocabTools {
			sd.VocabularyTools = append(sd.VocabularyTools, schemadoc.VocabularyTool{Tool: v.tool, Vocabulary: v.vocabulary, Description: v.desc})
		}
		sd.Resources = sm.resources
		doc.Services = append(doc.Services, sd)
	}
	return doc
}

// toolInputDoc is a tool's input schema for the document and the long
// descriptions taken out of it: the one the budget measured when it kept
// it, else built as it is now.
func toolInputDoc(t *toolModel) (json.RawMessage, map[string]string) {
	long := map[string]string{}
	if t.inputSchema == nil {
		// The budget is off or collapsed subtrees: the schema as it is now.
		return mustSchemaJSON(agentDescriptions(inputSchema(t), "input", long)), long
	}
	for k, v := range t.inputLong {
		long[k] = v
	}
	return t.inputSchema, long
}

func toolDoc(t *toolModel) schemadoc.Tool {
	input, long := toolInputDoc(t)
	td := schemadoc.Tool{
		Name:                t.name,
		Method:              string(t.method.Desc.FullName()),
		Title:               t.title,
		Description:         toolDescription(t),
		Kind:                t.kindName(),
		Classification:      t.classificationName(),
		Confirmation:        t.confirmationName(),
		DecidedBy:           t.decidedBy,
		ElicitFallback:      elicitFallback(t),
		ConfirmationMessage: t.confirmationMessage,
		PreviewUnless:       previewUnless(t),
		AgentSummary:        agentSummaryArg(t),
		Hints:               schemadoc.Hints{ReadOnly: t.readOnly, Destructive: t.destructive, Idempotent: t.idempotent, OpenWorld: t.openWorld},
		Result:              t.result,
		NextSteps:           t.nextSteps,
		RetryOnConflict:     t.retry,
		InputSchema:         input,
		OutputSchema:        mustSchemaJSON(agentDescriptions(outputSchema(t), "output", long)),
		RequiredFields:      []string{},
		OptionalFields:      []string{},
		Operation:           operationDoc(t),
	}
	if len(t.textFields) > 0 || t.briefMask {
		// The budget gave optional subtrees as JSON text: get_write_schema
		// gives the complete schema.
		x := newExpansion()
		td.FullInputSchema = mustSchemaJSON(agentDescriptions(inputSchemaIn(t, x), "input", map[string]string{}))
	}
	if len(long) > 0 {
		td.LongDescriptions = long
	}
	var walk func(m *messageModel, prefix, protoPrefix string, seen map[*messageModel]bool)
	walk = func(m *messageModel, prefix, protoPrefix string, seen map[*messageModel]bool) {
		if seen[m] {
			return
		}
		seen[m] = true
		defer delete(seen, m)
		if rs := messageRuleDocs(m); len(rs) > 0 {
			td.Rules = append(td.Rules, schemadoc.FieldRules{Field: strings.TrimSuffix(prefix, "."), ProtoField: strings.TrimSuffix(protoPrefix, "."), FilledBy: "message", Rules: rs})
		}
		for _, f := range m.fields {
			name := prefix + f.agentName
			pname := protoPrefix + string(f.proto.Desc.Name())
			if rs := f.ruleDocs; len(rs) > 0 {
				fr := schemadoc.FieldRules{ProtoField: pname, FilledBy: "server", Rules: rs}
				if f.mode == modeAgent || f.mode == modeEnumAlias {
					fr.Field, fr.FilledBy = name, "agent"
				}
				td.Rules = append(td.Rules, fr)
			}
			if f.exposed() {
				if m.mustSend(f) {
					td.RequiredFields = append(td.RequiredFields, name)
				} else {
					td.OptionalFields = append(td.OptionalFields, name)
				}
				if r := f.resolver; r != nil && r.reference {
					td.References = append(td.References, schemadoc.Reference{Field: name, Kind: r.kind})
				}
				if v := f.vocab; v != nil {
					td.Vocabularies = append(td.Vocabularies, schemadoc.VocabularyField{Field: name, Vocabulary: v.name})
				}
				if rw := f.requiredWhen; rw != nil {
					when := prefix + rw.when.agentName
					var equals []any
					for _, v := range rw.values {
						equals = append(equals, v.json)
					}
					td.RequiredWhen = append(td.RequiredWhen, schemadoc.RequiredWhen{Field: name, When: when, Equals: equals, Rule: requiredWhenRule(name, when, rw.values)})
				}
			}
			if f.mode == modeDerived || f.mode == modeGenerated {
				fill := schemadoc.ServerFill{Field: pname}
				if t.svc.jsonNames && name != pname {
					fill = schemadoc.ServerFill{Field: name, ProtoField: pname}
				}
				fill.Source, fill.How, fill.Overridable = fillSource(f), fillHow(f), f.overridable
				td.ServerFills = append(td.ServerFills, fill)
			}
			if f.child != nil {
				sub := name
				if f.proto.Desc.IsList() {
					sub += "[]"
				}
				if f.proto.Desc.IsMap() {
					sub += "{}"
				}
				walk(f.child, sub+".", pname+".", seen)
			}
		}
	}
	walk(t.input, "", "", map[*messageModel]bool{})
	td.Examples = examples(t)
	return td
}

// toolDescription adds a destructive classification, the confirmation and
// the validate-first tip to a write, and says that a read changes nothing.
// A safe classification is left to _meta and get_write_schema: the
// description says only what should make an agent careful.
func toolDescription(t *toolModel) string {
	d := strings.TrimSpace(t.description)
	if !strings.HasSuffix(d, ".") {
		d += "."
	}
	d += operationSentence(t)
	if t.isRead() {
		return d + " Read-only: changes nothing."
	}
	if t.destructiveClass() {
		d += " Classification: " + t.classificationName() + "."
	}
	switch t.confirmationName() {
	case "PROPOSAL":
		d += " Returns a proposal; nothing is written until it is applied by " + t.svc.control().proposalID + "."
	case "ELICIT":
		d += " Asks the user to confirm before writing."
	}
	if t.svc.validateTool != "" {
		d += " TIP: Call " + t.svc.validateTool + " first to check for errors before committing."
	}
	return d
}

// marshalDoc sets each service's SchemaVersion (schemadoc.Version) and
// renders the document, indented and byte-stable. Each service is encoded
// once, without its version: the version hashes those bytes as
// json.Marshal writes them (HTML-escaped), and the document is the same
// bytes with the version after the name, the field that precedes it.
func marshalDoc(doc *schemadoc.Document) []byte {
	compact := []byte(`{"source":`)
	compact = append(compact, mustJSON(doc.Source)...)
	compact = append(compact, `,"services":[`...)
	for i := range doc.Services {
		if i > 0 {
			compact = append(compact, ',')
		}
		compact = appendVersioned(compact, &doc.Services[i])
	}
	compact = append(compact, "]}"...)
	return append(indentCompactJSONCap(compact, 1), '\n')
}

// appendVersioned sets s's SchemaVersion and appends s's compact JSON, as
// mustJSON writes it, to dst.
func appendVersioned(dst []byte, s *schemadoc.Service) []byte {
	s.SchemaVersion = ""
	raw := mustJSON(*s)
	// json.Marshal differs from mustJSON only in escaping <, > and & in
	// strings, which JSON has nowhere else.
	var escaped bytes.Buffer
	json.HTMLEscape(&escaped, raw)
	s.SchemaVersion = schemadoc.VersionOf(escaped.Bytes())
	head := append([]byte(`{"name":`), mustJSON(s.Name)...)
	if !bytes.HasPrefix(raw, head) || len(raw) == len(head) || raw[len(head)] != ',' {
		panic("gen: a service entry does not start with its name") // schemadoc.Service's first field
	}
	dst = append(dst, head...)
	dst = append(dst, `,"schema_version":`...)
	dst = append(dst, mustJSON(s.SchemaVersion)...)
	return append(dst, raw[len(head):]...)
}

// indentCompactJSON is json.Indent(src, "", "  ") for compact JSON, the
// form the encoder writes, without json.Indent's per-byte state machine:
// outside strings only the punctuation needs handling. Any whitespace
// outside a string (src is not compact) goes to json.Indent instead.
func indentCompactJSON(src []byte) []byte { return indentCompactJSONCap(src, 0) }

// indentCompactJSONCap is indentCompactJSON into a slice with room for
// extra more bytes: its exact size is counted first, so the document is
// written once into one allocation instead of growing (and copying) it.
func indentCompactJSONCap(src []byte, extra int) []byte {
	n := indentedSize(src)
	if n < 0 {
		return slowIndentJSON(src)
	}
	dst := make([]byte, 0, n+extra)
	depth := 0
	for i := 0; i < len(src); i++ {
		switch c := src[i]; c {
		case '"':
			j := stringEnd(src, i)
			dst = append(dst, src[i:j+1]...)
			i = j
		case '{', '[':
			dst = append(dst, c)
			if i+1 < len(src) && (src[i+1] == '}' || src[i+1] == ']') {
				dst = append(dst, src[i+1])
				i++
				continue
			}
			depth++
			dst = indentNewline(dst, depth)
		case '}', ']':
			depth--
			dst = append(indentNewline(dst, depth), c)
		case ',':
			dst = indentNewline(append(dst, c), depth)
		case ':':
			dst = append(dst, c, ' ')
		default:
			dst = append(dst, c)
		}
	}
	return dst
}

// indentedSize is the length of indentCompactJSON(src), or -1 when src is
// not compact (whitespace outside a string) or ends inside a string.
func indentedSize(src []byte) int {
	n, depth := len(src), 0
	for i := 0; i < len(src); i++ {
		switch src[i] {
		case '"':
			j := stringEnd(src, i)
			if j >= len(src) {
				return -1
			}
			i = j
		case '{', '[':
			if i+1 < len(src) && (src[i+1] == '}' || src[i+1] == ']') {
				i++
				continue
			}
			depth++
			n += 1 + 2*depth
		case '}', ']':
			depth--
			n += 1 + 2*max(depth, 0)
		case ',':
			n += 1 + 2*depth
		case ':':
			n++
		case ' ', '\t', '\n', '\r':
			return -1
		}
	}
	return n
}

// stringEnd is the index of the quote closing the JSON string that opens
// at src[i], or len(src) or more when it is not closed.
func stringEnd(src []byte, i int) int {
	j := i + 1
	for j < len(src) && src[j] != '"' {
		if src[j] == '\\' {
			j++
		}
		j++
	}
	return j
}

// indentNewline appends a newline and depth levels of indentation.
func indentNewline(dst []byte, depth int) []byte {
	dst = append(dst, '\n')
	for i := 0; i < depth; i++ {
		dst = append(dst, ' ', ' ')
	}
	return dst
}

func slowIndentJSON(src []byte) []byte {
	var buf bytes.Buffer
	_ = json.Indent(&buf, src, "", "  ")
	return buf.Bytes()
}

// elicitFallback is the document's elicit_fallback: "REFUSE", or "" for the
// default (a proposal), which the document leaves out.
func elicitFallback(t *toolModel) string {
	if t.refusesUnconfirmed() {
		return "REFUSE"
	}
	return ""
}

// previewUnless is the document's preview_unless: the proto and the agent
// name of the field that must be true to write, or nil.
func previewUnless(t *toolModel) *schemadoc.PreviewUnless {
	if t.previewUnless == nil {
		return nil
	}
	return &schemadoc.PreviewUnless{Field: string(t.previewUnless.proto.Desc.Name()), Argument: t.previewUnless.agentName}
}
