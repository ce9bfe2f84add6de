// Package domain is an in-memory personal CRM: people, organisations and
// notes, each owned by one user of one tenant. It implements the generated
// CrmServiceHandler with gRPC status errors, as an existing gRPC server
// would. Every lookup is scoped to the acting tenant and user, so another
// user's IDs (in this tenant or any other) answer NotFound, never
// PermissionDenied or AlreadyExists (which would confirm they exist).
package domain

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/protoadapt"
	"google.golang.org/protobuf/types/known/timestamppb"

	crmv1 "github.com/mcpwrite/protoc-gen-mcpwrite/examples/crm/gen/crm/v1"
	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/crm/gen/crm/v1/crmv1mcpwrite"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
)

type account struct {
	people map[string]*crmv1.Person
	orgs   map[string]*crmv1.Org
	notes  map[string]*crmv1.Note
}

// CRM is the in-memory store, safe for concurrent use. Its resolvers are
// typed (resolvers.go); the embedded struct answers the contract methods
// of the Handler, which the tools no longer call.
type CRM struct {
	crmv1mcpwrite.UnimplementedCrmServiceResolvers

	mu    sync.Mutex
	now   func() time.Time
	users map[owner]*account
}

// owner is whose records an account holds: a user is known by name within
// its tenant only, so the same name in two tenants is two owners.
type owner struct{ tenant, user string }

// New returns an empty CRM; now stamps records (nil means time.Now).
func New(now func() time.Time) *CRM {
	if now == nil {
		now = time.Now
	}
	return &CRM{now: now, users: map[owner]*account{}}
}

// account returns the records of the acting user of the call's tenant
// (from the request context the generated tools put on ctx); an empty user
// or tenant is a wiring bug (the generated code always fills them), not an
// agent mistake.
func (c *CRM) account(ctx context.Context, userID string) (*account, error) {
	rc, _ := runtime.RequestContextFrom(ctx)
	if rc.TenantID == "" {
		return nil, status.Error(codes.Unauthenticated, "no tenant")
	}
	if userID == "" {
		return nil, status.Error(codes.Unauthenticated, "no acting user")
	}
	k := owner{tenant: rc.TenantID, user: userID}
	a, ok := c.users[k]
	if !ok {
		a = &account{people: map[string]*crmv1.Person{}, orgs: map[string]*crmv1.Org{}, notes: map[string]*crmv1.Note{}}
		c.users[k] = a
	}
	return a, nil
}

// withDetails attaches error details; a status that cannot carry them is
// still the right answer without them.
func withDetails(st *status.Status, details ...protoadapt.MessageV1) error {
	if s, err := st.WithDetails(details...); err == nil {
		return s.Err()
	}
	return st.Err()
}

func notFound(kind, id string) error {
	return withDetails(status.Newf(codes.NotFound, "%s %s not found", kind, id),
		&errdetails.ResourceInfo{ResourceType: kind, ResourceName: id})
}

func alreadyExists(kind, what, existing string) error {
	return withDetails(status.Newf(codes.AlreadyExists, "a %s with this %s already exists", kind, what),
		&errdetails.ResourceInfo{ResourceType: kind, ResourceName: existing})
}

func invalid(msg string, field, description string) error {
	return withDetails(status.New(codes.InvalidArgument, msg),
		&errdetails.BadRequest{FieldViolations: []*errdetails.BadRequest_FieldViolation{{Field: field, Description: description}}})
}

func versionChanged(kind, id string, want, got int32) error {
	return withDetails(status.Newf(codes.FailedPrecondition, "%s %s changed since the write was proposed", kind, id),
		&errdetails.PreconditionFailure{Violations: []*errdetails.PreconditionFailure_Violation{{
			Type: "VERSION", Subject: kind + "/" + id, Description: fmt.Sprintf("expected version %d, current version %d", want, got),
		}}})
}

func (a *account) person(id string) (*crmv1.Person, error) {
	if p, ok := a.people[id]; ok {
		return p, nil
	}
	return nil, notFound("person", id)
}

func (a *account) org(id string) (*crmv1.Org, error) {
	if o, ok := a.orgs[id]; ok {
		return o, nil
	}
	return nil, notFound("org", id)
}

func (a *account) note(id string) (*crmv1.Note, error) {
	if n, ok := a.notes[id]; ok {
		return n, nil
	}
	return nil, notFound("note", id)
}

// emailOwner returns the person other than except holding email.
func (a *account) emailOwner(email, except string) string {
	if email == "" {
		return ""
	}
	for id, p := range a.people {
		if id != except && strings.EqualFold(p.GetEmail(), email) {
			return id
		}
	}
	return ""
}

func (a *account) orgNamed(name, except string) string {
	for id, o := range a.orgs {
		if id != except && strings.EqualFold(o.GetName(), name) {
			return id
		}
	}
	return ""
}

func (c *CRM) stamp() *timestamppb.Timestamp { return timestamppb.New(c.now()) }

// Record returns a copy of the person, org or note id of one user of one
// tenant (kind "person", "org" or "note"), for inspection.
func (c *CRM) Record(tenant, user, kind, id string) (proto.Message, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	a, ok := c.users[owner{tenant: tenant, user: user}]
	if !ok {
		return nil, false
	}
	var m proto.Message
	switch kind {
	case "person":
		if p, ok := a.people[id]; ok {
			m = p
		}
	case "org":
		if o, ok := a.orgs[id]; ok {
			m = o
		}
	case "note":
		if n, ok := a.notes[id]; ok {
			m = n
		}
	}
	if m == nil {
		return nil, false
	}
	return proto.Clone(m), true
}
