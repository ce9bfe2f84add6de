// Package domain is an in-memory Transformation architecture repository: the
// authoritative write service behind the reference example's MCP tools. It
// validates like a real domain (uniqueness, references, optimistic
// versioning) and answers with gRPC status errors or rich envelope errors.
package domain

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	archimatev1 "github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/gen/archimate/v1"
	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/gen/archimate/v1/archimatev1mcpwrite"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/suggest"
)

// Repository implements archimatev1mcpwrite.ArchitectureServiceHandler.
// Every tenant has its own id space: an id taken in one tenant does not
// exist in another, so no answer (not found, already exists, similar
// elements) tells one tenant anything about another's ids, and no write of
// one tenant can reach another's elements.
type Repository struct {
	mu       sync.Mutex
	tenants  map[string]*space
	received []proto.Message
	items    itemKeys // the keys of batch items written (bulk.go)
}

// space is one tenant's elements and relationships.
type space struct {
	elements      map[string]*archimatev1.Element // by id
	relationships map[string]*archimatev1.Relationship
	names         map[nameKey]string // (model, folded name) -> element id
	born          map[string]uint64  // element id -> creation number (births)
}

// nameKey indexes element names per model, case-insensitively, so a create
// checks uniqueness without scanning the tenant's elements.
type nameKey struct{ model, name string }

func keyOf(model, name string) nameKey {
	return nameKey{model: model, name: strings.ToLower(strings.ToUpper(name))}
}

var _ archimatev1mcpwrite.ArchitectureServiceHandler = (*Repository)(nil)

// New returns an empty repository.
func New() *Repository {
	return &Repository{tenants: map[string]*space{}}
}

// empty is the space of a tenant that has written nothing yet; reads use it
// so that looking up ids never allocates a space.
var empty = &space{}

// space returns the tenant's space, made on first write.
func (r *Repository) space(tenant string) *space {
	sp, ok := r.tenants[tenant]
	if !ok {
		sp = &space{elements: map[string]*archimatev1.Element{}, relationships: map[string]*archimatev1.Relationship{}, names: map[nameKey]string{}, born: map[string]uint64{}}
		r.tenants[tenant] = sp
	}
	return sp
}

// read returns the tenant's space without making one.
func (r *Repository) read(tenant string) *space {
	if sp, ok := r.tenants[tenant]; ok {
		return sp
	}
	return empty
}

// Element returns a copy of the tenant's element id, for inspection.
func (r *Repository) Element(tenant, id string) (*archimatev1.Element, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	e, ok := r.read(tenant).elements[id]
	if !ok {
		return nil, false
	}
	return proto.Clone(e).(*archimatev1.Element), true
}

// Relationship returns a copy of the tenant's relationship id, for inspection.
func (r *Repository) Relationship(tenant, id string) (*archimatev1.Relationship, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	rel, ok := r.read(tenant).relationships[id]
	if !ok {
		return nil, false
	}
	return proto.Clone(rel).(*archimatev1.Relationship), true
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

// elementExists answers a create whose id the tenant already uses: a create
// never overwrites. Only the tenant's own ids are checked, so the answer
// says nothing about other tenants.
func elementExists(id string) error {
	return status.Errorf(codes.AlreadyExists, "element id %s already exists", id)
}

// duplicateName answers a create or rename to a name the model already has.
func duplicateName(name string, e *archimatev1.Element) error {
	return &runtime.ErrorEntry{
		Code:    "DUPLICATE_NAME",
		Message: fmt.Sprintf("Element '%s' already exists in this model", name),
		Field:   "name",
		Suggestions: &runtime.Suggestions{
			Hint: "Use updateElement to modify the existing element, or choose a different name",
			Extra: map[string]any{
				"existing_element": map[string]any{"id": e.GetId(), "type": aliasOf(e.GetType())},
				"alternatives":     []string{name + "2", name + "V2", "New" + name},
			},
		},
	}
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

// attached returns the ids of the relationships touching element id, sorted.
func (sp *space) attached(id string) []string {
	var out []string
	for rid, rel := range sp.relationships {
		if rel.GetSourceId() == id || rel.GetTargetId() == id {
			out = append(out, rid)
		}
	}
	sort.Strings(out)
	return out
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

// CreateCapability creates a Capability element with its profile. The agent
// may choose the id: one the tenant already uses is refused, never
// overwritten.
func (r *Repository) CreateCapability(_ context.Context, req *archimatev1.CreateCapabilityRequest) (*archimatev1.CreateCapabilityResponse, error) {
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

// byName is the model's element with this name (case-insensitive), or nil.
func (sp *space) byName(model, name string) *archimatev1.Element {
	id, ok := sp.names[keyOf(model, name)]
	if !ok {
		return nil
	}
	return sp.elements[id]
}

// idLikeness is the lowest similarity score at which an element's id is
// offered for what the agent sent: a mistyped, truncated or re-cased id
// scores 0.75 and more, while ids that merely share the creation time
// (UUIDv7 prefixes) score about 0.4-0.6 and would offer every element made
// that second.
const idLikeness = 0.75

// notFound answers ELEMENT_NOT_FOUND with the tenant's elements whose name
// or id is most like what the agent sent (runtime/suggest's scoring: typos,
// abbreviations, case and separators), best first, at most three. Agents
// often send a name where an id belongs, or mistype an id; nothing like
// what was sent offers nothing rather than unrelated elements. Only the
// tenant's own elements are compared, so the answer depends on nothing
// another tenant has.
func (sp *space) notFound(field, sent string) error {
	byName := map[string][]string{} // name -> ids
	var names []suggest.Candidate
	var ids []suggest.Candidate
	for eid, e := range sp.elements {
		if _, seen := byName[e.GetName()]; !seen {
			names = append(names, suggest.Candidate{Name: e.GetName()})
		}
		byName[e.GetName()] = append(byName[e.GetName()], eid)
		ids = append(ids, suggest.Candidate{Name: eid})
	}
	// Sorted vocabularies keep equal scores in a stable order.
	sort.Slice(names, func(i, j int) bool { return names[i].Name < names[j].Name })
	sort.Slice(ids, func(i, j int) bool { return ids[i].Name < ids[j].Name })
	score := map[string]float64{} // element id -> best score
	note := func(eid string, sc float64) {
		if sc > score[eid] {
			score[eid] = sc
		}
	}
	for _, m := range suggest.NewIndex(names).Matches(sent, len(names)) {
		for _, eid := range byName[m.Name] {
			note(eid, m.Score)
		}
	}
	for _, m := range suggest.NewIndex(ids).Matches(sent, len(ids)) {
		if m.Score >= idLikeness {
			note(m.Name, m.Score)
		}
	}
	picked := make([]string, 0, len(score))
	for eid := range score {
		picked = append(picked, eid)
	}
	sort.Slice(picked, func(i, j int) bool {
		if score[picked[i]] != score[picked[j]] {
			return score[picked[i]] > score[picked[j]]
		}
		return picked[i] < picked[j]
	})
	if len(picked) > 3 {
		picked = picked[:3]
	}
	s := &runtime.Suggestions{}
	switch exact := byName[sent]; {
	case len(exact) == 1:
		s.Hint = fmt.Sprintf("%q is the name of element %s; send its id", sent, exact[0])
	case len(picked) > 0:
		s.Hint = "Use an id returned by createElement; these elements have a name or id close to " + strconv.Quote(clip(sent))
	default:
		s.Hint = "Use an id returned by createElement; no element in your model has a name or id close to " + strconv.Quote(clip(sent))
	}
	if len(picked) > 0 {
		similar := make([]map[string]any, 0, len(picked))
		for _, eid := range picked {
			e := sp.elements[eid]
			similar = append(similar, map[string]any{"id": e.GetId(), "name": e.GetName(), "type": aliasOf(e.GetType())})
		}
		s.Extra = map[string]any{"similar_elements": similar}
	}
	return &runtime.ErrorEntry{Code: "ELEMENT_NOT_FOUND", Message: fmt.Sprintf("Element '%s' not found", clip(sent)), Field: field, Suggestions: s}
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

// checkNew refuses the whole template when any name is taken or repeated.
func (sp *space) checkNew(model string, names []string) error {
	seen := map[nameKey]bool{}
	for _, n := range names {
		k := keyOf(model, n)
		if e := sp.byName(model, n); e != nil || seen[k] {
			return status.Errorf(codes.AlreadyExists, "Element '%s' already exists in this model; nothing was created", n)
		}
		seen[k] = true
	}
	return nil
}

// checkFreeIDs refuses the whole template when the tenant already uses one
// of the element ids it would create or their relationship ids (each
// element's id + "-rel"): a template never overwrites.
func (sp *space) checkFreeIDs(ids []string) error {
	for _, id := range ids {
		if _, dup := sp.elements[id]; dup {
			return status.Errorf(codes.AlreadyExists, "element id %s already exists; nothing was created", id)
		}
		if _, dup := sp.relationships[id+"-rel"]; dup {
			return status.Errorf(codes.AlreadyExists, "relationship id %s already exists; nothing was created", id+"-rel")
		}
	}
	return nil
}

// put stores a new element and indexes its name; callers checked that
// neither the id nor the name is taken.
func (sp *space) put(e *archimatev1.Element) *archimatev1.Element {
	sp.elements[e.GetId()] = e
	sp.names[keyOf(e.GetModelId(), e.GetName())] = e.GetId()
	sp.born[e.GetId()] = births.Add(1)
	return proto.Clone(e).(*archimatev1.Element)
}

func (sp *space) link(id string, t archimatev1.RelationshipType, src, dst string) *archimatev1.Relationship {
	rel := &archimatev1.Relationship{Id: id, Type: t, SourceId: src, TargetId: dst}
	sp.relationships[id] = rel
	return proto.Clone(rel).(*archimatev1.Relationship)
}
