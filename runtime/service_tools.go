package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/toolcall"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/impl"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/schemadoc"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/suggest"
)

// serviceToolSpecs builds the validate, schema, discovery, apply and discard
// tools the document names.
func (st serviceTools) serviceToolSpecs() []toolSpec {
	var specs []toolSpec
	readOnly := schemadoc.Hints{ReadOnly: true, Idempotent: true}
	if n := st.r.svc.ValidateTool; n != "" {
		specs = append(specs, toolSpec{&toolcall.Tool{
			Name:  n,
			Title: "Validate a write",
			Description: "Validate a write operation without committing it (dry run): returns errors with suggestions, " +
				"warnings and a preview of the complete request the server would send. Call this BEFORE write operations.",
			InputSchema: schemaJSON(objectSchema(
				props{
					{"operation", st.operationSchema("The write tool to validate", st.r.writes)},
					{"payload", stringSchema(`The arguments that would be sent to the write tool, as JSON text of an object, e.g. "{\"name\":\"OrderService\"}"`)},
				}, "operation", "payload")),
			OutputSchema: resultSchemaJSON(validateOutputSchema()),
			Annotations:  annotations("Validate a write", readOnly),
		}, st.validateHandler})
	}
	if n := st.r.svc.SchemaTool; n != "" {
		what, opDesc := "a write operation", "The write tool to describe"
		if len(st.r.writes) < len(st.r.order) {
			what, opDesc = "a write or read operation", "The write or read tool to describe"
		}
		desc := "Get the JSON schema of " + what + " with examples, required and optional fields, " +
			"and the fields the server fills itself."
		if st.r.cfg.compact {
			desc += " tools/list shows tools compactly: call this before a tool's first call, again when the schema_hash in tools/list's _meta changes."
		}
		specs = append(specs, toolSpec{&toolcall.Tool{
			Name:         n,
			Title:        "Get a write schema",
			Description:  desc,
			InputSchema:  schemaJSON(objectSchema(props{{"operation", st.operationSchema(opDesc, st.r.order)}}, "operation")),
			OutputSchema: resultSchemaJSON(schemaOutputSchema()),
			Annotations:  annotations("Get a write schema", readOnly),
		}, st.schemaHandler})
	}
	for i := range st.r.svc.Discovery {
		d := &st.r.svc.Discovery[i]
		var in props
		groups := discoveryGroups(d)
		if d.GroupBy != "" {
			in = props{{"group", enumSchema("Only list values of this group", groups)}}
		}
		if ends := pairEnds(d); len(ends) > 0 {
			in = append(in,
				prop{"source_type", enumSchema("Only list values that may start at this type", ends)},
				prop{"target_type", enumSchema("Only list values that may end at this type", ends)})
		}
		specs = append(specs, toolSpec{&toolcall.Tool{
			Name:         d.Tool,
			Description:  d.Description,
			InputSchema:  schemaJSON(objectSchema(in)),
			OutputSchema: resultSchemaJSON(discoveryOutputSchema(d.GroupBy != "", d.PairsOf != "")),
			Annotations:  annotations("", readOnly),
		}, st.discoveryHandler(d, groups)})
	}
	specs = append(specs, st.vocabularyToolSpecs()...)
	if n := st.r.svc.ApplyTool; n != "" {
		var h schemadoc.Hints
		for _, name := range st.r.order {
			dh := st.r.tools[name].doc.Hints
			h.Destructive = h.Destructive || dh.Destructive
			h.OpenWorld = h.OpenWorld || dh.OpenWorld
		}
		h.Idempotent = true // a second apply replays the first result
		specs = append(specs, toolSpec{&toolcall.Tool{
			Name:  n,
			Title: "Apply a proposal",
			Description: "Commit a proposed write by its " + st.r.ans.control().proposalID + ", after the user confirmed it. " +
				"Only the caller who made the proposal can apply it, once, before it expires.",
			InputSchema:  schemaJSON(st.r.ans.proposalIDSchema()),
			OutputSchema: resultSchemaJSON(proposalResultSchema()),
			Annotations:  annotations("Apply a proposal", h),
		}, st.applyHandler})
	}
	if n := st.r.svc.DiscardTool; n != "" {
		specs = append(specs, toolSpec{&toolcall.Tool{
			Name:         n,
			Title:        "Discard a proposal",
			Description:  "Discard a proposed write the user rejected; it can no longer be applied.",
			InputSchema:  schemaJSON(st.r.ans.proposalIDSchema()),
			OutputSchema: resultSchemaJSON(discardResultSchema()),
			Annotations:  annotations("Discard a proposal", schemadoc.Hints{Idempotent: true}),
		}, st.discardHandler})
	}
	return specs
}

// operation resolves the tool an operation argument names, one of names
// (the write tools for validate, every tool for the schema tool).
func (st serviceTools) operation(op string, names []string) (*boundTool, *impl.ErrorEntry) {
	if wt, ok := st.r.tools[op]; ok && contains(names, op) {
		return wt, nil
	} else if ok && wt.read {
		return nil, st.notAWrite(op)
	}
	dym := suggest.Closest(op, names, 3)
	if full := st.r.cfg.toolName(op); full != op && contains(names, full) {
		// The generated name without the registration's prefix or suffix.
		dym = []string{full}
	}
	return nil, &impl.ErrorEntry{
		Code: impl.CodeUnknownOperation, Field: "operation",
		Message: fmt.Sprintf("unknown operation %q", op),
		Suggestions: &impl.Suggestions{
			DidYouMean:  dym,
			ValidValues: append([]string{}, names...),
		},
	}
}

// notAWrite answers validate_write asked about a read tool: there is
// nothing to validate before calling it, since it changes nothing.
func (st serviceTools) notAWrite(tool string) *impl.ErrorEntry {
	return &impl.ErrorEntry{
		Code: impl.CodeUnknownOperation, Field: "operation",
		Message: fmt.Sprintf("%s is a read tool: %s checks writes only; call %s directly, it changes nothing", tool, st.r.svc.ValidateTool, tool),
		Details: map[string]any{"operation": tool, "kind": kindRead},
		Suggestions: &impl.Suggestions{
			ValidValues: append([]string{}, st.r.writes...),
			Hint:        fmt.Sprintf("Call %s itself; use %s only before a write.", tool, st.r.svc.ValidateTool),
		},
	}
}

// validateHandler is validate_write: the write tool's decode, validate and
// enrich steps with DryRun set; no idempotency, governance or handler.
func (st serviceTools) validateHandler(ctx context.Context, req *toolcall.Request) (*toolcall.Result, error) {
	name := st.r.svc.ValidateTool
	vals, es := st.r.readArgs(arguments(req), argSpec{name: "operation", kind: impl.KindString, required: true}, argSpec{name: "payload", kind: impl.KindObject, required: true, text: true})
	if len(es) > 0 {
		return st.r.ans.errorResult(ctx, name, nil, es), nil
	}
	wt, e := st.operation(vals["operation"].Str, st.r.writes)
	if e != nil {
		return st.r.ans.errorResult(ctx, name, nil, impl.Errors{e}), nil
	}
	payload := vals["payload"].Obj
	if payload == nil {
		payload = &impl.Object{}
	}
	c := &call{r: st.r, wt: wt, ctx: ctx, req: req}
	c.begin(payload, nil) // a parsed payload: no errors
	ctx = c.ctx
	c.ctl.dryRun = true // what the write tool does with dry_run
	var class errClass
	c.m, es, class = c.prepare(nil)
	if class == classInternal {
		return c.fail(es), nil
	}
	return toolResult(st.r.ans.render(ctx, name, c.validateResult(append(c.ctl.errs, es...))), false), nil
}

// schemaHandler is get_write_schema: the tool's entry of the document.
func (st serviceTools) schemaHandler(ctx context.Context, req *toolcall.Request) (*toolcall.Result, error) {
	name := st.r.svc.SchemaTool
	vals, es := st.r.readArgs(arguments(req), argSpec{name: "operation", kind: impl.KindString, required: true})
	if len(es) > 0 {
		return st.r.ans.errorResult(ctx, name, nil, es), nil
	}
	wt, e := st.operation(vals["operation"].Str, st.r.order)
	if e != nil {
		return st.r.ans.errorResult(ctx, name, nil, impl.Errors{e}), nil
	}
	d := wt.doc
	examples := d.Examples
	if examples == nil {
		examples = []schemadoc.Example{}
	}
	fills := d.ServerFills
	if fills == nil {
		fills = []schemadoc.ServerFill{}
	}
	o := object{
		{"operation", d.Name},
		{"schema_hash", wt.hash},
		{"schema_version", st.r.version},
		{"description", d.Description},
		{"kind", d.Kind},
		{"classification", st.r.ans.shape.classification(d.Classification)},
		{"confirmation", string(defaultConfirmation(d))},
		{"input_schema", fullInputSchema(d)},
		{"output_schema", rawOrEmpty(d.OutputSchema)},
		{"examples", examples},
		{"required_fields", nonNil(d.RequiredFields)},
		{"optional_fields", nonNil(d.OptionalFields)},
		{"server_fills", fills},
		{"control_arguments", controlArguments(wt)},
	}
	if st.r.ans.shape.jsonNames {
		// Every field name above is the protojson name.
		o = append(o, member{"field_naming", st.r.svc.FieldNaming})
	}
	if d.ElicitFallback != "" {
		// What a confirmation the client cannot show becomes.
		o = append(o, member{"elicit_fallback", d.ElicitFallback})
	}
	if len(d.RequiredWhen) > 0 {
		// Conditions the input schema can only state in descriptions.
		o = append(o, member{"required_when", d.RequiredWhen})
	}
	if len(d.References) > 0 {
		// Fields that take an id or a name.
		o = append(o, member{"references", d.References})
	}
	if len(d.Rules) > 0 {
		// The proto's buf.validate rules, per field.
		o = append(o, member{"rules", d.Rules})
	}
	if d.DecidedBy != "" {
		// The proto signal that made the tool what it is.
		o = append(o, member{"decided_by", d.DecidedBy})
	}
	if len(d.LongDescriptions) > 0 {
		// Descriptions cut short in the schemas, in full.
		o = append(o, member{"long_descriptions", longDescriptions(d.LongDescriptions)})
	}
	if len(d.Vocabularies) > 0 {
		// Fields of live vocabularies, with the caller's values.
		rc, _ := st.r.requestContext(ctx, req)
		vs, err := st.vocabularyListing(WithRequestContext(ctx, rc), d.Vocabularies, rc.TenantID)
		if err != nil {
			es, _ := st.r.ans.classify(ctx, name, err)
			return st.r.ans.errorResult(ctx, name, nil, es), nil
		}
		o = append(o, member{"vocabularies", vs})
	}
	return toolResult(st.r.ans.render(ctx, name, o), false), nil
}

func rawOrEmpty(b json.RawMessage) json.RawMessage {
	if len(b) == 0 {
		return json.RawMessage("{}")
	}
	return b
}

// discoveryGroups lists the groups of a discovery entry in first-seen order.
func discoveryGroups(d *schemadoc.Discovery) []string {
	var gs []string
	seen := map[string]bool{}
	for _, v := range d.Values {
		if v.Group != "" && !seen[v.Group] {
			seen[v.Group] = true
			gs = append(gs, v.Group)
		}
	}
	return gs
}

// discoveryHandler lists an enum's agent-facing values, optionally one group.
func (st serviceTools) discoveryHandler(d *schemadoc.Discovery, groups []string) toolcall.Handler {
	return func(ctx context.Context, req *toolcall.Request) (*toolcall.Result, error) {
		specs := []argSpec{}
		if d.GroupBy != "" {
			specs = append(specs, argSpec{name: "group", kind: impl.KindString, required: false})
		}
		ends := pairEnds(d)
		if len(ends) > 0 {
			specs = append(specs, argSpec{name: "source_type", kind: impl.KindString, required: false}, argSpec{name: "target_type", kind: impl.KindString, required: false})
		}
		vals, es := st.r.readArgs(arguments(req), specs...)
		if len(es) > 0 {
			return st.r.ans.errorResult(ctx, d.Tool, nil, es), nil
		}
		group := ""
		if v := vals["group"]; v != nil {
			group = v.Str
			known := false
			for _, g := range groups {
				known = known || g == group
			}
			if !known {
				return st.r.ans.errorResult(ctx, d.Tool, nil, impl.Errors{{
					Code: CodeInvalidEnumValue, Field: "group", Message: "unknown group " + impl.Excerpt(group),
					Suggestions: &impl.Suggestions{DidYouMean: suggest.Closest(group, groups, 3), ValidValues: groups},
				}}), nil
			}
		}
		source, target := "", ""
		for _, k := range []string{"source_type", "target_type"} {
			v := vals[k]
			if v == nil {
				continue
			}
			if !contains(ends, v.Str) {
				return st.r.ans.errorResult(ctx, d.Tool, nil, impl.Errors{{
					Code: CodeInvalidEnumValue, Field: k, Message: fmt.Sprintf("unknown %s %s", strings.ReplaceAll(k, "_", " "), impl.Excerpt(v.Str)),
					Suggestions: &impl.Suggestions{DidYouMean: suggest.Closest(v.Str, ends, 3), ValidValues: ends}, Rejected: v.Str,
				}}), nil
			}
			if k == "source_type" {
				source = v.Str
			} else {
				target = v.Str
			}
		}
		values := []object{}
		byGroup := object{}
		for _, v := range d.Values {
			if group != "" && v.Group != group {
				continue
			}
			pairs := matchingPairs(v.ValidPairs, source, target)
			if (source != "" || target != "") && len(pairs) == 0 {
				continue
			}
			item := object{{"value", v.Value}}
			if v.Description != "" {
				item = append(item, member{"description", v.Description})
			}
			if v.Group != "" {
				item = append(item, member{"group", v.Group})
			}
			if d.PairsOf != "" {
				item = append(item, member{"valid_pairs", pairs})
			}
			values = append(values, item)
			if d.GroupBy != "" && v.Group != "" {
				var list []string
				for _, m := range byGroup {
					if m.Key == v.Group {
						list = m.Val.([]string)
					}
				}
				byGroup.set(v.Group, append(list, v.Value))
			}
		}
		o := object{{"values", values}}
		if d.GroupBy != "" {
			o = append(o, member{"groups", byGroup})
		}
		return toolResult(st.r.ans.render(ctx, d.Tool, o), false), nil
	}
}

// pairEnds lists the source/target types a discovery's valid pairs use.
func pairEnds(d *schemadoc.Discovery) []string {
	var out []string
	for _, v := range d.Values {
		for _, p := range v.ValidPairs {
			for _, e := range []string{p.Source, p.Target} {
				if !contains(out, e) {
					out = append(out, e)
				}
			}
		}
	}
	return out
}

// matchingPairs filters pairs by source and target ("" matches any); never nil.
func matchingPairs(ps []schemadoc.Pair, source, target string) []schemadoc.Pair {
	out := []schemadoc.Pair{}
	for _, p := range ps {
		if (source == "" || p.Source == source) && (target == "" || p.Target == target) {
			out = append(out, p)
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
