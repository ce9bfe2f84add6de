package bench

// The generated decode and enrich functions are unexported and the runtime
// offers no exported entry point that runs parse -> decode -> enrich for a
// runtime.Tool without an MCP session (the Tool closures exist only inside
// runtime.Register). Until it does, this file is a STAND-IN: verbatim copies
// of the generated createElement code in
// examples/archimate/gen/archimate/v1/archimatev1mcpwrite/archimate.mcpwrite.go
// and of the pipeline's prepare step, using only exported runtime API.
// TestStandInMatchesThePipeline proves it builds the same request the real
// pipeline hands the domain.

import (
	"bytes"
	"context"
	crand "crypto/rand"
	"io"
	"sync"
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	v1 "github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/gen/archimate/v1"
	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/gen/archimate/v1/archimatev1mcpwrite"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
)

// standIn is the per-call state of the pipeline's prepare step.
type standIn struct {
	h      archimatev1mcpwrite.ArchitectureServiceHandler
	limits runtime.Limits
	clock  func() time.Time
	rand   io.Reader
}

// newStandIn configures the stand-in as runtime.Register does by default:
// default limits, time.Now, crypto/rand behind a mutex.
func newStandIn(h archimatev1mcpwrite.ArchitectureServiceHandler, clock func() time.Time, rnd io.Reader) *standIn {
	if clock == nil {
		clock = time.Now
	}
	if rnd == nil {
		rnd = crand.Reader
	}
	return &standIn{h: h, limits: runtime.Limits{}.WithDefaults(), clock: clock, rand: &lockedReader{r: rnd}}
}

// prepare mirrors the pipeline for one createElement call: establish the
// request context, parse strictly, split off the control arguments, decode
// and validate, enrich. It returns the complete request or the errors.
func (s *standIn) prepare(ctx context.Context, raw []byte, rc runtime.RequestContext) (*v1.CreateElementRequest, runtime.Errors, error) {
	ctx = runtime.WithRequestContext(ctx, rc)
	var obj *runtime.Object
	if t := bytes.TrimSpace(raw); len(t) == 0 || string(t) == "null" {
		obj = &runtime.Object{}
	} else {
		o, es := runtime.Parse(raw, s.limits)
		if len(es) > 0 {
			return nil, es, nil
		}
		obj = o
	}
	key, dryRun, body := splitControl(obj)
	m := new(v1.CreateElementRequest)
	d := runtime.NewDecoder(s.limits)
	decodeCreateElementRequest(d, body, m)
	if es := d.Errors(); len(es) > 0 {
		return m, es, nil
	}
	c := &runtime.Call{
		Ctx: ctx, Tool: "createElement", RC: rc, HasRC: true,
		ClientRequestID: key, DryRun: dryRun, Clock: s.clock, Rand: s.rand,
	}
	return m, nil, enrichArchitectureServiceCreateElementRequest(c, s.h, m, m)
}

// splitControl removes client_request_id and dry_run, as the pipeline does
// (their validation is not exercised: the benchmark sends neither).
func splitControl(obj *runtime.Object) (key string, dryRun bool, body *runtime.Object) {
	body = &runtime.Object{}
	for i, k := range obj.Keys {
		v := obj.Vals[i]
		switch k {
		case runtime.ArgClientRequestID:
			if v.Kind == runtime.KindString {
				key = v.Str
			}
		case runtime.ArgDryRun:
			dryRun = v.Kind == runtime.KindBool && v.Bool
		default:
			body.Keys = append(body.Keys, k)
			body.Vals = append(body.Vals, v)
		}
	}
	return key, dryRun, body
}

// lockedReader serialises the shared random source, as the runtime does.
type lockedReader struct {
	mu sync.Mutex
	r  io.Reader
}

func (l *lockedReader) Read(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.r.Read(p)
}

// ---- verbatim copy of the generated code for createElement ----

var enumElementType = runtime.NewEnumTable("archimate.v1.ElementType", []runtime.EnumValue{
	{Number: 1, Name: "ELEMENT_TYPE_CAPABILITY", Alias: "Capability", Description: "An ability the organization possesses"},
	{Number: 2, Name: "ELEMENT_TYPE_RESOURCE", Alias: "Resource", Description: "An asset owned or controlled"},
	{Number: 3, Name: "ELEMENT_TYPE_COURSE_OF_ACTION", Alias: "CourseOfAction", Description: "An approach to achieve goals"},
	{Number: 4, Name: "ELEMENT_TYPE_VALUE_STREAM", Alias: "ValueStream", Description: "A sequence of activities delivering value"},
	{Number: 5, Name: "ELEMENT_TYPE_BUSINESS_PROCESS", Alias: "BusinessProcess", Description: "A sequence of business behaviors"},
	{Number: 6, Name: "ELEMENT_TYPE_BUSINESS_SERVICE", Alias: "BusinessService", Description: "A service fulfilling business needs"},
	{Number: 7, Name: "ELEMENT_TYPE_BUSINESS_ACTOR", Alias: "BusinessActor", Description: "An organizational entity"},
	{Number: 8, Name: "ELEMENT_TYPE_APPLICATION_COMPONENT", Alias: "ApplicationComponent", Synonyms: []string{"Component"}, Description: "A modular, deployable unit"},
	{Number: 9, Name: "ELEMENT_TYPE_APPLICATION_SERVICE", Alias: "ApplicationService", Description: "A service exposed by components"},
	{Number: 10, Name: "ELEMENT_TYPE_APPLICATION_INTERFACE", Alias: "ApplicationInterface", Description: "A point of access to a service"},
	{Number: 11, Name: "ELEMENT_TYPE_DATA_OBJECT", Alias: "DataObject", Description: "Data structured for processing"},
	{Number: 12, Name: "ELEMENT_TYPE_NODE", Alias: "Node", Description: "A computational resource"},
	{Number: 13, Name: "ELEMENT_TYPE_DEVICE", Alias: "Device", Description: "A physical resource"},
	{Number: 14, Name: "ELEMENT_TYPE_SYSTEM_SOFTWARE", Alias: "SystemSoftware", Description: "Software enabling other software"},
}, "Application layer types start with 'Application' or 'Data'; strategy types are Capability, Resource, CourseOfAction and ValueStream")

var fieldsCreateElementRequest = []string{"id", "model_id", "type", "name", "description", "properties", "parent_id"}

func decodeCreateElementRequest(d *runtime.Decoder, obj *runtime.Object, m *v1.CreateElementRequest) {
	d.Known(obj, fieldsCreateElementRequest)
	if v := obj.Get("id"); v != nil && v.Kind != runtime.KindNull {
		if x, ok := d.String(v, "id"); ok {
			m.Id = x
		}
	}
	if v := obj.Get("model_id"); v != nil && v.Kind != runtime.KindNull {
		if x, ok := d.String(v, "model_id"); ok {
			m.ModelId = x
		}
	}
	if v := obj.Get("type"); v != nil && v.Kind != runtime.KindNull {
		if x, ok := d.Enum(v, "type", enumElementType); ok {
			m.Type = v1.ElementType(x)
		}
	} else {
		d.Missing("type")
	}
	if v := obj.Get("name"); v != nil && v.Kind != runtime.KindNull {
		if x, ok := d.String(v, "name"); ok {
			d.MinLength("name", x, 1)
			d.MaxLength("name", x, 200)
			m.Name = x
		}
	} else {
		d.Missing("name")
	}
	if v := obj.Get("description"); v != nil && v.Kind != runtime.KindNull {
		if x, ok := d.String(v, "description"); ok {
			d.MaxLength("description", x, 4000)
			m.Description = x
		}
	}
	if v := obj.Get("properties"); v != nil && v.Kind != runtime.KindNull {
		if o, ok := d.Object(v, "properties"); ok {
			m.Properties = make(map[string]string, len(o.Keys))
			d.Enter("properties")
			for i, k := range o.Keys {
				mk := k
				if x, ok := d.String(o.Vals[i], k); ok {
					m.Properties[mk] = x
				}
			}
			d.Leave()
		}
	}
	if v := obj.Get("parent_id"); v != nil && v.Kind != runtime.KindNull {
		if x, ok := d.String(v, "parent_id"); ok {
			m.ParentId = x
		}
	}
}

func enrichArchitectureServiceCreateElementRequest(c *runtime.Call, h archimatev1mcpwrite.ArchitectureServiceHandler, root proto.Message, m *v1.CreateElementRequest) error {
	if m.Id == "" {
		m.Id = c.UUIDv7()
	}
	{
		switch m.GetType() {
		case v1.ElementType_ELEMENT_TYPE_CAPABILITY, v1.ElementType_ELEMENT_TYPE_RESOURCE, v1.ElementType_ELEMENT_TYPE_COURSE_OF_ACTION, v1.ElementType_ELEMENT_TYPE_VALUE_STREAM:
			m.Layer = v1.Layer_LAYER_STRATEGY
		case v1.ElementType_ELEMENT_TYPE_BUSINESS_PROCESS, v1.ElementType_ELEMENT_TYPE_BUSINESS_SERVICE, v1.ElementType_ELEMENT_TYPE_BUSINESS_ACTOR:
			m.Layer = v1.Layer_LAYER_BUSINESS
		case v1.ElementType_ELEMENT_TYPE_APPLICATION_COMPONENT, v1.ElementType_ELEMENT_TYPE_APPLICATION_SERVICE, v1.ElementType_ELEMENT_TYPE_APPLICATION_INTERFACE, v1.ElementType_ELEMENT_TYPE_DATA_OBJECT:
			m.Layer = v1.Layer_LAYER_APPLICATION
		case v1.ElementType_ELEMENT_TYPE_NODE, v1.ElementType_ELEMENT_TYPE_DEVICE, v1.ElementType_ELEMENT_TYPE_SYSTEM_SOFTWARE:
			m.Layer = v1.Layer_LAYER_TECHNOLOGY
		}
	}
	if m.Meta == nil {
		m.Meta = new(v1.MessageMeta)
	}
	if err := enrichArchitectureServiceMessageMeta(c, h, root, m.Meta); err != nil {
		return err
	}
	if m.ModelId == "" {
		v, err := h.ResolveActiveModel(c.Ctx, root)
		if err != nil {
			return c.ResolverError("model_id", err)
		}
		m.ModelId = v
	}
	return nil
}

func enrichArchitectureServiceMessageMeta(c *runtime.Call, h archimatev1mcpwrite.ArchitectureServiceHandler, root proto.Message, m *v1.MessageMeta) error {
	{
		m.MessageId = c.UUIDv4()
	}
	{
		v, err := c.ContextValue(runtime.ContextCorrelationID, "correlation_id")
		if err != nil {
			return err
		}
		m.CorrelationId = v
	}
	{
		v, err := c.ContextValue(runtime.ContextTenantID, "tenant_id")
		if err != nil {
			return err
		}
		m.TenantId = v
	}
	{
		m.OccurredAt = timestamppb.New(c.Now())
	}
	{
		v, err := c.ContextValue(runtime.ContextClientRequestID, "client_request_id")
		if err != nil {
			return err
		}
		m.ClientRequestId = v
	}
	{
		v, err := c.ContextValue(runtime.ContextPrincipalID, "principal_id")
		if err != nil {
			return err
		}
		m.PrincipalId = v
	}
	{
		v, err := c.ContextValue(runtime.ContextTraceParent, "traceparent")
		if err != nil {
			return err
		}
		m.Traceparent = v
	}
	return nil
}
