package domain

import (
	"context"
	"fmt"
	"strings"

	"google.golang.org/protobuf/proto"

	archimatev1 "github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/gen/archimate/v1"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
)

// Codes of the source design's invalid-type answers (§5.2).
const (
	CodeInvalidElementType = "INVALID_ELEMENT_TYPE"
	// CodeInvalidRelationshipType answers a relationship type name that is
	// no relationship type; INVALID_RELATIONSHIP answers a known type that
	// may not connect the two elements.
	CodeInvalidRelationshipType = "INVALID_RELATIONSHIP_TYPE"
)

// ErrorNeedsState reports whether EnrichError reads the tenant's elements
// for e (a repository on a database reads them only then).
func ErrorNeedsState(tool string, e *runtime.ErrorEntry) bool {
	return e != nil && e.Code == runtime.CodeInvalidEnumValue && e.Rejected != "" && tool == "createRelationship" && e.Field == "type"
}

// EnrichError is the tools' error hook (runtime.WithErrorHook): it answers
// an element or relationship type that does not exist as the source design
// does (§5.2), with the types valid in the call's context.
//
//   - An element type (createElement's type, getRelationshipTypes'
//     source_type and target_type) is INVALID_ELEMENT_TYPE "Element type
//     'AppComponent' is not valid", with did_you_mean and, as
//     valid_types_for_context, the types of the layer the best suggestion
//     belongs to, and that layer's hint.
//   - A relationship type (createRelationship's type) is
//     INVALID_RELATIONSHIP_TYPE, and when source_id and target_id name
//     elements of the tenant, valid_types_for_context lists the
//     relationship types valid between their types.
//
// The full list stays in valid_values.
func (r *Repository) EnrichError(ctx context.Context, tool string, req proto.Message, e *runtime.ErrorEntry) {
	if e == nil || e.Code != runtime.CodeInvalidEnumValue || e.Rejected == "" || e.Suggestions == nil {
		return
	}
	switch {
	case tool == "createElement" && e.Field == "type",
		tool == "createElements" && strings.HasPrefix(e.Field, "elements[") && strings.HasSuffix(e.Field, "].type"),
		tool == "getRelationshipTypes" && (e.Field == "source_type" || e.Field == "target_type"):
		invalidElementType(e)
	case tool == "createRelationship" && e.Field == "type":
		rel, _ := req.(*archimatev1.CreateRelationshipRequest)
		r.invalidRelationshipType(ctx, rel, e)
	}
}

func invalidElementType(e *runtime.ErrorEntry) {
	v := vocab()
	e.Code = CodeInvalidElementType
	e.Message = fmt.Sprintf("Element type '%s' is not valid", clip(e.Rejected))
	s := e.Suggestions
	if s.Extra != nil {
		delete(s.Extra, "valid_types_for_context")
	}
	if len(s.DidYouMean) == 0 {
		return
	}
	layer := v.layerOf[s.DidYouMean[0]]
	if layer == "" {
		return
	}
	if s.Extra == nil {
		s.Extra = map[string]any{}
	}
	s.Extra["valid_types_for_context"] = append([]string{}, v.layers[layer]...)
	if h := layerHints[layer]; h != "" {
		s.Hint = h
	}
}

func (r *Repository) invalidRelationshipType(ctx context.Context, req *archimatev1.CreateRelationshipRequest, e *runtime.ErrorEntry) {
	e.Code = CodeInvalidRelationshipType
	e.Message = fmt.Sprintf("Relationship type '%s' is not valid", clip(e.Rejected))
	rc, ok := runtime.RequestContextFrom(ctx)
	if req == nil || !ok || rc.TenantID == "" {
		return
	}
	model := req.GetModelId()
	if model == "" {
		model = ActiveModel(rc.TenantID)
	}
	r.mu.Lock()
	sp := r.read(rc.TenantID)
	src, dst := sp.lookup(model, req.GetSourceId()), sp.lookup(model, req.GetTargetId())
	r.mu.Unlock()
	if src == nil || dst == nil {
		return
	}
	from, to := aliasOf(src.GetType()), aliasOf(dst.GetType())
	valid := vocab().between(from, to)
	s := e.Suggestions
	if s.Extra == nil {
		s.Extra = map[string]any{}
	}
	s.Extra["valid_types_for_context"] = valid
	switch len(valid) {
	case 0:
		s.Hint = fmt.Sprintf("No relationship type may go from %s to %s; getRelationshipTypes lists the valid pairs", from, to)
	default:
		s.Hint = fmt.Sprintf("From %s to %s the valid relationship types are %s", from, to, orList(valid))
	}
}
