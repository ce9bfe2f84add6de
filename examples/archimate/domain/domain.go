// Package domain is an in-memory Transformation architecture repository: the
// authoritative write service behind the reference example's MCP tools. It
// validates like a real domain (uniqueness, references, optimistic
// versioning) and answers with gRPC status errors or rich envelope errors.
package domain

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	archimatev1 "github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/gen/archimate/v1"
	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/gen/archimate/v1/archimatev1mcpwrite"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
)

// Repository implements archimatev1mcpwrite.ArchitectureServiceHandler.
type Repository struct {
	mu            sync.Mutex
	elements      map[string]*archimatev1.Element // by id
	relationships map[string]*archimatev1.Relationship
	tenantOf      map[string]string // element or relationship id -> tenant
	received      []proto.Message
}

var _ archimatev1mcpwrite.ArchitectureServiceHandler = (*Repository)(nil)

// New returns an empty repository.
func New() *Repository {
	return &Repository{
		elements:      map[string]*archimatev1.Element{},
		relationships: map[string]*archimatev1.Relationship{},
		tenantOf:      map[string]string{},
	}
}

// Received returns copies of every request the domain has accepted for
// processing, in order (what the MCP layer produced from agent input).
func (r *Repository) Received() []proto.Message {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]proto.Message, len(r.received))
	for i, m := range r.received {
		out[i] = proto.Clone(m)
	}
	return out
}

func (r *Repository) record(m proto.Message) { r.received = append(r.received, proto.Clone(m)) }

// ActiveModel is the model a tenant writes to unless the agent names one.
func ActiveModel(tenant string) string { return "model-" + tenant + "-main" }

// ResolveActiveModel supplies model_id when the agent omits it.
func (r *Repository) ResolveActiveModel(ctx context.Context, _ proto.Message) (string, error) {
	rc, ok := runtime.RequestContextFrom(ctx)
	if !ok || rc.TenantID == "" {
		return "", status.Error(codes.PermissionDenied, "no tenant in the request context")
	}
	return ActiveModel(rc.TenantID), nil
}

// ResolveCurrentVersion reads the version an update applies to.
func (r *Repository) ResolveCurrentVersion(_ context.Context, in proto.Message) (int32, error) {
	req, ok := in.(*archimatev1.UpdateElementRequest)
	if !ok {
		return 0, status.Error(codes.Internal, "current_version resolves for updateElement only")
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	e, ok := r.elements[req.GetId()]
	if !ok || r.tenantOf[req.GetId()] != req.GetMeta().GetTenantId() {
		return 0, r.notFound("id", req.GetId(), req.GetMeta().GetTenantId())
	}
	return e.GetVersion(), nil
}

// ResolveSourceElementType reads the type of the relationship's source, so
// the generated pair check can refuse invalid relationships before the write.
func (r *Repository) ResolveSourceElementType(_ context.Context, in proto.Message) (archimatev1.ElementType, error) {
	req, ok := in.(*archimatev1.CreateRelationshipRequest)
	if !ok {
		return 0, status.Error(codes.Internal, "source_element_type resolves for createRelationship only")
	}
	return r.elementType("source_id", req.GetSourceId(), req.GetMeta().GetTenantId())
}

// ResolveTargetElementType reads the type of the relationship's target.
func (r *Repository) ResolveTargetElementType(_ context.Context, in proto.Message) (archimatev1.ElementType, error) {
	req, ok := in.(*archimatev1.CreateRelationshipRequest)
	if !ok {
		return 0, status.Error(codes.Internal, "target_element_type resolves for createRelationship only")
	}
	return r.elementType("target_id", req.GetTargetId(), req.GetMeta().GetTenantId())
}

func (r *Repository) elementType(field, id, tenant string) (archimatev1.ElementType, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	e, ok := r.elements[id]
	if !ok || r.tenantOf[id] != tenant {
		return 0, r.notFound(field, id, tenant)
	}
	return e.GetType(), nil
}

// CreateElement adds an element; names are unique per model.
func (r *Repository) CreateElement(_ context.Context, req *archimatev1.CreateElementRequest) (*archimatev1.CreateElementResponse, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	tenant := req.GetMeta().GetTenantId()
	if _, dup := r.elements[req.GetId()]; dup {
		return nil, status.Errorf(codes.AlreadyExists, "element id %s already exists", req.GetId())
	}
	if e := r.byName(tenant, req.GetModelId(), req.GetName()); e != nil {
		return nil, &runtime.ErrorEntry{
			Code:    "DUPLICATE_NAME",
			Message: fmt.Sprintf("Element '%s' already exists in this model", req.GetName()),
			Field:   "name",
			Suggestions: &runtime.Suggestions{
				Hint: "Use updateElement to modify the existing element, or choose a different name",
				Extra: map[string]any{
					"existing_element": map[string]any{"id": e.GetId(), "type": aliasOf(e.GetType())},
					"alternatives":     []string{req.GetName() + "2", req.GetName() + "V2", "New" + req.GetName()},
				},
			},
		}
	}
	if p := req.GetParentId(); p != "" {
		if _, ok := r.elements[p]; !ok || r.tenantOf[p] != tenant {
			return nil, r.notFound("parent_id", p, tenant)
		}
	}
	r.record(req)
	e := &archimatev1.Element{
		Id: req.GetId(), ModelId: req.GetModelId(), Type: req.GetType(), Layer: req.GetLayer(),
		Name: req.GetName(), Description: req.GetDescription(), Properties: req.GetProperties(),
		ParentId: req.GetParentId(), Version: 1,
	}
	r.elements[e.GetId()] = e
	r.tenantOf[e.GetId()] = tenant
	return &archimatev1.CreateElementResponse{Element: proto.Clone(e).(*archimatev1.Element)}, nil
}

// CreateRelationship connects two elements of the same tenant.
func (r *Repository) CreateRelationship(_ context.Context, req *archimatev1.CreateRelationshipRequest) (*archimatev1.CreateRelationshipResponse, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	tenant := req.GetMeta().GetTenantId()
	if _, ok := r.elements[req.GetSourceId()]; !ok || r.tenantOf[req.GetSourceId()] != tenant {
		return nil, r.notFound("source_id", req.GetSourceId(), tenant)
	}
	if _, ok := r.elements[req.GetTargetId()]; !ok || r.tenantOf[req.GetTargetId()] != tenant {
		return nil, r.notFound("target_id", req.GetTargetId(), tenant)
	}
	if _, dup := r.relationships[req.GetId()]; dup {
		return nil, status.Errorf(codes.AlreadyExists, "relationship id %s already exists", req.GetId())
	}
	r.record(req)
	rel := &archimatev1.Relationship{
		Id: req.GetId(), Type: req.GetType(), SourceId: req.GetSourceId(), TargetId: req.GetTargetId(),
		Name: req.GetName(), Description: req.GetDescription(),
	}
	r.relationships[rel.GetId()] = rel
	r.tenantOf[rel.GetId()] = tenant
	return &archimatev1.CreateRelationshipResponse{Relationship: proto.Clone(rel).(*archimatev1.Relationship)}, nil
}

// UpdateElement applies a partial update when the expected version is current;
// otherwise it answers Aborted so the caller re-reads and retries.
func (r *Repository) UpdateElement(_ context.Context, req *archimatev1.UpdateElementRequest) (*archimatev1.UpdateElementResponse, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	tenant := req.GetMeta().GetTenantId()
	e, ok := r.elements[req.GetId()]
	if !ok || r.tenantOf[req.GetId()] != tenant {
		return nil, r.notFound("id", req.GetId(), tenant)
	}
	if e.GetVersion() != req.GetExpectedVersion() {
		return nil, status.Errorf(codes.Aborted, "element %s is at version %d, not %d", req.GetId(), e.GetVersion(), req.GetExpectedVersion())
	}
	r.record(req)
	prev := e.GetVersion()
	if req.Name != nil {
		e.Name = req.GetName()
	}
	if req.Description != nil {
		e.Description = req.GetDescription()
	}
	if len(req.GetProperties()) > 0 {
		if e.Properties == nil {
			e.Properties = map[string]string{}
		}
		for k, v := range req.GetProperties() {
			e.Properties[k] = v
		}
	}
	e.Version++
	return &archimatev1.UpdateElementResponse{Element: proto.Clone(e).(*archimatev1.Element), PreviousVersion: prev, NewVersion: e.GetVersion()}, nil
}

// DeleteElement removes an element and, with cascade, its relationships.
func (r *Repository) DeleteElement(_ context.Context, req *archimatev1.DeleteElementRequest) (*archimatev1.DeleteElementResponse, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	tenant := req.GetMeta().GetTenantId()
	if _, ok := r.elements[req.GetId()]; !ok || r.tenantOf[req.GetId()] != tenant {
		return nil, r.notFound("id", req.GetId(), tenant)
	}
	var attached []string
	for id, rel := range r.relationships {
		if rel.GetSourceId() == req.GetId() || rel.GetTargetId() == req.GetId() {
			attached = append(attached, id)
		}
	}
	sort.Strings(attached)
	if len(attached) > 0 && !req.GetCascade() {
		return nil, status.Errorf(codes.FailedPrecondition, "element %s has %d relationships; delete with cascade true", req.GetId(), len(attached))
	}
	r.record(req)
	for _, id := range attached {
		delete(r.relationships, id)
		delete(r.tenantOf, id)
	}
	delete(r.elements, req.GetId())
	delete(r.tenantOf, req.GetId())
	return &archimatev1.DeleteElementResponse{Id: req.GetId(), DeletedRelationships: attached}, nil
}

// CreateCapability creates a Capability element with its profile.
func (r *Repository) CreateCapability(_ context.Context, req *archimatev1.CreateCapabilityRequest) (*archimatev1.CreateCapabilityResponse, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	tenant := req.GetMeta().GetTenantId()
	if e := r.byName(tenant, req.GetModelId(), req.GetName()); e != nil {
		return nil, status.Errorf(codes.AlreadyExists, "Element '%s' already exists in this model", req.GetName())
	}
	r.record(req)
	e := &archimatev1.Element{
		Id: req.GetId(), ModelId: req.GetModelId(), Type: req.GetType(), Layer: req.GetLayer(),
		Name: req.GetName(), Description: req.GetDescription(), Version: 1,
		Properties: map[string]string{
			"owner":       req.GetProfile().GetOwner(),
			"criticality": req.GetProfile().GetCriticality().String(),
			"lifecycle":   req.GetProfile().GetLifecycle().String(),
		},
	}
	r.elements[e.GetId()] = e
	r.tenantOf[e.GetId()] = tenant
	return &archimatev1.CreateCapabilityResponse{Capability: &archimatev1.Capability{
		Id: e.GetId(), Type: "Capability", Name: e.GetName(),
		Layer: strings.ToLower(strings.TrimPrefix(req.GetLayer().String(), "LAYER_")), Revision: 1,
		Profile: proto.Clone(req.GetProfile()).(*archimatev1.CapabilityProfile),
	}}, nil
}

func (r *Repository) byName(tenant, model, name string) *archimatev1.Element {
	for id, e := range r.elements {
		if r.tenantOf[id] == tenant && e.GetModelId() == model && strings.EqualFold(e.GetName(), name) {
			return e
		}
	}
	return nil
}

// notFound answers ELEMENT_NOT_FOUND with the tenant's most similar elements.
func (r *Repository) notFound(field, id, tenant string) error {
	var similar []map[string]any
	ids := make([]string, 0, len(r.elements))
	for eid := range r.elements {
		if r.tenantOf[eid] == tenant {
			ids = append(ids, eid)
		}
	}
	sort.Strings(ids)
	for _, eid := range ids {
		if len(similar) == 3 {
			break
		}
		e := r.elements[eid]
		similar = append(similar, map[string]any{"id": e.GetId(), "name": e.GetName(), "type": aliasOf(e.GetType())})
	}
	s := &runtime.Suggestions{Hint: "Use an id returned by createElement; the similar elements are the most recent in your model"}
	if len(similar) > 0 {
		s.Extra = map[string]any{"similar_elements": similar}
	}
	return &runtime.ErrorEntry{Code: "ELEMENT_NOT_FOUND", Message: fmt.Sprintf("Element '%s' not found", id), Field: field, Suggestions: s}
}

// CreateCapabilityStructure creates a capability, its value streams
// (Realization from the capability) and sub-capabilities (Composition) in
// one step: all or nothing. Ids derive from the capability id, so a retried
// request names the same elements.
func (r *Repository) CreateCapabilityStructure(_ context.Context, req *archimatev1.CreateCapabilityStructureRequest) (*archimatev1.CreateCapabilityStructureResponse, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	tenant, model := req.GetMeta().GetTenantId(), req.GetModelId()
	names := append([]string{req.GetName()}, append(append([]string(nil), req.GetValueStreams()...), req.GetSubCapabilities()...)...)
	if err := r.checkNew(tenant, model, names); err != nil {
		return nil, err
	}
	r.record(req)
	capability := r.put(tenant, &archimatev1.Element{Id: req.GetId(), ModelId: model, Type: archimatev1.ElementType_ELEMENT_TYPE_CAPABILITY,
		Layer: archimatev1.Layer_LAYER_STRATEGY, Name: req.GetName(), Description: req.GetDescription(), Version: 1})
	resp := &archimatev1.CreateCapabilityStructureResponse{Capability: capability}
	for i, n := range req.GetValueStreams() {
		vs := r.put(tenant, &archimatev1.Element{Id: fmt.Sprintf("%s-vs-%d", req.GetId(), i+1), ModelId: model, Type: archimatev1.ElementType_ELEMENT_TYPE_VALUE_STREAM,
			Layer: archimatev1.Layer_LAYER_STRATEGY, Name: n, Version: 1})
		resp.CreatedElements = append(resp.CreatedElements, vs)
		resp.CreatedRelationships = append(resp.CreatedRelationships, r.link(tenant, vs.GetId()+"-rel", archimatev1.RelationshipType_RELATIONSHIP_TYPE_REALIZATION, capability.GetId(), vs.GetId()))
	}
	for i, n := range req.GetSubCapabilities() {
		sub := r.put(tenant, &archimatev1.Element{Id: fmt.Sprintf("%s-sub-%d", req.GetId(), i+1), ModelId: model, Type: archimatev1.ElementType_ELEMENT_TYPE_CAPABILITY,
			Layer: archimatev1.Layer_LAYER_STRATEGY, Name: n, ParentId: capability.GetId(), Version: 1})
		resp.CreatedElements = append(resp.CreatedElements, sub)
		resp.CreatedRelationships = append(resp.CreatedRelationships, r.link(tenant, sub.GetId()+"-rel", archimatev1.RelationshipType_RELATIONSHIP_TYPE_COMPOSITION, capability.GetId(), sub.GetId()))
	}
	return resp, nil
}

// AddComponentToCapability creates an application component realizing a
// capability and the application services it realizes, in one step.
func (r *Repository) AddComponentToCapability(_ context.Context, req *archimatev1.AddComponentToCapabilityRequest) (*archimatev1.AddComponentToCapabilityResponse, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	tenant, model := req.GetMeta().GetTenantId(), req.GetModelId()
	c, ok := r.elements[req.GetCapabilityId()]
	if !ok || r.tenantOf[req.GetCapabilityId()] != tenant {
		return nil, r.notFound("capability_id", req.GetCapabilityId(), tenant)
	}
	if c.GetType() != archimatev1.ElementType_ELEMENT_TYPE_CAPABILITY {
		return nil, &runtime.ErrorEntry{Code: runtime.CodeInvalidRelationship, Field: "capability_id",
			Message:     fmt.Sprintf("Element '%s' is a %s, not a Capability", c.GetName(), aliasOf(c.GetType())),
			Suggestions: &runtime.Suggestions{Hint: "Pass the id of a Capability element (getElementTypes lists the types)"}}
	}
	if err := r.checkNew(tenant, model, append([]string{req.GetComponentName()}, req.GetServices()...)); err != nil {
		return nil, err
	}
	r.record(req)
	comp := r.put(tenant, &archimatev1.Element{Id: req.GetId(), ModelId: model, Type: archimatev1.ElementType_ELEMENT_TYPE_APPLICATION_COMPONENT,
		Layer: archimatev1.Layer_LAYER_APPLICATION, Name: req.GetComponentName(), Description: req.GetComponentDescription(), Version: 1})
	resp := &archimatev1.AddComponentToCapabilityResponse{Component: comp}
	resp.CreatedRelationships = append(resp.CreatedRelationships, r.link(tenant, comp.GetId()+"-rel", archimatev1.RelationshipType_RELATIONSHIP_TYPE_REALIZATION, comp.GetId(), c.GetId()))
	for i, n := range req.GetServices() {
		svc := r.put(tenant, &archimatev1.Element{Id: fmt.Sprintf("%s-svc-%d", req.GetId(), i+1), ModelId: model, Type: archimatev1.ElementType_ELEMENT_TYPE_APPLICATION_SERVICE,
			Layer: archimatev1.Layer_LAYER_APPLICATION, Name: n, Version: 1})
		resp.CreatedElements = append(resp.CreatedElements, svc)
		resp.CreatedRelationships = append(resp.CreatedRelationships, r.link(tenant, svc.GetId()+"-rel", archimatev1.RelationshipType_RELATIONSHIP_TYPE_REALIZATION, comp.GetId(), svc.GetId()))
	}
	return resp, nil
}

// checkNew refuses the whole template when any name is taken or repeated.
func (r *Repository) checkNew(tenant, model string, names []string) error {
	seen := map[string]bool{}
	for _, n := range names {
		if e := r.byName(tenant, model, n); e != nil || seen[strings.ToLower(n)] {
			return status.Errorf(codes.AlreadyExists, "Element '%s' already exists in this model; nothing was created", n)
		}
		seen[strings.ToLower(n)] = true
	}
	return nil
}

func (r *Repository) put(tenant string, e *archimatev1.Element) *archimatev1.Element {
	r.elements[e.GetId()] = e
	r.tenantOf[e.GetId()] = tenant
	return proto.Clone(e).(*archimatev1.Element)
}

func (r *Repository) link(tenant, id string, t archimatev1.RelationshipType, src, dst string) *archimatev1.Relationship {
	rel := &archimatev1.Relationship{Id: id, Type: t, SourceId: src, TargetId: dst}
	r.relationships[id] = rel
	r.tenantOf[id] = tenant
	return proto.Clone(rel).(*archimatev1.Relationship)
}
