// Package domain is an in-memory Transformation architecture repository: the
// authoritative write service behind the reference example's MCP tools. It
// validates like a real domain (uniqueness, references, optimistic
// versioning) and answers with gRPC status errors or rich envelope errors.
package domain

import (
	"context"
	"fmt"
	"strings"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	archimatev1 "github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/gen/archimate/v1"
	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/gen/archimate/v1/archimatev1mcpwrite"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
)

var _ archimatev1mcpwrite.ArchitectureServiceHandler = (*Repository)(nil)

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
	sp := r.read(req.GetMeta().GetTenantId())
	e, ok := sp.elements[req.GetId()]
	if !ok {
		return 0, sp.notFound("id", req.GetId())
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
	sp := r.read(tenant)
	e, ok := sp.elements[id]
	if !ok {
		return 0, sp.notFound(field, id)
	}
	return e.GetType(), nil
}

// CreateElement adds an element; names are unique per model.
func (r *Repository) CreateElement(_ context.Context, req *archimatev1.CreateElementRequest) (*archimatev1.CreateElementResponse, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	sp := r.read(req.GetMeta().GetTenantId())
	if _, dup := sp.elements[req.GetId()]; dup {
		return nil, elementExists(req.GetId())
	}
	if e := sp.byName(req.GetModelId(), req.GetName()); e != nil {
		return nil, duplicateName(req.GetName(), e)
	}
	if p := req.GetParentId(); p != "" {
		if _, ok := sp.elements[p]; !ok {
			return nil, sp.notFound("parent_id", p)
		}
	}
	r.record(req)
	sp = r.space(req.GetMeta().GetTenantId())
	e := sp.put(&archimatev1.Element{
		Id: req.GetId(), ModelId: req.GetModelId(), Type: req.GetType(), Layer: req.GetLayer(),
		Name: req.GetName(), Description: req.GetDescription(), Properties: req.GetProperties(),
		ParentId: req.GetParentId(), Version: 1,
	})
	if p := req.GetParentId(); p != "" {
		// parent_id is the parent of a composition: the parent is
		// composed of the new element, a relationship like any other
		// (deleting the parent removes it). Its id derives from the
		// element's, so a retried request names the same relationship.
		sp.link(compositionID(e.GetId()), archimatev1.RelationshipType_RELATIONSHIP_TYPE_COMPOSITION, p, e.GetId())
	}
	return &archimatev1.CreateElementResponse{Element: e}, nil
}

// compositionID is the id of the Composition createElement makes from an
// element's parent_id.
func compositionID(element string) string { return element + "-composition" }

// CreateRelationship connects two elements of the same tenant.
func (r *Repository) CreateRelationship(_ context.Context, req *archimatev1.CreateRelationshipRequest) (*archimatev1.CreateRelationshipResponse, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	sp := r.read(req.GetMeta().GetTenantId())
	if _, ok := sp.elements[req.GetSourceId()]; !ok {
		return nil, sp.notFound("source_id", req.GetSourceId())
	}
	if _, ok := sp.elements[req.GetTargetId()]; !ok {
		return nil, sp.notFound("target_id", req.GetTargetId())
	}
	if _, dup := sp.relationships[req.GetId()]; dup {
		return nil, status.Errorf(codes.AlreadyExists, "relationship id %s already exists", req.GetId())
	}
	r.record(req)
	rel := &archimatev1.Relationship{
		Id: req.GetId(), Type: req.GetType(), SourceId: req.GetSourceId(), TargetId: req.GetTargetId(),
		Name: req.GetName(), Description: req.GetDescription(),
	}
	r.space(req.GetMeta().GetTenantId()).relationships[rel.GetId()] = rel
	rel = proto.Clone(rel).(*archimatev1.Relationship)
	return &archimatev1.CreateRelationshipResponse{Relationship: rel}, nil
}

// UpdateElement applies a partial update when the expected version is current;
// otherwise it answers Aborted so the caller re-reads and retries.
func (r *Repository) UpdateElement(_ context.Context, req *archimatev1.UpdateElementRequest) (*archimatev1.UpdateElementResponse, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	sp := r.read(req.GetMeta().GetTenantId())
	e, ok := sp.elements[req.GetId()]
	if !ok {
		return nil, sp.notFound("id", req.GetId())
	}
	if e.GetVersion() != req.GetExpectedVersion() {
		return nil, status.Errorf(codes.Aborted, "element %s is at version %d, not %d", req.GetId(), e.GetVersion(), req.GetExpectedVersion())
	}
	if req.Name != nil {
		if other := sp.byName(e.GetModelId(), req.GetName()); other != nil && other.GetId() != e.GetId() {
			return nil, duplicateName(req.GetName(), other)
		}
	}
	r.record(req)
	prev := e.GetVersion()
	if req.Name != nil {
		delete(sp.names, keyOf(e.GetModelId(), e.GetName()))
		e.Name = req.GetName()
		sp.names[keyOf(e.GetModelId(), e.GetName())] = e.GetId()
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
	sp := r.read(req.GetMeta().GetTenantId())
	e, ok := sp.elements[req.GetId()]
	if !ok {
		return nil, sp.notFound("id", req.GetId())
	}
	attached := sp.attached(req.GetId())
	if len(attached) > 0 && !req.GetCascade() {
		return nil, status.Errorf(codes.FailedPrecondition, "element %s has %d relationships; delete with cascade true", req.GetId(), len(attached))
	}
	r.record(req)
	for _, id := range attached {
		delete(sp.relationships, id)
	}
	for _, child := range sp.elements {
		if child.GetParentId() == req.GetId() { // its composition went with the parent
			child.ParentId = ""
			child.Version++
		}
	}
	if k := keyOf(e.GetModelId(), e.GetName()); sp.names[k] == e.GetId() {
		delete(sp.names, k)
	}
	delete(sp.elements, req.GetId())
	delete(sp.born, req.GetId())
	return &archimatev1.DeleteElementResponse{Id: req.GetId(), DeletedRelationships: attached}, nil
}

// CreateCapability creates a Capability element with its profile, which it
// checks itself (checkProfile). The agent may choose the id: one the tenant already uses is refused, never
// overwritten.
func (r *Repository) CreateCapability(_ context.Context, req *archimatev1.CreateCapabilityRequest) (*archimatev1.CreateCapabilityResponse, error) {
	if err := checkProfile(req.GetProfile()); err != nil {
		return nil, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	sp := r.read(req.GetMeta().GetTenantId())
	if _, dup := sp.elements[req.GetId()]; dup {
		return nil, elementExists(req.GetId())
	}
	if e := sp.byName(req.GetModelId(), req.GetName()); e != nil {
		return nil, status.Errorf(codes.AlreadyExists, "Element '%s' already exists in this model", req.GetName())
	}
	r.record(req)
	r.space(req.GetMeta().GetTenantId()).put(&archimatev1.Element{
		Id: req.GetId(), ModelId: req.GetModelId(), Type: req.GetType(), Layer: req.GetLayer(),
		Name: req.GetName(), Description: req.GetDescription(), Version: 1,
		Properties: map[string]string{
			"owner":       req.GetProfile().GetOwner(),
			"criticality": req.GetProfile().GetCriticality().String(),
			"lifecycle":   req.GetProfile().GetLifecycle().String(),
		},
	})
	return &archimatev1.CreateCapabilityResponse{Capability: &archimatev1.Capability{
		Id: req.GetId(), Type: "Capability", Name: req.GetName(),
		Layer: strings.ToLower(strings.TrimPrefix(req.GetLayer().String(), "LAYER_")), Revision: 1,
		Profile: proto.Clone(req.GetProfile()).(*archimatev1.CapabilityProfile),
	}}, nil
}

// CreateCapabilityStructure creates a capability, its value streams
// (Realization from the capability) and sub-capabilities (Composition) in
// one step: all or nothing. Ids derive from the capability id, so a retried
// request names the same elements.
func (r *Repository) CreateCapabilityStructure(_ context.Context, req *archimatev1.CreateCapabilityStructureRequest) (*archimatev1.CreateCapabilityStructureResponse, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	tenant, model := req.GetMeta().GetTenantId(), req.GetModelId()
	sp := r.read(tenant)
	names := append([]string{req.GetName()}, append(append([]string(nil), req.GetValueStreams()...), req.GetSubCapabilities()...)...)
	if err := sp.checkNew(model, names); err != nil {
		return nil, err
	}
	ids := []string{req.GetId()}
	for i := range req.GetValueStreams() {
		ids = append(ids, fmt.Sprintf("%s-vs-%d", req.GetId(), i+1))
	}
	for i := range req.GetSubCapabilities() {
		ids = append(ids, fmt.Sprintf("%s-sub-%d", req.GetId(), i+1))
	}
	if err := sp.checkFreeIDs(ids); err != nil {
		return nil, err
	}
	r.record(req)
	sp = r.space(tenant)
	capability := sp.put(&archimatev1.Element{Id: req.GetId(), ModelId: model, Type: archimatev1.ElementType_ELEMENT_TYPE_CAPABILITY,
		Layer: archimatev1.Layer_LAYER_STRATEGY, Name: req.GetName(), Description: req.GetDescription(), Version: 1})
	resp := &archimatev1.CreateCapabilityStructureResponse{Capability: capability}
	for i, n := range req.GetValueStreams() {
		vs := sp.put(&archimatev1.Element{Id: fmt.Sprintf("%s-vs-%d", req.GetId(), i+1), ModelId: model, Type: archimatev1.ElementType_ELEMENT_TYPE_VALUE_STREAM,
			Layer: archimatev1.Layer_LAYER_STRATEGY, Name: n, Version: 1})
		resp.CreatedElements = append(resp.CreatedElements, vs)
		resp.CreatedRelationships = append(resp.CreatedRelationships, sp.link(vs.GetId()+"-rel", archimatev1.RelationshipType_RELATIONSHIP_TYPE_REALIZATION, capability.GetId(), vs.GetId()))
	}
	for i, n := range req.GetSubCapabilities() {
		sub := sp.put(&archimatev1.Element{Id: fmt.Sprintf("%s-sub-%d", req.GetId(), i+1), ModelId: model, Type: archimatev1.ElementType_ELEMENT_TYPE_CAPABILITY,
			Layer: archimatev1.Layer_LAYER_STRATEGY, Name: n, ParentId: capability.GetId(), Version: 1})
		resp.CreatedElements = append(resp.CreatedElements, sub)
		resp.CreatedRelationships = append(resp.CreatedRelationships, sp.link(sub.GetId()+"-rel", archimatev1.RelationshipType_RELATIONSHIP_TYPE_COMPOSITION, capability.GetId(), sub.GetId()))
	}
	return resp, nil
}

// AddComponentToCapability creates an application component realizing a
// capability and the application services it realizes, in one step.
func (r *Repository) AddComponentToCapability(_ context.Context, req *archimatev1.AddComponentToCapabilityRequest) (*archimatev1.AddComponentToCapabilityResponse, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	tenant, model := req.GetMeta().GetTenantId(), req.GetModelId()
	sp := r.read(tenant)
	c, ok := sp.elements[req.GetCapabilityId()]
	if !ok {
		return nil, sp.notFound("capability_id", req.GetCapabilityId())
	}
	if c.GetType() != archimatev1.ElementType_ELEMENT_TYPE_CAPABILITY {
		return nil, &runtime.ErrorEntry{Code: runtime.CodeInvalidRelationship, Field: "capability_id",
			Message:     fmt.Sprintf("Element '%s' is a %s, not a Capability", c.GetName(), aliasOf(c.GetType())),
			Suggestions: &runtime.Suggestions{Hint: "Pass the id of a Capability element (getElementTypes lists the types)"}}
	}
	if err := sp.checkNew(model, append([]string{req.GetComponentName()}, req.GetServices()...)); err != nil {
		return nil, err
	}
	ids := []string{req.GetId()}
	for i := range req.GetServices() {
		ids = append(ids, fmt.Sprintf("%s-svc-%d", req.GetId(), i+1))
	}
	if err := sp.checkFreeIDs(ids); err != nil {
		return nil, err
	}
	r.record(req)
	sp = r.space(tenant)
	comp := sp.put(&archimatev1.Element{Id: req.GetId(), ModelId: model, Type: archimatev1.ElementType_ELEMENT_TYPE_APPLICATION_COMPONENT,
		Layer: archimatev1.Layer_LAYER_APPLICATION, Name: req.GetComponentName(), Description: req.GetComponentDescription(), Version: 1})
	resp := &archimatev1.AddComponentToCapabilityResponse{Component: comp}
	resp.CreatedRelationships = append(resp.CreatedRelationships, sp.link(comp.GetId()+"-rel", archimatev1.RelationshipType_RELATIONSHIP_TYPE_REALIZATION, comp.GetId(), c.GetId()))
	for i, n := range req.GetServices() {
		svc := sp.put(&archimatev1.Element{Id: fmt.Sprintf("%s-svc-%d", req.GetId(), i+1), ModelId: model, Type: archimatev1.ElementType_ELEMENT_TYPE_APPLICATION_SERVICE,
			Layer: archimatev1.Layer_LAYER_APPLICATION, Name: n, Version: 1})
		resp.CreatedElements = append(resp.CreatedElements, svc)
		resp.CreatedRelationships = append(resp.CreatedRelationships, sp.link(svc.GetId()+"-rel", archimatev1.RelationshipType_RELATIONSHIP_TYPE_REALIZATION, comp.GetId(), svc.GetId()))
	}
	return resp, nil
}
