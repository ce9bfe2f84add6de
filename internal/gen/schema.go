package gen

import (
	"slices"
	"strconv"
	"strings"

	"github.com/invopop/jsonschema"
	"google.golang.org/protobuf/compiler/protogen"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/schemadoc"
)

// Schemas stay in the portable subset: type object with properties, required
// and additionalProperties false; string-only enums; no $ref, combinators or
// type arrays. 64-bit integers travel as strings, as in protojson.

const (
	clientRequestIDDesc = "Idempotency key you choose: a repeat with the same key and arguments returns the stored result, never a second write (kept 24 h)."
	dryRunDesc          = "Preview the complete request; write nothing."
	agentSummaryDesc    = "Optional: the change in your own words, one line for the user who confirms it (e.g. \"Merge the duplicate Ada L. into Ada Lovelace\"). Shown beside the server's summary when the write is proposed for confirmation; it changes nothing that is written."
)

// inputSchema is the agent-facing schema of a tool: a write also takes the
// control arguments client_request_id and dry_run, named as the service
// names its fields (model_control_args.go); a read's paging fields are described.
func inputSchema(t *toolModel) *jsonschema.Schema {
	x := newExpansion()
	x.text, x.briefMask = t.textFields, t.briefMask
	return inputSchemaIn(t, x)
}

// inputSchemaIn is inputSchema written with expansion x.
func inputSchemaIn(t *toolModel, x *expansion) *jsonschema.Schema {
	if t.input.recursive {
		leave, _, _ := x.enter(nil, t.input)
		defer leave()
	}
	s := objectSchema(t.input, x)
	s.Description = ""
	if t.isRead() {
		describePaging(t, s)
		return s
	}
	names := t.svc.control()
	s.Properties.Set(names.clientRequestID, &jsonschema.Schema{
		Type: "string", MinLength: u64(1), MaxLength: u64(255), Pattern: "^[A-Za-z0-9_-]+$",
		Description: clientRequestIDDesc,
	})
	s.Properties.Set(names.dryRun, &jsonschema.Schema{Type: "boolean", Description: dryRunDesc})
	if a := agentSummaryArg(t); a != "" {
		s.Properties.Set(a, &jsonschema.Schema{
			Type: "string", MinLength: u64(1), MaxLength: u64(schemadoc.AgentSummaryMaxLength),
			Description: agentSummaryDesc,
		})
	}
	return s
}

func objectSchema(m *messageModel, x *expansion) *jsonschema.Schema {
	s := &jsonschema.Schema{Type: "object", Properties: jsonschema.NewProperties(), AdditionalProperties: jsonschema.FalseSchema}
	s.Description = cleanComment(m.proto.Comments.Leading.String())
	for _, f := range m.fields {
		if !f.exposed() {
			continue
		}
		fs := fieldSchema(f, x)
		if m.mask != nil && m.mask.mask == f {
			updateMaskSchema(m.mask, fs, x.briefMask)
		}
		if od := f.proto.Oneof; od != nil && !od.Desc.IsSynthetic() && len(od.Fields) > 1 {
			var names []string
			for _, o := range od.Fields {
				if om := m.fieldFor(o); om != nil {
					names = append(names, om.agentName)
				}
			}
			fs.Description = strings.TrimSpace(fs.Description + " " + oneOfNote(names, m.requiredOneofs[od]))
		}
		for _, mo := range m.msgOneofs {
			if len(mo.agentKeys) > 1 && slices.Contains(mo.agentKeys, f.agentName) {
				fs.Description = strings.TrimSpace(fs.Description + " " + oneOfNote(mo.agentKeys, mo.required))
			}
		}
		s.Properties.Set(f.agentName, fs)
		if m.mustSend(f) {
			s.Required = append(s.Required, f.agentName)
		}
	}
	return s
}

func fieldSchema(f *fieldModel, x *expansion) *jsonschema.Schema {
	defer x.enterPath(f.agentName)()
	var s *jsonschema.Schema
	switch {
	case f.proto.Desc.IsMap():
		// A map is a list of key/value entries: a closed object schema that
		// converts to strict mode, where an open object cannot.
		key := &jsonschema.Schema{Type: "string"}
		switch k := f.proto.Message.Fields[0].Desc.Kind(); {
		case k == protoreflect.BoolKind:
			key.Enum = []any{"true", "false"}
		case isNumeric(k) && isUnsigned(k): // one decimal form per key, as the decoder reads it
			key.Pattern = "^(0|[1-9][0-9]*)$"
		case isNumeric(k):
			key.Pattern = "^(0|-?[1-9][0-9]*)$"
		}
		entry := &jsonschema.Schema{Type: "object", Properties: jsonschema.NewProperties(), Required: []string{"key", "value"}, AdditionalProperties: jsonschema.FalseSchema}
		entry.Properties.Set("key", key)
		entry.Properties.Set("value", valueSchema(f, f.proto.Message.Fields[1], x))
		s = &jsonschema.Schema{Type: "array", Items: entry}
	case f.proto.Desc.IsList():
		leave := x.enterPath("[]")
		s = &jsonschema.Schema{Type: "array", Items: valueSchema(f, f.proto, x)}
		leave()
	default:
		s = valueSchema(f, f.proto, x)
	}
	// A recursive message past the schema's levels is JSON text; its note
	// follows the field's own description.
	var textNote string
	if f.child != nil && s.Type == "string" && !f.proto.Desc.IsList() && !f.proto.Desc.IsMap() {
		textNote = s.Description
	}
	s.Description = f.desc
	if f.proto.Desc.IsMap() {
		s.Description = strings.TrimSpace(s.Description + " Entries of {key, value}, each key at most once.")
	} else if note := anyNote(f); note != "" {
		s.Description = appendSentence(s.Description, note)
	} else if note := jsonTextNote(f.proto); note != "" {
		s.Description = strings.TrimSpace(s.Description + " " + note)
	} else if textNote != "" {
		s.Description = appendSentence(s.Description, textNote)
	}
	if f.overridable {
		s.Description = strings.TrimSpace(s.Description + " Optional: " + fillHow(f) + " when omitted.")
	}
	if f.resolver != nil && f.resolver.reference {
		s.Description = appendSentence(s.Description, referenceNote(f))
	}
	if f.vocab != nil {
		s.Description = appendSentence(s.Description, vocabularyNote(f))
	}
	if f.requiredWhen != nil {
		s.Description = appendSentence(s.Description, requiredWhenNote(f))
	}
	// Length, pattern and range rules apply to each item of a list and each
	// value of a map, as the decoder checks them.
	v := s
	switch {
	case f.proto.Desc.IsMap():
		v, _ = s.Items.Properties.Get("value")
		mapKeySchema(f, s.Items)
	case f.proto.Desc.IsList():
		v = s.Items
	}
	if r := f.value; r != nil {
		if r.minLength != nil {
			v.MinLength = u64(uint64(*r.minLength))
		}
		if r.maxLength != nil {
			v.MaxLength = u64(uint64(*r.maxLength))
		}
		if r.pattern != nil {
			v.Pattern = *r.pattern
		}
		// A bound applies to numbers only: a 64-bit integer is a decimal
		// string, where the description states it and the decoder checks it
		// (a string's minimum is ignored by validators, refused by strict ones).
		if numeric := v.Type == "number" || v.Type == "integer"; numeric && r.minimum != nil {
			v.Minimum = numOf(*r.minimum, f.pv != nil && f.pv.f32)
		}
		if numeric := v.Type == "number" || v.Type == "integer"; numeric && r.maximum != nil {
			v.Maximum = numOf(*r.maximum, f.pv != nil && f.pv.f32)
		}
		itemCounts(f, r, s)
		if r.deflt != nil {
			s.Default = r.deflt.jsonValue
		}
		s.Examples = append(s.Examples, r.examples...)
	}
	if d := f.enumDefault; d != nil {
		s.Default = d.text
	}
	pvSchema(f, s, v)
	overrideSchema(f, s, v)
	if f.mode == modeAgent || f.overridable {
		boolBytesSchema(f, s, v)
	}
	return s
}

// mapKeySchema puts the buf.validate rules of string map keys on the
// entry's key property.
func mapKeySchema(f *fieldModel, entry *jsonschema.Schema) {
	if f.pv == nil || f.mode != modeAgent {
		return
	}
	key, _ := entry.Properties.Get("key")
	if k := f.pv.keys; k.minLen != nil {
		key.MinLength = u64(*k.minLen)
	}
	if k := f.pv.keys; k.maxLen != nil {
		key.MaxLength = u64(*k.maxLen)
	}
	if k := f.pv.keys; k.pattern != "" {
		key.Pattern = k.pattern
	}
}

// pvSchema adds the buf.validate rules without an mcpwrite counterpart: s
// is the field's schema, v the schema of one value (a list's items).
func pvSchema(f *fieldModel, s, v *jsonschema.Schema) {
	pv := f.pv
	if pv == nil {
		return
	}
	if pv.minCount != nil {
		s.MinItems = u64(*pv.minCount)
	}
	if pv.maxCount != nil {
		s.MaxItems = u64(*pv.maxCount)
	}
	if len(pv.enumAllowed) > 0 {
		v.Enum = nil
		for _, n := range pv.enumAllowed {
			for _, av := range f.enumTable.values {
				if int32(av.value.Desc.Number()) == n {
					v.Enum = append(v.Enum, av.alias)
				}
			}
		}
	}
	if f.mode != modeAgent {
		return
	}
	pvKeywords(pv, v)
	if words := pvDescription(f); words != "" {
		s.Description = strings.TrimSpace(s.Description + " " + words)
	}
}

// valueSchema is the schema of one JSON value of field vf (a list element or
// map value when f is repeated or a map).
func valueSchema(f *fieldModel, vf *protogen.Field, x *expansion) *jsonschema.Schema {
	if vf.Enum != nil {
		t := f.enumTable
		var vals []any
		for _, a := range t.aliases() {
			vals = append(vals, a)
		}
		return &jsonschema.Schema{Type: "string", Enum: vals}
	}
	if vf.Message != nil {
		if isAny(vf) {
			return anyInputSchema(f, x)
		}
		if s := wktInputSchema(vf.Message.Desc.FullName()); s != nil {
			return s
		}
		if f.child.recursive {
			return x.childSchema(f, f.child)
		}
		return x.budgetedChild(f)
	}
	if vf.Desc.Kind() == protoreflect.BytesKind {
		return bytesInputSchema()
	}
	return scalarSchema(vf.Desc.Kind())
}

// fillHow says, for people, how the server fills a field.
func fillHow(f *fieldModel) string {
	fl := f.fill
	if fl == nil {
		return "filled by the server"
	}
	switch fl.source {
	case fillGenerated:
		how := map[generatedKind]string{
			genUUIDv4:        "generated UUID v4",
			genUUIDv7:        "generated UUID v7",
			genULID:          "generated ULID",
			genNow:           "the current time",
			genContentHash:   "deterministic id hashed from " + strings.Join(fl.hashFrom, ", "),
			genRequestScoped: requestScopedHow(f),
		}[fl.gen]
		if fl.prefix != nil {
			how += " with prefix " + strconv.Quote(*fl.prefix)
		}
		return how
	case fillFromEnum:
		return "derived from " + fl.fromEnum
	case fillContext:
		return fl.contextHow
	case fillResolver:
		return "resolved by the server (" + fl.resolver + ")"
	case fillConstant:
		return "constant " + fl.constantText
	}
	return "filled by the server"
}

// requestScopedHow says what a REQUEST_SCOPED id derives from: inside an
// item, the item's key or its position.
func requestScopedHow(f *fieldModel) string {
	key := snakeControl.clientRequestID
	if f.msg != nil && f.msg.jsonNames {
		key = camelControl.clientRequestID
	}
	switch {
	case f.msg != nil && f.msg.itemKey != nil:
		k := f.msg.itemKey.agentName
		return "deterministic UUID from tenant, tool and the item's " + k + " (without one, " + key + " and the item's position)"
	case f.msg != nil && f.msg.asItem:
		return "deterministic UUID from tenant, tool, " + key + " and the item's position"
	case f.msg != nil && f.msg.asMapValue:
		return "deterministic UUID from tenant, tool, " + key + " and the entry's key"
	}
	return "deterministic UUID from tenant, tool and " + key
}

// fillSource is the machine-readable source of a server fill.
func fillSource(f *fieldModel) string {
	if f.fill == nil {
		return "server"
	}
	switch f.fill.source {
	case fillGenerated:
		return "generated"
	case fillFromEnum:
		return "from_enum"
	case fillContext:
		return "context"
	case fillResolver:
		return "resolver"
	case fillConstant:
		return "constant"
	}
	return "server"
}

// oneOfNote states a oneof (or a buf.validate message oneof) in words.
func oneOfNote(names []string, required bool) string {
	if required {
		return "Set exactly one of: " + strings.Join(names, ", ") + "."
	}
	return "Set at most one of: " + strings.Join(names, ", ") + "."
}

// describePaging gives a read's undocumented page_size and page_token
// properties their standard descriptions.
func describePaging(t *toolModel, s *jsonschema.Schema) {
	for _, f := range t.input.fields {
		if !f.exposed() || f.desc != "" || f.mode != modeAgent || f.proto.Desc.IsList() || f.proto.Desc.IsMap() {
			continue
		}
		ps, ok := s.Properties.Get(f.agentName)
		if !ok {
			continue
		}
		switch name, k := string(f.proto.Desc.Name()), f.proto.Desc.Kind(); {
		case name == pageSizeField && isNumeric(k):
			ps.Description = pageSizeDesc(f.value)
		case name == pageTokenField && k == protoreflect.StringKind:
			ps.Description = pageTokenDesc(t.svc.jsonNames)
		}
	}
}

// pageSizeDesc is "Maximum results per page, 1-100; default 50." from the
// field's own bounds and default.
func pageSizeDesc(r *valueConstraints) string {
	d := "Maximum results per page"
	n := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	switch {
	case r.minimum != nil && r.maximum != nil:
		d += ", " + n(*r.minimum) + "-" + n(*r.maximum)
	case r.maximum != nil:
		d += ", at most " + n(*r.maximum)
	case r.minimum != nil:
		d += ", at least " + n(*r.minimum)
	}
	if r.deflt != nil {
		d += "; default " + r.defaultText
	}
	return d + "."
}

// childSchema is the schema of the recursive message m reached through f:
// its object while levels remain, JSON text past them.
func (x *expansion) childSchema(f *fieldModel, m *messageModel) *jsonschema.Schema {
	leave, limit, ok := x.enter(f, m)
	if !ok {
		return &jsonschema.Schema{Type: "string", Description: recursiveTextNote(m, limit)}
	}
	defer leave()
	return objectSchema(m, x)
}

// itemCounts states min_items and max_items: minItems and maxItems on a
// list, words on a google.protobuf.ListValue (its position is JSON text).
func itemCounts(f *fieldModel, r *valueConstraints, s *jsonschema.Schema) {
	if r.minItems == nil && r.maxItems == nil {
		return
	}
	if isListValue(f.proto) {
		s.Description = appendSentence(s.Description, itemCountWords(r.minItems, r.maxItems))
		return
	}
	if r.minItems != nil {
		s.MinItems = u64(uint64(*r.minItems))
	}
	if r.maxItems != nil {
		s.MaxItems = u64(uint64(*r.maxItems))
	}
}

// anyInputSchema is how an agent sends the google.protobuf.Any field f: one
// closed object per candidate, "@type" (a one-value enum of its type URL)
// first, then the candidate's own fields; several candidates are anyOf
// branches, each requiring what its own properties define.
func anyInputSchema(f *fieldModel, x *expansion) *jsonschema.Schema {
	var branches []*jsonschema.Schema
	for _, t := range f.anyTypes {
		body := objectSchema(t.model, x)
		s := &jsonschema.Schema{Type: "object", Description: body.Description, Properties: jsonschema.NewProperties(), AdditionalProperties: jsonschema.FalseSchema}
		s.Properties.Set("@type", &jsonschema.Schema{Type: "string", Enum: []any{t.url}})
		for p := body.Properties.Oldest(); p != nil; p = p.Next() {
			s.Properties.Set(p.Key, p.Value)
		}
		s.Required = append([]string{"@type"}, body.Required...)
		branches = append(branches, s)
	}
	if len(branches) == 1 {
		return branches[0]
	}
	return &jsonschema.Schema{AnyOf: branches}
}

// budgetedChild is the schema of the non-recursive message field f: JSON
// text when the tool's schema budget collapsed it, its object otherwise
// (reported to x.seen when the budget may collapse it).
func (x *expansion) budgetedChild(f *fieldModel) *jsonschema.Schema {
	if x.text[f] {
		return &jsonschema.Schema{Type: "string", Description: budgetTextNote(f.child)}
	}
	x.depth++
	s := objectSchema(f.child, x)
	x.depth--
	if x.seen != nil && f.mode == modeAgent && !f.proto.Desc.IsMap() && !f.msg.mustSend(f) {
		x.seen(f, x.at(), x.depth+1, s)
	}
	return s
}
