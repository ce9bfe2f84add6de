package runtime

// MCP resources (docs/resources.md): a read tool that is an AIP-131 Get,
// opted in by the generator (schemadoc.Resource), is also served as a
// resource template. resources/read maps the URI back to the Get request's
// name and runs the Get tool's own pipeline (request context, decode,
// enrichment, request check, handler, error mapping and redaction); the
// resource is the response in protojson, a failure a JSON-RPC error whose
// data is the error envelope.

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"strings"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/toolcall"
	"google.golang.org/protobuf/proto"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/impl"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/schemadoc"
)

// resourceMIMEType is the type of every resource's contents.
const resourceMIMEType = "application/json"

// resourceSpec is one resource template ready for AddResourceTemplate.
type resourceSpec struct {
	template *toolcall.ResourceTemplate
	handler  toolcall.ResourceHandler
}

// serviceResources serves a service's resource templates: the registry's
// read tools, reached through resource URIs.
type serviceResources struct{ r *registry }

// toolWrapper is what Register wraps every tool handler in (observe,
// guard); a resource read runs wrapped as a call of its Get tool.
type toolWrapper func(tool string, h toolcall.Handler) toolcall.Handler

// resourceSpecs builds the service's resource templates, checking each
// names a read tool of the service and has a usable pattern.
func (sr serviceResources) specs(wrap toolWrapper) ([]resourceSpec, error) {
	r := sr.r
	var specs []resourceSpec
	for _, d := range r.svc.Resources {
		wt, ok := r.tools[d.Tool]
		switch {
		case !ok:
			return nil, fmt.Errorf("resource %q: tool %q is not a tool of the service", d.Name, d.Tool)
		case !wt.read:
			return nil, fmt.Errorf("resource %q: tool %q is not a read tool; only a read can serve a resource", d.Name, d.Tool)
		}
		p, err := parseResourcePattern(d)
		if err != nil {
			return nil, fmt.Errorf("resource %q: %w", d.Name, err)
		}
		specs = append(specs, resourceSpec{
			template: &toolcall.ResourceTemplate{Name: d.Name, Title: d.Title, Description: d.Description, URITemplate: d.URITemplate, MIMEType: resourceMIMEType},
			handler:  sr.handler(wt, p, wrap),
		})
	}
	return specs, nil
}

// resourceHandler reads the resource a URI names through the Get tool wt:
// the URI's name becomes the request's name field, and the call runs as a
// call of wt (observed and guarded as one).
func (sr serviceResources) handler(wt *boundTool, p resourcePattern, wrap toolWrapper) toolcall.ResourceHandler {
	r := sr.r
	tool := wt.doc.Name
	return func(ctx context.Context, req *toolcall.ResourceRequest) (*toolcall.ResourceResult, error) {
		uri := req.URI
		name, bad := p.nameOf(uri)
		args, err := json.Marshal(map[string]string{p.field: name})
		if err != nil {
			return nil, &toolcall.Error{Code: toolcall.CodeInternalError, Message: "INTERNAL: cannot build the request"}
		}
		var resp proto.Message
		inner := func(ctx context.Context, creq *toolcall.Request) (*toolcall.Result, error) {
			if bad != nil {
				return r.ans.errorResult(ctx, tool, nil, impl.Errors{bad.impl()}), nil
			}
			res, m := r.readCall(ctx, wt, creq)
			resp = m
			return res, nil
		}
		res, err := wrap(tool, inner)(ctx, req.Call(tool, args))
		if err != nil {
			return nil, err
		}
		if res == nil || res.IsError {
			return nil, resourceError(uri, res)
		}
		var text []byte
		err = fmt.Errorf("%s answered no response", wt.doc.Method)
		if resp != nil && resp.ProtoReflect().IsValid() {
			text, err = r.ans.shape.protojson().Marshal(resp)
		}
		if err == nil {
			text, err = compactJSON(text)
		}
		if err != nil {
			e := r.ans.internal(ctx, tool, fmt.Errorf("marshal resource %s: %w", uri, err))
			return nil, resourceError(uri, r.ans.errorResult(ctx, tool, nil, impl.Errors{e}))
		}
		return &toolcall.ResourceResult{Contents: []toolcall.ResourceContents{{URI: uri, MIMEType: resourceMIMEType, Text: string(text)}}}, nil
	}
}

// resourceError is a failed read as a JSON-RPC error: the envelope's first
// error as "CODE: message" and the whole envelope as data. NOT_FOUND, and
// a URI or request the arguments' rules refuse, are invalid params
// (-32602, which the protocol uses for a resource not found since
// SEP-2164); anything else is an internal error.
func resourceError(uri string, res *toolcall.Result) error {
	var env struct {
		Error *impl.ErrorEntry `json:"error"`
	}
	var data json.RawMessage
	if res != nil {
		if raw := res.StructuredContent; raw != nil {
			data = raw
			_ = json.Unmarshal(raw, &env)
		}
	}
	if env.Error == nil {
		return &toolcall.Error{Code: toolcall.CodeInternalError, Message: "INTERNAL: reading " + uri + " failed", Data: data}
	}
	code := int64(toolcall.CodeInternalError)
	switch env.Error.Code {
	case impl.CodeNotFound, impl.CodeValidation, impl.CodeMissingRequired, impl.CodeUnknownField, impl.CodeInvalidType, impl.CodeConstraintViolation:
		code = toolcall.CodeInvalidParams
	}
	msg := env.Error.Code + ": " + env.Error.Message
	if env.Error.TraceID != "" {
		msg += " (trace_id " + env.Error.TraceID + ")"
	}
	return &toolcall.Error{Code: code, Message: msg, Data: data}
}

// resourcePattern is a resource name pattern split into segments: a
// literal collection id, or a {variable} (var set).
type resourcePattern struct {
	doc      schemadoc.Resource
	prefix   string // scheme://host/
	segments []patternSegment
	field    string
}

// variableRE and literalRE are a pattern's {variable} names and
// collection ids, as the generator writes them.
var (
	variableRE = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)
	literalRE  = regexp.MustCompile(`^[A-Za-z0-9._~-]+$`)
)

// uriPrefixRE is a resource URI's scheme://host/: a lower-case scheme and
// a resource type's service name.
var uriPrefixRE = regexp.MustCompile(`^[a-z][a-z0-9+.-]*://[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?/$`)

type patternSegment struct {
	text string // the literal, or the variable's name
	vars bool
}

func parseResourcePattern(d schemadoc.Resource) (resourcePattern, error) {
	p := resourcePattern{doc: d, field: d.NameField}
	if p.field == "" {
		p.field = "name"
	}
	prefix, ok := strings.CutSuffix(d.URITemplate, d.Pattern)
	if !ok || !uriPrefixRE.MatchString(prefix) {
		return p, fmt.Errorf("URI template %q is not scheme://host/ and the pattern %q", d.URITemplate, d.Pattern)
	}
	p.prefix = prefix
	for _, seg := range strings.Split(d.Pattern, "/") {
		if v, ok := strings.CutPrefix(seg, "{"); ok {
			v, ok = strings.CutSuffix(v, "}")
			if !ok || !variableRE.MatchString(v) {
				return p, fmt.Errorf("pattern %q: segment %q is neither a collection id nor a {variable}", d.Pattern, seg)
			}
			p.segments = append(p.segments, patternSegment{text: v, vars: true})
			continue
		}
		if !literalRE.MatchString(seg) {
			return p, fmt.Errorf("pattern %q: segment %q is neither a collection id nor a {variable}", d.Pattern, seg)
		}
		p.segments = append(p.segments, patternSegment{text: seg})
	}
	return p, nil
}

// nameOf is the resource name uri carries, or the error that says how uri
// misses the pattern: each variable one non-empty segment (percent-encoded
// as the URI template writes it; an encoded "/" is refused), every
// collection id as in the pattern, no query or fragment.
func (p resourcePattern) nameOf(uri string) (string, *ErrorEntry) {
	bad := func(msg string) (string, *ErrorEntry) {
		return "", &ErrorEntry{Code: CodeConstraintViolation, Field: p.field, Message: fmt.Sprintf("resource URI %q %s", uri, msg),
			Suggestions: &Suggestions{Hint: "Send a URI of the template " + p.doc.URITemplate + ", each {variable} one path segment, e.g. " + p.example() + "."}}
	}
	rest, ok := strings.CutPrefix(uri, p.prefix)
	if !ok {
		return bad("does not start with " + p.prefix)
	}
	if strings.ContainsAny(rest, "?#") {
		return bad("has a query or a fragment, which a resource name cannot carry")
	}
	segs := strings.Split(rest, "/")
	if len(segs) != len(p.segments) {
		return bad(fmt.Sprintf("has %d path segments after %s where the pattern %s has %d", len(segs), p.prefix, p.doc.Pattern, len(p.segments)))
	}
	out := make([]string, len(segs))
	for i, s := range p.segments {
		v, err := url.PathUnescape(segs[i])
		switch {
		case err != nil:
			return bad(fmt.Sprintf("segment %d (%q) is not valid percent-encoding", i+1, segs[i]))
		case !s.vars && v != s.text:
			return bad(fmt.Sprintf("has %q where the pattern %s has %q", segs[i], p.doc.Pattern, s.text))
		case s.vars && v == "":
			return bad("leaves {" + s.text + "} empty")
		case s.vars && strings.Contains(v, "/"):
			return bad("puts a \"/\" inside {" + s.text + "}, which must be one path segment")
		}
		out[i] = v
	}
	return strings.Join(out, "/"), nil
}

// example is the template with each variable replaced by an example id.
func (p resourcePattern) example() string {
	parts := make([]string, len(p.segments))
	for i, s := range p.segments {
		parts[i] = s.text
		if s.vars {
			parts[i] = "my-" + strings.ReplaceAll(s.text, "_", "-")
		}
	}
	return p.prefix + strings.Join(parts, "/")
}
