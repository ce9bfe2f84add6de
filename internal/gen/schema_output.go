package gen

// The output schema of a tool: its response message as answers render it.

import (
	"github.com/invopop/jsonschema"
	"google.golang.org/protobuf/compiler/protogen"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/schemadoc"
)

// outputSchema describes a tool's answer: success and the response
// message's fields with their full shape. The envelope keys every tool
// shares (suggestions, warnings, errors, idempotent_replay, proposal,
// valid, preview, ...) are described once, in docs/architecture.md, not in
// every tool of tools/list; the object stays open to them.
func outputSchema(t *toolModel) *jsonschema.Schema {
	success := schemadoc.AnswerEnvelope().Success
	s := &jsonschema.Schema{Type: "object", Properties: jsonschema.NewProperties(), Required: []string{success.Name}}
	s.Properties.Set(success.Name, &jsonschema.Schema{Type: success.Type})
	resp := responseSchema(t.method.Output, outputShape{t.svc.jsonNames, t.svc.zeroFields}, map[protoreflect.FullName]bool{})
	for p := resp.Properties.Oldest(); p != nil; p = p.Next() {
		s.Properties.Set(p.Key, p.Value)
	}
	// An error, a dry run, a preview or a proposal answers without the
	// response's fields: at the top they are required of a written answer
	// only (alwaysPresent), and stated in words.
	for _, name := range resp.Required {
		p, _ := s.Properties.Get(name)
		p.Description = appendSentence(p.Description, "Always present when the call succeeds.")
	}
	if len(resp.Required) > 0 {
		s.AnyOf = alwaysPresent(success.Name, resp.Required, s, t.isRead())
	}
	if t.isRead() {
		if np, ok := s.Properties.Get(pagingName(t.svc.jsonNames, nextPageTokenField)); ok && np.Type == "string" && np.Description == "" {
			np.Description = nextPageTokenDesc(t.svc.jsonNames)
		}
		return s
	}
	if pu := t.previewUnless; pu != nil {
		s.Properties.Set("is_preview", &jsonschema.Schema{Type: "boolean", Description: "True when nothing was written: the answer previews the write; call again with " + pu.agentName + ": true to write."})
	}
	return s
}

// outputShape is how answers are written: protojson names (jsonNames) or
// proto names, and the fields written even at their zero value (zero,
// walk_zero_values.go).
type outputShape struct {
	jsonNames bool
	zero      map[protoreflect.FullName]bool
}

// responseSchema follows protojson for output messages: proto field names,
// or protojson names when jsonNames; a field always written is required.
func responseSchema(m *protogen.Message, o outputShape, seen map[protoreflect.FullName]bool) *jsonschema.Schema {
	s := &jsonschema.Schema{Type: "object", Properties: jsonschema.NewProperties()}
	if seen[m.Desc.FullName()] {
		return s
	}
	seen[m.Desc.FullName()] = true
	defer delete(seen, m.Desc.FullName())
	// protojson writes only the message's fields: a known shape is closed.
	s.AdditionalProperties = jsonschema.FalseSchema
	for _, f := range m.Fields {
		var fs *jsonschema.Schema
		switch {
		case f.Desc.IsMap():
			fs = &jsonschema.Schema{Type: "object", AdditionalProperties: outValue(f.Message.Fields[1], o, seen)}
		case f.Desc.IsList():
			fs = &jsonschema.Schema{Type: "array", Items: outValue(f, o, seen)}
		default:
			fs = outValue(f, o, seen)
		}
		if d := cleanComment(f.Comments.Leading.String()); d != "" {
			fs.Description = d
		}
		name := string(f.Desc.Name())
		if o.jsonNames {
			name = f.Desc.JSONName()
		}
		s.Properties.Set(name, fs)
		if o.zero[f.Desc.FullName()] {
			s.Required = append(s.Required, name)
		}
	}
	return s
}

func outValue(f *protogen.Field, o outputShape, seen map[protoreflect.FullName]bool) *jsonschema.Schema {
	switch {
	case f.Enum != nil:
		return &jsonschema.Schema{Type: "string"}
	case f.Message != nil:
		if s := wktSchema(f.Message.Desc.FullName()); s != nil {
			return s
		}
		if f.Message.Desc.FullName() == "google.protobuf.Any" {
			return anyOutputSchema()
		}
		return responseSchema(f.Message, o, seen)
	}
	return scalarSchema(f.Desc.Kind())
}

// alwaysPresent are the answers a tool gives, as anyOf branches, so that a
// written answer must carry the response fields always written (required):
// an error (success false), a write's dry run or preview (valid) and its
// proposal awaiting confirmation (proposal), or the written answer. Each
// branch is a typed object, as LintOutputSchema requires of every schema,
// and defines by type every property it requires (a response field by its
// type in parent), as validators in strict mode (Ajv's strictRequired)
// require of a branch.
func alwaysPresent(success string, required []string, parent *jsonschema.Schema, read bool) []*jsonschema.Schema {
	branch := func(req ...string) *jsonschema.Schema {
		b := &jsonschema.Schema{Type: "object", Required: req, Properties: jsonschema.NewProperties()}
		for _, name := range req {
			def := &jsonschema.Schema{Type: "object"}
			if p, ok := parent.Properties.Get(name); ok && p.Type != "" {
				def = &jsonschema.Schema{Type: p.Type}
			} else if ok {
				def = p // untyped (a JSON value): its own anyOf types it
			}
			b.Properties.Set(name, def)
		}
		return b
	}
	failed := branch(success)
	failed.Properties.Set(success, &jsonschema.Schema{Type: "boolean", Const: false})
	if read {
		return []*jsonschema.Schema{failed, branch(required...)}
	}
	valid := branch("valid")
	valid.Properties.Set("valid", &jsonschema.Schema{Type: "boolean"})
	return []*jsonschema.Schema{failed, valid, branch("proposal"), branch(required...)}
}
