package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"runtime/debug"
	"strings"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/toolcall"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/impl"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/served"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcpwriteimpl"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/schemadoc"
)

// registration is one service's tools, their handlers wrapped (observe,
// guard), and resource templates, ready for an MCP library's adapter.
type registration struct {
	r         *registry
	tools     []toolSpec
	resources []resourceSpec
}

func init() {
	served.Build = func(svc *impl.Service, opts any, native served.Native) (*served.Registration, error) {
		os, _ := opts.([]Option)
		g, err := build(svc, os, native)
		if err != nil {
			return nil, err
		}
		return g.served(), nil
	}
}

// build reads and binds a service's document and builds its tools and
// resource templates for an adapter whose requests' Native is of type
// native; it fails where an adapter's Register fails before touching a
// server.
func build(svc *mcpwriteimpl.Service, opts []Option, native served.Native) (*registration, error) {
	r, err := newRegistry(svc, opts)
	if err != nil {
		return nil, err
	}
	if err := r.checkRequestContext(native); err != nil {
		return nil, err
	}
	wrap := func(name string, h toolcall.Handler) toolcall.Handler { return r.observe(name, r.guard(name, h)) }
	specs, err := r.toolSpecs()
	var resources []resourceSpec
	if err == nil {
		resources, err = serviceResources{r}.specs(wrap)
	}
	if err != nil {
		return nil, fmt.Errorf("runtime: service %s: %w", svc.Name, err)
	}
	for i := range specs {
		specs[i].handler = wrap(specs[i].tool.Name, specs[i].handler)
	}
	return &registration{r: r, tools: specs, resources: resources}, nil
}

// served is g as an adapter serves it.
func (g *registration) served() *served.Registration {
	out := &served.Registration{Service: g.r.svc.Name, Compact: g.r.cfg.compact, Logger: g.r.cfg.logger}
	for _, sp := range g.tools {
		out.Tools = append(out.Tools, served.Tool{Tool: sp.tool, Handler: sp.handler})
	}
	for _, sp := range g.resources {
		out.Resources = append(out.Resources, served.Resource{Template: sp.template, Handler: sp.handler})
	}
	return out
}

// newRegistry reads a service's document and binds its tools.
func newRegistry(svc *impl.Service, opts []Option) (*registry, error) {
	if svc == nil {
		return nil, errors.New("runtime: Register: nil *Service")
	}
	var doc schemadoc.Document
	if err := json.Unmarshal(svc.Doc, &doc); err != nil {
		return nil, fmt.Errorf("runtime: service %s: parse schema document: %w", svc.Name, err)
	}
	var sd *schemadoc.Service
	for i := range doc.Services {
		if doc.Services[i].Name == svc.Name {
			sd = &doc.Services[i]
			break
		}
	}
	if sd == nil {
		return nil, fmt.Errorf("runtime: service %s: not in the schema document of %q", svc.Name, doc.Source)
	}
	r := &registry{cfg: newConfig(opts), svc: sd, version: sd.SchemaVersion, tools: map[string]*boundTool{}, ops: svc.Operations}
	shape := shapeOf(sd)
	shape.enums = svc.Enums
	r.ans = &answers{cfg: r.cfg, svc: sd, shape: shape, tools: r.tools, ops: svc.Operations}
	if r.version == "" {
		// A document generated before schema versions: the same hash,
		// computed from the entry as read.
		r.version = schemadoc.Version(*sd)
	}
	if err := r.cfg.applyToolNames(sd); err != nil {
		return nil, fmt.Errorf("runtime: service %s: %w", svc.Name, err)
	}
	for _, err := range []error{r.cfg.idSecretErr, r.cfg.signingKeyErr} {
		if err != nil {
			return nil, fmt.Errorf("runtime: service %s: WithSecrets: %w", svc.Name, err)
		}
	}
	if err := r.bind(svc); err != nil {
		return nil, fmt.Errorf("runtime: service %s: %w", svc.Name, err)
	}
	if err := r.checkVocabularies(); err != nil {
		return nil, fmt.Errorf("runtime: service %s: %w", svc.Name, err)
	}
	if svc.NewChecker != nil && !r.cfg.noRequestCheck {
		c, err := svc.NewChecker()
		if err != nil {
			return nil, fmt.Errorf("runtime: service %s: request check: %w", svc.Name, err)
		}
		r.checker = c
	}
	return r, nil
}

// bind checks that document tools and bindings match one to one.
func (r *registry) bind(svc *impl.Service) error {
	binds := map[string]*impl.Tool{}
	for i, t := range svc.Tools {
		switch {
		case t == nil:
			return fmt.Errorf("tool binding %d is nil", i)
		case t.Name == "":
			return fmt.Errorf("tool binding %d has no name", i)
		case t.NewRequest == nil || t.Decode == nil || t.Enrich == nil || t.Invoke == nil:
			return fmt.Errorf("tool %q: binding lacks NewRequest, Decode, Enrich or Invoke", t.Name)
		}
		name := r.cfg.toolName(t.Name)
		if _, dup := binds[name]; dup {
			return fmt.Errorf("tool %q is bound twice", t.Name)
		}
		binds[name] = t
	}
	for i := range r.svc.Tools {
		d := &r.svc.Tools[i]
		if _, dup := r.tools[d.Name]; dup {
			return fmt.Errorf("tool %q appears twice in the schema document", d.Name)
		}
		b, ok := binds[d.Name]
		if !ok {
			return fmt.Errorf("tool %q is in the schema document but has no binding", d.Name)
		}
		opt, err := inspectInput(d.InputSchema)
		if err != nil {
			return fmt.Errorf("tool %q: input schema: %w", d.Name, err)
		}
		if len(d.OutputSchema) > 0 && !json.Valid(d.OutputSchema) {
			return fmt.Errorf("tool %q: output schema is not valid JSON", d.Name)
		}
		read := d.Kind == kindRead
		if read && d.Confirmation != "" && Confirmation(d.Confirmation) != ConfirmDirect {
			return fmt.Errorf("tool %q is a read (kind READ) but asks for %s confirmation; a read is never confirmed", d.Name, d.Confirmation)
		}
		r.tools[d.Name] = &boundTool{bind: b, doc: d, optionalDescription: opt, nested: nestedPaths(d.InputSchema), fillShapes: fillShapes(b.NewRequest(), d.ServerFills), hash: schemaHash(d), read: read, names: controlNamesFor(r.ans.shape.jsonNames)}
		r.order = append(r.order, d.Name)
		if !read {
			r.writes = append(r.writes, d.Name)
		}
	}
	for _, t := range svc.Tools {
		if _, ok := r.tools[r.cfg.toolName(t.Name)]; !ok {
			return fmt.Errorf("tool %q is bound but not in the schema document", t.Name)
		}
	}
	for _, wt := range r.tools {
		// Every tool is bound now: the sentences name the others.
		wt.steps = r.ans.stepsOf(wt)
	}
	if r.svc.ApplyTool == "" {
		for _, name := range r.writes {
			if c := defaultConfirmation(r.tools[name].doc); c != ConfirmDirect {
				return fmt.Errorf("tool %q asks for %s confirmation but the service has no apply tool", name, c)
			}
		}
	}
	return nil
}

// inspectInput checks that an input schema is a JSON object schema (clients
// reject anything else) and reports whether it has an optional description.
func inspectInput(raw json.RawMessage) (optionalDescription bool, err error) {
	var s struct {
		Type       any                        `json:"type"`
		Properties map[string]json.RawMessage `json:"properties"`
		Required   []string                   `json:"required"`
	}
	if len(bytes.TrimSpace(raw)) == 0 {
		return false, errors.New("missing")
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		return false, fmt.Errorf("not a JSON object: %w", err)
	}
	if s.Type != "object" {
		return false, fmt.Errorf(`type must be "object", got %v`, s.Type)
	}
	if _, ok := s.Properties["description"]; !ok {
		return false, nil
	}
	for _, req := range s.Required {
		if req == "description" {
			return false, nil
		}
	}
	return true, nil
}

// toolSpecs builds every tool of the service, checking names are unique.
func (r *registry) toolSpecs() ([]toolSpec, error) {
	var specs []toolSpec
	for _, name := range r.order {
		wt := r.tools[name]
		d := wt.doc
		t := &toolcall.Tool{
			Name:        d.Name,
			Title:       d.Title,
			Description: d.Description,
			InputSchema: d.InputSchema,
			Annotations: annotations(d.Title, d.Hints),
			Meta: map[string]any{
				metaClassification: r.ans.shape.classification(d.Classification),
				metaConfirmation:   string(defaultConfirmation(d)),
				metaKind:           d.Kind,
				metaSchemaHash:     wt.hash,
				metaSchemaVersion:  r.version,
			},
		}
		if len(d.OutputSchema) > 0 {
			t.OutputSchema = d.OutputSchema
		}
		if r.cfg.compact {
			t = compactTool(d, wt.hash)
		}
		serviceTools{r}.describeOperation(t, d)
		if wt.read {
			specs = append(specs, toolSpec{t, r.readHandler(wt)})
			continue
		}
		specs = append(specs, toolSpec{t, r.writeHandler(wt)})
	}
	st := serviceTools{r}
	descs := st.compactServiceDescriptions()
	for _, sp := range append(st.operationsToolSpecs(), st.serviceToolSpecs()...) {
		sp.tool.Meta = map[string]any{metaSchemaVersion: r.version}
		if r.cfg.compact {
			st.compactServiceTool(sp.tool, descs)
		}
		specs = append(specs, sp)
	}
	if err := checkNames(specs); err != nil {
		return nil, err
	}
	return specs, nil
}

// guard turns a handler panic into an INTERNAL result with a trace_id: one
// bad request must not take the session down or leak a stack trace.
func (r *registry) guard(tool string, h toolcall.Handler) toolcall.Handler {
	return func(ctx context.Context, req *toolcall.Request) (res *toolcall.Result, err error) {
		defer func() {
			if p := recover(); p != nil {
				e := r.ans.internal(ctx, tool, fmt.Errorf("panic: %v\n%s", p, debug.Stack()))
				res, err = r.ans.errorResult(ctx, tool, nil, impl.Errors{e}), nil
			}
		}()
		return h(ctx, req)
	}
}

// identityTools lists the tools that take the tenant or the principal from
// the request context.
func (r *registry) identityTools() []string {
	var out []string
	for _, name := range r.order {
		for _, f := range r.tools[name].doc.ServerFills {
			if f.Source == "context" && (strings.HasPrefix(f.How, "tenant ") || strings.HasPrefix(f.How, "principal ")) {
				out = append(out, name)
				break
			}
		}
	}
	return out
}

// checkRequestContext refuses a registration that could only ever answer
// PERMISSION_DENIED: tools that need the caller's tenant or principal with
// WithRequestContextFunc(nil). Without the option the context may still be
// set per call (runtime.WithRequestContext in a middleware), so it warns
// once, with the fix.
func (r *registry) checkRequestContext(native served.Native) error {
	if t := r.cfg.rcType; t != nil && t != neutralRequest && t != native.Type {
		return fmt.Errorf("runtime: service %s: WithRequestContextFunc takes a function of %s, but this server's calls are %s; pass a function of %s (or runtime.StaticRequestContext)",
			r.svc.Name, typeName(t), native.Name, native.Name)
	}
	tools := r.identityTools()
	if len(tools) == 0 {
		return nil
	}
	const fix = "pass runtime.WithRequestContextFunc(mcphttp.RequestContextFromCall) with mcphttp.BearerAuth over HTTP, " +
		"runtime.StaticRequestContext for a single-user stdio server, or your own function"
	switch {
	case r.cfg.rcSet && r.cfg.rcFunc == nil:
		return fmt.Errorf("runtime: service %s: WithRequestContextFunc(nil), but %s take the tenant or principal from the request context, so every call would answer PERMISSION_DENIED; %s",
			r.svc.Name, strings.Join(tools, ", "), fix)
	case !r.cfg.rcSet:
		r.cfg.logger.Warn("mcpwrite: no request-context source configured; calls answer PERMISSION_DENIED unless each carries runtime.WithRequestContext (e.g. from a receiving middleware)",
			"service", r.svc.Name, "tools", strings.Join(tools, ", "), "fix", fix)
	}
	return nil
}

// typeName is how a WithRequestContextFunc request type is written in an
// error: go-sdk's *mcp.CallToolRequest is an alias of a generic type, which
// reflect spells out.
func typeName(t reflect.Type) string {
	if t.String() == "*mcp.ServerRequest[*github.com/modelcontextprotocol/go-sdk/mcp.CallToolParamsRaw]" {
		return "*mcp.CallToolRequest (github.com/modelcontextprotocol/go-sdk/mcp)"
	}
	return t.String()
}
