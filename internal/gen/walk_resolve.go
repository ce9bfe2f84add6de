package gen

import (
	"encoding/json"
	"fmt"
	"strings"

	mcpwritev1 "github.com/mcpwrite/protoc-gen-mcpwrite/annotations/mcpwrite/v1"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/schemadoc"
)

// The last step of the walk: annotation rules, once checked, become the
// typed values of the model (valueConstraints, enumDefault, fillModel, tool
// examples, rule docs). The emitters and the schema builders read these and
// never the annotation messages, so a rule is interpreted once.

// contextKeys are the runtime identifiers of the derived.context keys.
var contextKeys = map[mcpwritev1.Derived_ContextKey]string{
	mcpwritev1.Derived_TENANT_ID:         "ContextTenantID",
	mcpwritev1.Derived_PRINCIPAL_ID:      "ContextPrincipalID",
	mcpwritev1.Derived_CORRELATION_ID:    "ContextCorrelationID",
	mcpwritev1.Derived_CAUSATION_ID:      "ContextCausationID",
	mcpwritev1.Derived_TRACEPARENT:       "ContextTraceParent",
	mcpwritev1.Derived_CLIENT_REQUEST_ID: "ContextClientRequestID",
	mcpwritev1.Derived_SESSION_ID:        "ContextSessionID",
	mcpwritev1.Derived_TOOL_NAME:         "ContextToolName",
}

var generatedKinds = map[mcpwritev1.Generated_Kind]generatedKind{
	mcpwritev1.Generated_UUID_V4:        genUUIDv4,
	mcpwritev1.Generated_UUID_V7:        genUUIDv7,
	mcpwritev1.Generated_ULID:           genULID,
	mcpwritev1.Generated_NOW:            genNow,
	mcpwritev1.Generated_CONTENT_HASH:   genContentHash,
	mcpwritev1.Generated_REQUEST_SCOPED: genRequestScoped,
}

// resolveField fills in the resolved rules of a checked field.
func (b *builder) resolveField(fm *fieldModel) {
	if a := b.ann(fm).agent; a != nil && a.RecursionDepth != nil {
		depth := int(a.GetRecursionDepth())
		fm.recursionDepth = &depth
	}
	if a := b.ann(fm).agent; a != nil && fm.mode == modeAgent {
		v := &valueConstraints{
			minLength: copyOf(a.MinLength), maxLength: copyOf(a.MaxLength), pattern: copyOf(a.Pattern),
			minimum: copyOf(a.Minimum), maximum: copyOf(a.Maximum),
			minItems: copyOf(a.MinItems), maxItems: copyOf(a.MaxItems),
		}
		if a.Default != nil {
			if lit, err := goLiteral(fm, a.GetDefault()); err == nil {
				v.deflt, v.defaultText = &lit, strings.TrimSpace(a.GetDefault())
			}
		}
		for _, ex := range a.GetExamples() {
			var x any
			if json.Unmarshal([]byte(ex), &x) == nil {
				v.examples = append(v.examples, x)
			}
		}
		fm.value = v
		// A field's example is checked as the decoder checks the value.
		if d := fm.proto.Desc; !d.IsList() && !d.IsMap() {
			for i, x := range v.examples {
				for _, p := range exampleItemProblems(fm, x, fm.agentName) {
					b.probs.fieldf(fm.proto, "example %s: %s; correct the example, the server would refuse it", mustJSON(v.examples[i]), p)
				}
			}
		}
	}
	if b.ann(fm).alias != nil && b.ann(fm).alias.Default != nil && fm.enumTable != nil {
		if av, ok := fm.enumTable.lookup(b.ann(fm).alias.GetDefault()); ok {
			fm.enumDefault = &enumDefault{text: b.ann(fm).alias.GetDefault(), value: av.value}
		}
	}
	if g := b.ann(fm).generated; g != nil {
		fm.fill = &fillModel{source: fillGenerated, gen: generatedKinds[g.GetKind()], prefix: copyOf(g.Prefix), hashFrom: g.GetFrom()}
	}
	if d := b.ann(fm).derived; d != nil {
		switch src := d.GetSource().(type) {
		case *mcpwritev1.Derived_FromEnum:
			fm.fill = &fillModel{source: fillFromEnum, fromEnum: src.FromEnum}
		case *mcpwritev1.Derived_Context:
			fm.fill = &fillModel{source: fillContext, contextIdent: contextKeys[src.Context],
				contextHow: schemadoc.ContextFillHow(src.Context.String())}
		case *mcpwritev1.Derived_Resolver:
			fm.fill = &fillModel{source: fillResolver, resolver: src.Resolver}
		case *mcpwritev1.Derived_Constant:
			lit, _ := goLiteral(fm, src.Constant)
			fm.fill = &fillModel{source: fillConstant, constant: lit, constantText: src.Constant}
		}
	}
}

func copyOf[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

// resolveDocs resolves, tool by tool, what getWriteSchema lists beyond the
// model: every request field's buf.validate rules and the tool's examples,
// checked against its input.
func (b *builder) resolveDocs(fm *fileModel) {
	for _, sm := range fm.services {
		for _, t := range sm.tools {
			b.resolveRuleDocs(t.input, map[*messageModel]bool{})
			b.checkRequestRules(t)
			t.examples = b.toolExamples(t)
		}
	}
}

func (b *builder) resolveRuleDocs(m *messageModel, seen map[*messageModel]bool) {
	if seen[m] {
		return
	}
	seen[m] = true
	defer delete(seen, m)
	for _, f := range m.fields {
		f.ruleDocs = b.fieldRuleDocs(f)
		b.checkWholeValueExamples(f)
		b.checkFieldExamplesAsRequests(f)
		if f.child != nil {
			b.resolveRuleDocs(f.child, seen)
		}
	}
}

// checkWholeValueExamples checks the examples of a list or map field, each
// the field's whole value, once the models of its items are complete (a
// singular field's are checked as it is built, resolveField).
func (b *builder) checkWholeValueExamples(f *fieldModel) {
	if d := f.proto.Desc; f.value == nil || !d.IsList() && !d.IsMap() {
		return
	}
	for _, x := range f.value.examples {
		for _, p := range exampleValueProblems(f, x, f.agentName) {
			b.probs.fieldf(f.proto, "example %s: %s; correct the example, the server would refuse it", mustJSON(x), p)
		}
	}
}

// toolExamples are a tool's documented examples; each input must be a JSON
// object of the tool's input fields.
func (b *builder) toolExamples(t *toolModel) []schemadoc.Example {
	var out []schemadoc.Example
	for i, ex := range toolRules(t).GetExamples() {
		var obj map[string]any
		if err := json.Unmarshal([]byte(ex.GetInput()), &obj); err != nil {
			b.probs.methodf(t.method, "example %d: input is not a JSON object; write the tool's arguments as one, e.g. input: %q", i+1, minimalInput(t))
			continue
		}
		for _, k := range sortedKeys(obj) {
			if !hasAgentField(t.input, k) && !refusedKey(t.input, k) && (t.isRead() || !isControlArg(k) && k != agentSummaryArg(t)) {
				b.probs.methodf(t.method, "example %d: %q is not an input field of %s; use its input fields (%s)", i+1, k, t.name, agentNames(t.input))
			}
		}
		desc := ex.GetDescription()
		if desc == "" {
			desc = fmt.Sprintf("Example %d", i+1)
		}
		// The example is checked as the decoder checks an agent's call:
		// agents copy examples, and the server must not refuse one.
		for _, p := range toolExampleProblems(t, obj) {
			b.probs.methodf(t.method, "example %d (%q): %s; correct the example's input, the server would refuse it", i+1, desc, p)
		}
		out = append(out, schemadoc.Example{Description: desc, Input: mustJSON(obj)})
	}
	if len(out) == 0 {
		// The document's minimal example, made from the required fields'
		// examples (examples reads t.examples, not set yet), is checked
		// as a tool example is.
		for _, ex := range examples(t) {
			var obj map[string]any
			_ = json.Unmarshal(ex.Input, &obj)
			for _, p := range toolExampleProblems(t, obj) {
				b.probs.methodf(t.method, "%s %s, made from the required fields' examples: %s; correct those fields' examples or add a tool example, the server would refuse it", strings.ToLower(ex.Description[:1])+ex.Description[1:], ex.Input, p)
			}
		}
	}
	return out
}
