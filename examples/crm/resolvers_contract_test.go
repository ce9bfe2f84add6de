package crm_test

import (
	"context"
	"sync/atomic"
	"testing"

	grpccodes "google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	crmv1 "github.com/mcpwrite/protoc-gen-mcpwrite/examples/crm/gen/crm/v1"
	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/crm/gen/crm/v1/crmv1mcpwrite"
)

// contractResolvers serves the CRM through the contract resolver methods
// only, Resolve<Name>(ctx, proto.Message), as a handler written before the
// typed forms existed: the embedded interface hides the domain's typed
// methods, and each contract method switches on the request type.
type contractResolvers struct {
	crmv1mcpwrite.CrmServiceHandler
	rec   *recorder
	calls atomic.Int64
}

func (c *contractResolvers) ResolvePersonVersion(ctx context.Context, in proto.Message) (int32, error) {
	c.calls.Add(1)
	switch r := in.(type) {
	case *crmv1.UpdatePersonRequest:
		return c.rec.ResolvePersonVersionForUpdatePersonRequest(ctx, r)
	case *crmv1.DeletePersonRequest:
		return c.rec.ResolvePersonVersionForDeletePersonRequest(ctx, r)
	case *crmv1.LinkPersonToOrgRequest:
		return c.rec.ResolvePersonVersionForLinkPersonToOrgRequest(ctx, r)
	case *crmv1.MergePeopleRequest:
		return c.rec.ResolvePersonVersionForMergePeopleRequest(ctx, r)
	}
	return 0, status.Errorf(grpccodes.Internal, "person_version does not apply to %T", in)
}

func (c *contractResolvers) ResolveSourcePersonVersion(ctx context.Context, in proto.Message) (int32, error) {
	c.calls.Add(1)
	if r, ok := in.(*crmv1.MergePeopleRequest); ok {
		return c.rec.ResolveSourcePersonVersionForMergePeopleRequest(ctx, r)
	}
	return 0, status.Errorf(grpccodes.Internal, "source_person_version does not apply to %T", in)
}

func (c *contractResolvers) ResolveOrgVersion(ctx context.Context, in proto.Message) (int32, error) {
	c.calls.Add(1)
	switch r := in.(type) {
	case *crmv1.UpdateOrgRequest:
		return c.rec.ResolveOrgVersionForUpdateOrgRequest(ctx, r)
	case *crmv1.DeleteOrgRequest:
		return c.rec.ResolveOrgVersionForDeleteOrgRequest(ctx, r)
	case *crmv1.LinkPersonToOrgRequest:
		return c.rec.ResolveOrgVersionForLinkPersonToOrgRequest(ctx, r)
	}
	return 0, status.Errorf(grpccodes.Internal, "org_version does not apply to %T", in)
}

func (c *contractResolvers) ResolveNoteVersion(ctx context.Context, in proto.Message) (int32, error) {
	c.calls.Add(1)
	switch r := in.(type) {
	case *crmv1.UpdateNoteRequest:
		return c.rec.ResolveNoteVersionForUpdateNoteRequest(ctx, r)
	case *crmv1.DeleteNoteRequest:
		return c.rec.ResolveNoteVersionForDeleteNoteRequest(ctx, r)
	}
	return 0, status.Errorf(grpccodes.Internal, "note_version does not apply to %T", in)
}

func (c *contractResolvers) ResolveNoteSubject(ctx context.Context, in proto.Message) (crmv1.SubjectKind, error) {
	c.calls.Add(1)
	switch r := in.(type) {
	case *crmv1.CreateNoteRequest:
		return c.rec.ResolveNoteSubjectForCreateNoteRequest(ctx, r)
	case *crmv1.AddNoteToPersonRequest:
		return c.rec.ResolveNoteSubjectForAddNoteToPersonRequest(ctx, r)
	}
	return 0, status.Errorf(grpccodes.Internal, "note_subject does not apply to %T", in)
}

// The contract form, Resolve<Name>(ctx, proto.Message), still serves every
// tool: the same proposals apply with the same answers as the typed form's.
func TestContractResolversServeEveryWrite(t *testing.T) {
	var handlers []*contractResolvers
	everyWriteCommits(t, func(t *testing.T) *server {
		return newServerWith(t, func(rec *recorder) crmv1mcpwrite.CrmServiceHandler {
			h := &contractResolvers{CrmServiceHandler: rec, rec: rec}
			handlers = append(handlers, h)
			return h
		})
	})
	if len(handlers) != len(everyWrite) {
		t.Fatalf("%d servers, want %d", len(handlers), len(everyWrite))
	}
	for i, h := range handlers {
		// setup alone links a person and adds three notes, each resolved.
		if h.calls.Load() == 0 {
			t.Errorf("%s: the contract resolvers were never called", everyWrite[i].tool)
		}
	}
}

// A handler that embeds UnimplementedCrmServiceResolvers but lacks a typed
// method gets INTERNAL, never a silent zero value: here the embedded
// interface hides every typed method of the domain.
func TestMissingTypedResolverIsInternal(t *testing.T) {
	s := newServerWith(t, func(rec *recorder) crmv1mcpwrite.CrmServiceHandler {
		return struct {
			crmv1mcpwrite.CrmServiceHandler
		}{rec}
	})
	cs := s.connect(ada)
	out, isErr := call(t, cs, "update_person", `{"person_id":"per_1","title":"Countess"}`)
	if code, _, _ := errorOf(t, out); !isErr || code != "INTERNAL" {
		t.Fatalf("update_person = %v, want INTERNAL", out)
	}
}

// The generated client adapter hands over the resolvers it forwards to, so
// their typed methods are found: a dry run (enrichment, no client call)
// through the adapter resolves with the domain's typed methods, where the
// adapter's own contract methods would reach UnimplementedCrmServiceResolvers.
func TestClientAdapterFindsTypedResolvers(t *testing.T) {
	s := newServerWith(t, func(rec *recorder) crmv1mcpwrite.CrmServiceHandler {
		return crmv1mcpwrite.NewCrmServiceClientAdapter(nil, rec)
	})
	cs := s.connect(ada)
	out, isErr := call(t, cs, "update_person", `{"person_id":"per_1","title":"Countess","dry_run":true}`)
	// The typed resolver ran: the unknown person is the domain's NOT_FOUND.
	if got := codes(out); isErr || out["valid"] != false || len(got) != 1 || got[0] != "NOT_FOUND@person_id" {
		t.Fatalf("update_person dry run = %v, want invalid with NOT_FOUND@person_id", out)
	}
}
