package domain

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	archimatev1 "github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/gen/archimate/v1"
)

// PreviewLoss names what an update or delete would lose, for the person who
// confirms it (pass it as runtime.WithPreviews(runtime.Previews{Loss: repo.PreviewLoss})). It
// answers the same errors the write itself would, so an agent learns of a
// missing element before asking anyone to confirm.
func (r *Repository) PreviewLoss(_ context.Context, _ string, req proto.Message) (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch req := req.(type) {
	case *archimatev1.DeleteElementRequest:
		return r.deleteLoss(req)
	case *archimatev1.UpdateElementRequest:
		return r.updateLoss(req)
	}
	return "", nil
}

// deleteLoss: the element and, with cascade, every relationship touching it.
func (r *Repository) deleteLoss(req *archimatev1.DeleteElementRequest) (string, error) {
	sp := r.read(req.GetMeta().GetTenantId())
	e, ok := sp.elements[req.GetId()]
	if !ok {
		return "", sp.notFound("id", req.GetId())
	}
	n := len(sp.attached(req.GetId()))
	if n > 0 && !req.GetCascade() {
		return "", status.Errorf(codes.FailedPrecondition, "element %s has %d relationships; delete with cascade true", req.GetId(), n)
	}
	switch n {
	case 0:
		return "element " + e.GetName(), nil
	case 1:
		return "element " + e.GetName() + " and 1 relationship", nil
	}
	return fmt.Sprintf("element %s and %d relationships", e.GetName(), n), nil
}

// updateLoss: the current values the update overwrites; "" when it only adds.
func (r *Repository) updateLoss(req *archimatev1.UpdateElementRequest) (string, error) {
	sp := r.read(req.GetMeta().GetTenantId())
	e, ok := sp.elements[req.GetId()]
	if !ok {
		return "", sp.notFound("id", req.GetId())
	}
	var lost []string
	if req.Name != nil && req.GetName() != e.GetName() {
		lost = append(lost, fmt.Sprintf("name %q", e.GetName()))
	}
	if req.Description != nil && req.GetDescription() != e.GetDescription() && e.GetDescription() != "" {
		lost = append(lost, fmt.Sprintf("description %q", e.GetDescription()))
	}
	keys := make([]string, 0, len(req.GetProperties()))
	for k := range req.GetProperties() {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if old, ok := e.GetProperties()[k]; ok && old != req.GetProperties()[k] {
			lost = append(lost, fmt.Sprintf("property %s %q", k, old))
		}
	}
	if len(lost) == 0 {
		return "", nil
	}
	return strings.Join(lost, ", ") + " of element " + e.GetName(), nil
}
