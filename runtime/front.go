package runtime

// The front half of a call, shared by every entry point: the request
// context, parsing the arguments, splitting the control arguments off and
// preparing the request (decode, validate, enrich, request check).

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/idempotency"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/callmeta"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/impl"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/toolcall"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/schemadoc"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/suggest"
	"google.golang.org/protobuf/proto"
)

// requestContext establishes who is calling: the option hook when set, else
// the context the embedding server attached.
func (r *registry) requestContext(ctx context.Context, req *toolcall.Request) (RequestContext, bool) {
	if r.cfg.observer != nil { // observe resolved it for this call already
		if v, ok := ctx.Value(resolvedKey{}).(resolvedContext); ok {
			return v.rc, v.ok
		}
	}
	var rc RequestContext
	var ok bool
	if r.cfg.rcFunc != nil {
		rc, ok = r.cfg.rcFunc(ctx, req)
	} else {
		rc, ok = RequestContextFrom(ctx)
	}
	r.cleanTraceIDs(ctx, &rc)
	return rc, ok
}

// cleanTraceIDs replaces invalid correlation, causation and trace ids (from
// _meta, headers or the embedding server) before they reach answers, logs
// or outgoing headers, and logs each replacement without the refused value.
func (r *registry) cleanTraceIDs(ctx context.Context, rc *RequestContext) {
	for _, x := range callmeta.CleanTraceIDs((*callmeta.RequestMetadata)(rc)) {
		r.cfg.logger.WarnContext(ctx, "mcpwrite: invalid "+x.Field+" replaced by a server id",
			"field", x.Field, "reason", x.Reason, "replacement", x.Replacement, "allowed", callmeta.TraceIDCharset)
	}
}

// arguments returns the raw arguments of a call; absent means {}.
func arguments(req *toolcall.Request) []byte {
	if req == nil {
		return nil
	}
	return req.Arguments
}

// parseArgs parses arguments strictly, the tree carved from s (nil:
// allocated; the tree is valid until s is released); empty and null mean
// {}. A tool's arguments are parsed by call.begin only, a service tool's
// by readArgs.
func (r *registry) parseArgs(raw []byte, s *impl.Scratch) (*impl.Object, impl.Errors) {
	if len(raw) == 0 || raw[0] != '{' { // arguments are almost always an object
		if t := bytes.TrimSpace(raw); len(t) == 0 || string(t) == "null" {
			return &impl.Object{}, nil
		}
	}
	obj, es := impl.ParseObjectInto(raw, r.cfg.limits, s)
	if len(es) > 0 {
		return nil, es
	}
	if obj == nil {
		return &impl.Object{}, nil
	}
	return obj, nil
}

// splitControl removes the control arguments (the idempotency key and
// dry_run under either spelling of names, and, when the tool takes one, the
// agent's summary argument summaryArg) from the arguments (they steer the
// pipeline, not the request) and checks them.
func splitControl(obj *impl.Object, summaryArg string, names controlNames) (control, *impl.Object) {
	var c control
	hasControl := false
	for _, k := range obj.Keys {
		hasControl = hasControl || isWriteControl(k) || summaryArg != "" && k == summaryArg
	}
	if !hasControl {
		return c, obj // the common call: nothing to split, nothing to copy
	}
	body := &impl.Object{Keys: make([]string, 0, len(obj.Keys)), Vals: make([]*impl.Value, 0, len(obj.Keys))}
	var seen []string
	for i, k := range obj.Keys {
		v := obj.Vals[i]
		name := names.canonical(k)
		if name != "" {
			if slices.Contains(seen, name) {
				c.errs = append(c.errs, bothSpellings(name))
				continue
			}
			seen = append(seen, name)
		}
		switch {
		case name == names.clientRequestID:
			c.key, c.errs = clientRequestID(k, v, c.errs)
		case name == names.dryRun:
			switch {
			case v == nil || v.Kind == impl.KindNull:
			case v.Kind != impl.KindBool:
				c.errs = append(c.errs, &impl.ErrorEntry{
					Code: impl.CodeInvalidType, Field: k, Message: k + " must be a boolean",
					Details: map[string]any{"expected": "boolean", "got": impl.JSONKind(v.Kind)},
				})
			default:
				c.dryRun = v.Bool
			}
		case summaryArg != "" && k == summaryArg:
			c.summary, c.errs = agentSummary(k, v, c.errs)
		default:
			body.Keys = append(body.Keys, k)
			body.Vals = append(body.Vals, v)
		}
	}
	return c, body
}

// clientRequestID checks the idempotency key sent as k: a string of the
// key rule; null is as if not sent.
func clientRequestID(k string, v *impl.Value, errs impl.Errors) (string, impl.Errors) {
	switch {
	case v == nil || v.Kind == impl.KindNull:
	case v.Kind != impl.KindString:
		errs = append(errs, &impl.ErrorEntry{
			Code: impl.CodeInvalidType, Field: k,
			Message: k + " must be a string",
			Details: map[string]any{"expected": "string", "got": impl.JSONKind(v.Kind)},
		})
	default:
		if err := idempotency.ValidateKey(v.Str); err != nil {
			return "", append(errs, &impl.ErrorEntry{
				Code: impl.CodeInvalidIdempotencyKey, Field: k, Message: err.Error(),
				Suggestions: &impl.Suggestions{Hint: "Use 1-255 characters of A-Z, a-z, 0-9, '_' and '-', e.g. create_element-7f3a9c."},
			})
		}
		return v.Str, errs
	}
	return "", errs
}

// agentSummary checks the agent's summary of a change: a string of 1 to
// schemadoc.AgentSummaryMaxLength characters; null is as if not sent.
func agentSummary(k string, v *impl.Value, errs impl.Errors) (string, impl.Errors) {
	switch {
	case v == nil || v.Kind == impl.KindNull:
		return "", errs
	case v.Kind != impl.KindString:
		return "", append(errs, &impl.ErrorEntry{
			Code: impl.CodeInvalidType, Field: k, Message: "expected string, got " + impl.JSONKind(v.Kind),
			Details: map[string]any{"expected": "string", "got": impl.JSONKind(v.Kind)},
		})
	}
	s := strings.TrimSpace(v.Str)
	if n := utf8.RuneCountInString(s); n == 0 || n > schemadoc.AgentSummaryMaxLength {
		return "", append(errs, &impl.ErrorEntry{
			Code: impl.CodeConstraintViolation, Field: k,
			Message:     fmt.Sprintf("must be 1 to %d characters, got %d", schemadoc.AgentSummaryMaxLength, n),
			Suggestions: &impl.Suggestions{Hint: "Describe the change in one short line, or leave summary out."},
		})
	}
	return s, errs
}

// prepare runs decode -> validate -> enrich -> request check on c.body and
// returns the complete request (with the Decoder and the Call taken from s,
// which must not be released before the request is complete; nil:
// allocated). Enrichment sees c.ctl's client_request_id and dry_run. A
// failure returns the entries and their class.
func (c *call) prepare(s *impl.Scratch) (proto.Message, impl.Errors, errClass) {
	r, wt, ctx := c.r, c.wt, c.ctx
	m := wt.bind.NewRequest()
	var d *impl.Decoder
	var gc *impl.Call
	if s != nil {
		d, gc = s.Decoder(), s.Call()
	} else {
		d, gc = impl.NewDecoder(r.cfg.limits), new(impl.Call)
	}
	d.SetLimits(r.cfg.limits)
	var vocabs *callVocabularies
	if !c.decodeOnly {
		vocabs = r.newCallVocabularies(ctx, c.rc)
		d.Vocabularies = vocabs.lookup()
	}
	wt.bind.Decode(d, c.body, m)
	if vocabs != nil && vocabs.failure != nil {
		err := vocabs.failure
		es, class := r.ans.classify(ctx, wt.doc.Name, err)
		return m, es, class
	}
	if es := d.Errors(); len(es) > 0 {
		wt.hint(es)
		r.ans.hintGroups(es)
		r.ans.hintConfirmFlow(wt, es)
		if c.decodeOnly {
			return m, es, classBusiness
		}
		es = c.earlyCheck(m, es)
		return m, c.earlyRequestCheck(wt, c.body, m, es), classBusiness
	}
	if c.decodeOnly {
		return m, nil, classBusiness
	}
	*gc = impl.Call{
		Ctx: ctx, Tool: wt.doc.Name, RC: callmeta.RequestMetadata(c.rc), HasRC: c.hasRC,
		ClientRequestID: c.ctl.key, DryRun: c.ctl.dryRun,
		Clock: r.cfg.clock, Rand: r.cfg.rand, IDSecret: r.cfg.idSecret,
	}
	if s != nil {
		s.LendRandom()
	}
	if err := wt.bind.Enrich(gc, m); err != nil {
		es, class := r.ans.classify(ctx, wt.doc.Name, err)
		return m, es, class
	}
	if es, class := c.requestCheck(ctx, wt, c.body, m); len(es) > 0 {
		wt.hint(es)
		return m, es, class
	}
	return m, nil, classBusiness
}

// readArgs parses a service tool's arguments strictly, reporting every
// unknown, mistyped and missing argument at once.
func (r *registry) readArgs(raw []byte, specs ...argSpec) (map[string]*impl.Value, impl.Errors) {
	obj, es := r.parseArgs(raw, nil)
	if len(es) > 0 {
		return nil, es
	}
	names := make([]string, len(specs))
	for i, s := range specs {
		names[i] = s.name
	}
	vals := map[string]*impl.Value{}
	for i, k := range obj.Keys {
		v := obj.Vals[i]
		var spec *argSpec
		for j := range specs {
			if specs[j].name == k || specs[j].alias != "" && specs[j].alias == k {
				spec = &specs[j]
			}
		}
		if spec != nil && spec.alias != "" {
			if _, dup := vals[spec.name]; dup || hasError(es, spec.name) {
				es = append(es, bothSpellings(spec.name))
				continue
			}
			k = spec.name
		}
		switch {
		case spec == nil:
			es = append(es, &impl.ErrorEntry{
				Code: CodeUnknownField, Field: k, Message: fmt.Sprintf("unknown argument %q", k),
				Suggestions: &impl.Suggestions{DidYouMean: suggest.Closest(k, names, 3), ValidValues: names},
			})
		case v == nil || v.Kind == impl.KindNull:
		case spec.text && v.Kind == impl.KindString && spec.kind != impl.KindString:
			parsed, pes := impl.ParseValue([]byte(v.Str), r.cfg.limits)
			switch {
			case len(pes) > 0:
				es = append(es, &impl.ErrorEntry{
					Code: impl.CodeInvalidJSON, Field: k,
					Message: fmt.Sprintf("%s must be JSON text of %s %s (%s)", k, article(impl.JSONKind(spec.kind)), impl.JSONKind(spec.kind), pes[0].Message),
				})
			case parsed.Kind != spec.kind:
				es = append(es, &impl.ErrorEntry{
					Code: impl.CodeInvalidType, Field: k,
					Message: fmt.Sprintf("%s must be JSON text of %s %s, got %s %s", k, article(impl.JSONKind(spec.kind)), impl.JSONKind(spec.kind), article(impl.JSONKind(parsed.Kind)), impl.JSONKind(parsed.Kind)),
					Details: map[string]any{"expected": impl.JSONKind(spec.kind), "got": impl.JSONKind(parsed.Kind)},
				})
			default:
				vals[k] = parsed
			}
		case v.Kind != spec.kind:
			es = append(es, &impl.ErrorEntry{
				Code: impl.CodeInvalidType, Field: k,
				Message: fmt.Sprintf("%s must be %s %s", k, article(impl.JSONKind(spec.kind)), impl.JSONKind(spec.kind)),
				Details: map[string]any{"expected": impl.JSONKind(spec.kind), "got": impl.JSONKind(v.Kind)},
			})
		default:
			vals[k] = v
		}
	}
	for _, s := range specs {
		if _, ok := vals[s.name]; !ok && s.required && !hasError(es, s.name) {
			es = append(es, &impl.ErrorEntry{Code: impl.CodeMissingRequired, Field: s.name, Message: s.name + " is required"})
		}
	}
	return vals, es
}

// begin is the front door of every path that runs a tool (write, read,
// validate_write, apply, Preparer.Prepare and Preparer.Decode), before
// prepare: who calls, resolved from the MCP request when the call has one
// (a Preparer, and a proposal's tool call re-made on apply, are given it),
// carried by the call's context from here on; then the tool's arguments
// c.raw parsed strictly into s (or obj, a payload the path parsed already:
// validate_write's), with the control arguments split off. Errors are the
// answer instead. TestOnlyBeginAssemblesTheFrontHalf keeps it the only
// function that parses a tool's arguments or splits their control
// arguments.
func (c *call) begin(obj *impl.Object, s *impl.Scratch) impl.Errors {
	if c.req != nil {
		c.ctx, c.rc, c.hasRC = c.r.caller(c.ctx, c.req)
	}
	if obj == nil {
		var es impl.Errors
		if obj, es = c.r.parseArgs(c.raw, s); len(es) > 0 {
			return es
		}
	}
	c.args = obj
	c.ctl, c.body = c.wt.splitControl(obj)
	return nil
}

// splitControl is the package splitControl for a write; a read has no
// control arguments, so its client_request_id or dry_run stays in the body
// and is refused as an unknown field.
func (wt *boundTool) splitControl(obj *impl.Object) (control, *impl.Object) {
	if wt.read {
		return control{}, obj
	}
	return splitControl(obj, wt.doc.AgentSummary, wt.names)
}

// caller resolves who calls (requestContext) and returns ctx carrying the
// request context when one was found: the first step of the front half of
// every MCP entry point.
func (r *registry) caller(ctx context.Context, req *toolcall.Request) (context.Context, RequestContext, bool) {
	rc, hasRC := r.requestContext(ctx, req)
	if hasRC {
		ctx = WithRequestContext(ctx, rc)
	}
	return ctx, rc, hasRC
}

// newCall starts the state of a call of wt by rc; ctx carries rc when
// hasRC.
func (r *registry) newCall(ctx context.Context, wt *boundTool, rc RequestContext, hasRC bool) *call {
	return &call{r: r, wt: wt, ctx: ctx, rc: rc, hasRC: hasRC}
}

// earlyRequestCheck adds to es, the decode problems, the request check's
// violations on fields the agent sent that decoded. A checker that fails
// adds nothing: the full check reports it once the arguments decode.
func (c *call) earlyRequestCheck(wt *boundTool, body *impl.Object, m proto.Message, es impl.Errors) impl.Errors {
	if c.r.checker == nil || m == nil {
		return es
	}
	vs, err := c.r.checker.Check(m)
	if err != nil {
		return es
	}
	decoded := len(es)
	for _, v := range vs {
		if len(v.Path) == 0 {
			continue
		}
		path, agent := agentPath(wt.bind.AgentPaths, v.Path)
		if !agent || !sent(body, v.Path, wt.bind.AgentPaths) || overlaps(es[:decoded], path) {
			continue
		}
		e := &impl.ErrorEntry{Code: violationCode(v.RuleID), Field: path, Message: v.Message}
		if v.RuleID != "" {
			e.Details = map[string]any{"rule_id": v.RuleID}
		}
		es = append(es, e)
	}
	return es
}

// earlyCheck adds to es, the decode problems, the early check's answers
// on fields the agent sent that decoded, each once. A check that fails
// otherwise (a resolver down, a missing tenant, a resolver that panics, a
// Service bound to a nil handler for its document) adds nothing: the full
// enrichment reports it once the arguments decode.
func (c *call) earlyCheck(m proto.Message, es impl.Errors) (out impl.Errors) {
	check := c.wt.bind.EarlyCheck
	if check == nil || m == nil {
		return es
	}
	defer func() {
		if recover() != nil {
			out = es
		}
	}()
	// No clock and no test random source: the check fills nothing timed
	// or random, and must not move what the next call draws.
	gc := &impl.Call{
		Ctx: c.ctx, Tool: c.wt.doc.Name, RC: callmeta.RequestMetadata(c.rc), HasRC: c.hasRC,
		ClientRequestID: c.ctl.key, DryRun: c.ctl.dryRun, IDSecret: c.r.cfg.idSecret,
	}
	err := check(gc, proto.Clone(m))
	if err == nil || !agentAnswer(err) {
		return es
	}
	found, class := c.r.ans.classify(c.ctx, c.wt.doc.Name, err)
	if class != classBusiness {
		return es
	}
	decoded := len(es)
	for _, e := range found {
		if e.Field == "" || !sentPath(c.body, e.Field) || overlaps(es[:decoded], e.Field) || holds(es[decoded:], e) {
			continue
		}
		es = append(es, e)
	}
	return es
}

// requestCheck runs the registration's checker on the complete request m.
// A violation on a field the agent supplies is the agent's to fix, with the
// agent-facing path; one on a field the server fills (derived, generated,
// hidden) is a server bug, answered INTERNAL.
func (c *call) requestCheck(ctx context.Context, wt *boundTool, body *impl.Object, m proto.Message) (impl.Errors, errClass) {
	if c.r.checker == nil || m == nil {
		return nil, classBusiness
	}
	vs, err := c.r.checker.Check(m)
	if err != nil {
		return impl.Errors{c.r.ans.internal(ctx, wt.doc.Name, fmt.Errorf("request check: %w", err))}, classInternal
	}
	var es impl.Errors
	var server []string
	for _, v := range vs {
		path, agent := agentPath(wt.bind.AgentPaths, v.Path)
		if agent && wt.bind.Overridable[protoPath(v.Path)] && !sent(body, v.Path, wt.bind.AgentPaths) {
			agent = false // the server filled it: the agent left it out
		}
		if !agent {
			server = append(server, fmt.Sprintf("%s: %s (%s)", path, v.Message, v.RuleID))
			continue
		}
		e := &impl.ErrorEntry{Code: violationCode(v.RuleID), Field: path, Message: v.Message}
		if v.RuleID != "" {
			e.Details = map[string]any{"rule_id": v.RuleID}
		}
		es = append(es, e)
	}
	if len(server) > 0 {
		return impl.Errors{c.r.ans.internal(ctx, wt.doc.Name, fmt.Errorf("request check: server-filled fields break their rules: %s", strings.Join(server, "; ")))}, classInternal
	}
	return es, classBusiness
}
