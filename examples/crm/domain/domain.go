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
	"google.golang.org/protobuf/reflect/protoreflect"
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

// CreatePerson adds a person; the email is unique per user.
func (c *CRM) CreatePerson(ctx context.Context, req *crmv1.CreatePersonRequest) (*crmv1.CreatePersonResponse, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	a, err := c.account(ctx, req.GetUserId())
	if err != nil {
		return nil, err
	}
	if _, dup := a.people[req.GetId()]; dup {
		return nil, alreadyExists("person", "id", req.GetId())
	}
	if id := a.emailOwner(req.GetEmail(), ""); id != "" {
		return nil, alreadyExists("person", "email", id)
	}
	if req.GetOrgId() != "" {
		if _, err := a.org(req.GetOrgId()); err != nil {
			return nil, err
		}
	}
	p := &crmv1.Person{
		Id: req.GetId(), FirstName: req.GetFirstName(), LastName: req.GetLastName(), Email: req.GetEmail(),
		Phone: req.GetPhone(), Title: req.GetTitle(), OrgId: req.GetOrgId(), Version: 1, CreatedAt: c.stamp(), UpdatedAt: c.stamp(),
	}
	a.people[p.Id] = p
	return &crmv1.CreatePersonResponse{Person: proto.Clone(p).(*crmv1.Person)}, nil
}

// checkPersonUpdate is what update_person must satisfy before it is proposed.
func (a *account) checkPersonUpdate(req *crmv1.UpdatePersonRequest) (*crmv1.Person, error) {
	p, err := a.person(req.GetPersonId())
	if err != nil {
		return nil, err
	}
	if req.FirstName == nil && req.LastName == nil && req.Email == nil && req.Phone == nil && req.Title == nil {
		return nil, status.Error(codes.InvalidArgument, "nothing to change: send at least one of first_name, last_name, email, phone, title")
	}
	if id := a.emailOwner(req.GetEmail(), p.GetId()); id != "" {
		return nil, alreadyExists("person", "email", id)
	}
	return p, nil
}

// UpdatePerson changes the fields sent.
func (c *CRM) UpdatePerson(ctx context.Context, req *crmv1.UpdatePersonRequest) (*crmv1.UpdatePersonResponse, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	a, err := c.account(ctx, req.GetUserId())
	if err != nil {
		return nil, err
	}
	p, err := a.checkPersonUpdate(req)
	if err != nil {
		return nil, err
	}
	if p.GetVersion() != req.GetExpectedVersion() {
		return nil, versionChanged("person", p.GetId(), req.GetExpectedVersion(), p.GetVersion())
	}
	set := func(dst *string, v *string) {
		if v != nil {
			*dst = *v
		}
	}
	set(&p.FirstName, req.FirstName)
	set(&p.LastName, req.LastName)
	set(&p.Email, req.Email)
	set(&p.Phone, req.Phone)
	set(&p.Title, req.Title)
	p.Version++
	p.UpdatedAt = c.stamp()
	return &crmv1.UpdatePersonResponse{Person: proto.Clone(p).(*crmv1.Person)}, nil
}

// DeletePerson removes a person and the notes about them.
func (c *CRM) DeletePerson(ctx context.Context, req *crmv1.DeletePersonRequest) (*crmv1.DeletePersonResponse, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	a, err := c.account(ctx, req.GetUserId())
	if err != nil {
		return nil, err
	}
	p, err := a.person(req.GetPersonId())
	if err != nil {
		return nil, err
	}
	if p.GetVersion() != req.GetExpectedVersion() {
		return nil, versionChanged("person", p.GetId(), req.GetExpectedVersion(), p.GetVersion())
	}
	var n int32
	for id, note := range a.notes {
		if note.GetPersonId() == p.GetId() {
			delete(a.notes, id)
			n++
		}
	}
	delete(a.people, p.GetId())
	return &crmv1.DeletePersonResponse{PersonId: p.GetId(), DeletedNotes: n}, nil
}

// CreateOrg adds an organisation; names are unique per user.
func (c *CRM) CreateOrg(ctx context.Context, req *crmv1.CreateOrgRequest) (*crmv1.CreateOrgResponse, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	a, err := c.account(ctx, req.GetUserId())
	if err != nil {
		return nil, err
	}
	if _, dup := a.orgs[req.GetId()]; dup {
		return nil, alreadyExists("org", "id", req.GetId())
	}
	if id := a.orgNamed(req.GetName(), ""); id != "" {
		return nil, alreadyExists("org", "name", id)
	}
	o := &crmv1.Org{Id: req.GetId(), Name: req.GetName(), Domain: req.GetDomain(), Industry: req.GetIndustry(), Version: 1, CreatedAt: c.stamp(), UpdatedAt: c.stamp()}
	a.orgs[o.Id] = o
	return &crmv1.CreateOrgResponse{Org: proto.Clone(o).(*crmv1.Org)}, nil
}

func (a *account) checkOrgUpdate(req *crmv1.UpdateOrgRequest) (*crmv1.Org, error) {
	o, err := a.org(req.GetOrgId())
	if err != nil {
		return nil, err
	}
	if req.Name == nil && req.Domain == nil && req.Industry == nil {
		return nil, status.Error(codes.InvalidArgument, "nothing to change: send at least one of name, domain, industry")
	}
	if req.Name != nil {
		if id := a.orgNamed(req.GetName(), o.GetId()); id != "" {
			return nil, alreadyExists("org", "name", id)
		}
	}
	return o, nil
}

// UpdateOrg changes the fields sent.
func (c *CRM) UpdateOrg(ctx context.Context, req *crmv1.UpdateOrgRequest) (*crmv1.UpdateOrgResponse, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	a, err := c.account(ctx, req.GetUserId())
	if err != nil {
		return nil, err
	}
	o, err := a.checkOrgUpdate(req)
	if err != nil {
		return nil, err
	}
	if o.GetVersion() != req.GetExpectedVersion() {
		return nil, versionChanged("org", o.GetId(), req.GetExpectedVersion(), o.GetVersion())
	}
	if req.Name != nil {
		o.Name = req.GetName()
	}
	if req.Domain != nil {
		o.Domain = req.GetDomain()
	}
	if req.Industry != nil {
		o.Industry = req.GetIndustry()
	}
	o.Version++
	o.UpdatedAt = c.stamp()
	return &crmv1.UpdateOrgResponse{Org: proto.Clone(o).(*crmv1.Org)}, nil
}

// DeleteOrg removes an organisation and its notes and unlinks its people.
func (c *CRM) DeleteOrg(ctx context.Context, req *crmv1.DeleteOrgRequest) (*crmv1.DeleteOrgResponse, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	a, err := c.account(ctx, req.GetUserId())
	if err != nil {
		return nil, err
	}
	o, err := a.org(req.GetOrgId())
	if err != nil {
		return nil, err
	}
	if o.GetVersion() != req.GetExpectedVersion() {
		return nil, versionChanged("org", o.GetId(), req.GetExpectedVersion(), o.GetVersion())
	}
	out := &crmv1.DeleteOrgResponse{OrgId: o.GetId()}
	for _, p := range a.people {
		if p.GetOrgId() == o.GetId() {
			p.OrgId = ""
			p.Version++
			p.UpdatedAt = c.stamp()
			out.UnlinkedPeople++
		}
	}
	for id, n := range a.notes {
		if n.GetOrgId() == o.GetId() {
			delete(a.notes, id)
			out.DeletedNotes++
		}
	}
	delete(a.orgs, o.GetId())
	return out, nil
}

// subject checks that a note names exactly one existing subject.
func (a *account) subject(req *crmv1.CreateNoteRequest) (crmv1.SubjectKind, error) {
	switch s := req.GetSubject().(type) {
	case *crmv1.CreateNoteRequest_PersonId:
		if _, err := a.person(s.PersonId); err != nil {
			return 0, err
		}
		return crmv1.SubjectKind_SUBJECT_KIND_PERSON, nil
	case *crmv1.CreateNoteRequest_OrgId:
		if _, err := a.org(s.OrgId); err != nil {
			return 0, err
		}
		return crmv1.SubjectKind_SUBJECT_KIND_ORG, nil
	}
	return 0, invalid("a note needs a subject", "person_id", "set person_id or org_id: the person or organisation the note is about")
}

// CreateNote adds a note about a person or an organisation.
func (c *CRM) CreateNote(ctx context.Context, req *crmv1.CreateNoteRequest) (*crmv1.CreateNoteResponse, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	a, err := c.account(ctx, req.GetUserId())
	if err != nil {
		return nil, err
	}
	if _, dup := a.notes[req.GetId()]; dup {
		return nil, alreadyExists("note", "id", req.GetId())
	}
	if _, err := a.subject(req); err != nil {
		return nil, err
	}
	n := &crmv1.Note{Id: req.GetId(), Body: req.GetBody(), PersonId: req.GetPersonId(), OrgId: req.GetOrgId(), Version: 1, CreatedAt: c.stamp(), UpdatedAt: c.stamp()}
	a.notes[n.Id] = n
	return &crmv1.CreateNoteResponse{Note: proto.Clone(n).(*crmv1.Note)}, nil
}

// AddNoteToPerson adds a note about a person.
func (c *CRM) AddNoteToPerson(ctx context.Context, req *crmv1.AddNoteToPersonRequest) (*crmv1.AddNoteToPersonResponse, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	a, err := c.account(ctx, req.GetUserId())
	if err != nil {
		return nil, err
	}
	if _, dup := a.notes[req.GetId()]; dup {
		return nil, alreadyExists("note", "id", req.GetId())
	}
	if _, err := a.person(req.GetPersonId()); err != nil {
		return nil, err
	}
	n := &crmv1.Note{Id: req.GetId(), Body: req.GetBody(), PersonId: req.GetPersonId(), Version: 1, CreatedAt: c.stamp(), UpdatedAt: c.stamp()}
	a.notes[n.Id] = n
	return &crmv1.AddNoteToPersonResponse{Note: proto.Clone(n).(*crmv1.Note)}, nil
}

// UpdateNote replaces a note's text.
func (c *CRM) UpdateNote(ctx context.Context, req *crmv1.UpdateNoteRequest) (*crmv1.UpdateNoteResponse, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	a, err := c.account(ctx, req.GetUserId())
	if err != nil {
		return nil, err
	}
	n, err := a.note(req.GetNoteId())
	if err != nil {
		return nil, err
	}
	if n.GetVersion() != req.GetExpectedVersion() {
		return nil, versionChanged("note", n.GetId(), req.GetExpectedVersion(), n.GetVersion())
	}
	n.Body = req.GetBody()
	n.Version++
	n.UpdatedAt = c.stamp()
	return &crmv1.UpdateNoteResponse{Note: proto.Clone(n).(*crmv1.Note)}, nil
}

// DeleteNote removes a note.
func (c *CRM) DeleteNote(ctx context.Context, req *crmv1.DeleteNoteRequest) (*crmv1.DeleteNoteResponse, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	a, err := c.account(ctx, req.GetUserId())
	if err != nil {
		return nil, err
	}
	n, err := a.note(req.GetNoteId())
	if err != nil {
		return nil, err
	}
	if n.GetVersion() != req.GetExpectedVersion() {
		return nil, versionChanged("note", n.GetId(), req.GetExpectedVersion(), n.GetVersion())
	}
	delete(a.notes, n.GetId())
	return &crmv1.DeleteNoteResponse{NoteId: n.GetId()}, nil
}

// LinkPersonToOrg sets the organisation a person works at.
func (c *CRM) LinkPersonToOrg(ctx context.Context, req *crmv1.LinkPersonToOrgRequest) (*crmv1.LinkPersonToOrgResponse, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	a, err := c.account(ctx, req.GetUserId())
	if err != nil {
		return nil, err
	}
	p, err := a.person(req.GetPersonId())
	if err != nil {
		return nil, err
	}
	o, err := a.org(req.GetOrgId())
	if err != nil {
		return nil, err
	}
	if p.GetVersion() != req.GetExpectedVersion() {
		return nil, versionChanged("person", p.GetId(), req.GetExpectedVersion(), p.GetVersion())
	}
	if o.GetVersion() != req.GetOrgVersion() {
		return nil, versionChanged("org", o.GetId(), req.GetOrgVersion(), o.GetVersion())
	}
	prev := p.GetOrgId()
	if prev == o.GetId() {
		return nil, withDetails(status.Newf(codes.FailedPrecondition, "person %s is already linked to org %s", p.GetId(), o.GetId()))
	}
	p.OrgId = o.GetId()
	p.Version++
	p.UpdatedAt = c.stamp()
	return &crmv1.LinkPersonToOrgResponse{Person: proto.Clone(p).(*crmv1.Person), PreviousOrgId: prev}, nil
}

// checkMerge is what merge_people must satisfy before it is proposed.
func (a *account) checkMerge(req *crmv1.MergePeopleRequest) (source, target *crmv1.Person, err error) {
	if req.GetSourcePersonId() == req.GetTargetPersonId() {
		return nil, nil, invalid("a person cannot be merged into themselves", "target_person_id", "target_person_id must differ from source_person_id: the source is the duplicate that is deleted, the target is kept")
	}
	if source, err = a.person(req.GetSourcePersonId()); err != nil {
		return nil, nil, err
	}
	if target, err = a.person(req.GetTargetPersonId()); err != nil {
		return nil, nil, err
	}
	return source, target, nil
}

// MergePeople fills the kept person's empty details from the duplicate,
// moves the duplicate's notes and deletes it.
func (c *CRM) MergePeople(ctx context.Context, req *crmv1.MergePeopleRequest) (*crmv1.MergePeopleResponse, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	a, err := c.account(ctx, req.GetUserId())
	if err != nil {
		return nil, err
	}
	src, dst, err := a.checkMerge(req)
	if err != nil {
		return nil, err
	}
	if src.GetVersion() != req.GetSourceVersion() {
		return nil, versionChanged("person", src.GetId(), req.GetSourceVersion(), src.GetVersion())
	}
	if dst.GetVersion() != req.GetExpectedVersion() {
		return nil, versionChanged("person", dst.GetId(), req.GetExpectedVersion(), dst.GetVersion())
	}
	fill := func(dst *string, v string) {
		if *dst == "" {
			*dst = v
		}
	}
	fill(&dst.LastName, src.GetLastName())
	fill(&dst.Email, src.GetEmail())
	fill(&dst.Phone, src.GetPhone())
	fill(&dst.Title, src.GetTitle())
	fill(&dst.OrgId, src.GetOrgId())
	var moved int32
	for _, n := range a.notes {
		if n.GetPersonId() == src.GetId() {
			n.PersonId = dst.GetId()
			n.Version++
			n.UpdatedAt = c.stamp()
			moved++
		}
	}
	delete(a.people, src.GetId())
	dst.Version++
	dst.UpdatedAt = c.stamp()
	return &crmv1.MergePeopleResponse{Person: proto.Clone(dst).(*crmv1.Person), MergedPersonId: src.GetId(), MovedNotes: moved}, nil
}

// UserIDHint answers agents that try to pass user_id.
const UserIDHint = "Do not send user_id: the acting user comes from the authenticated connection. Remove the argument and retry."

// ErrorHook names the argument a NOT_FOUND or ALREADY_EXISTS answer is
// about (the status carries the resource, the request says which argument
// held it) and tells the agent what to do next.
func ErrorHook(_ context.Context, _ string, req proto.Message, e *runtime.ErrorEntry) {
	switch e.Code {
	case runtime.CodeUnknownField:
		if e.Field == "user_id" {
			if e.Suggestions == nil {
				e.Suggestions = &runtime.Suggestions{}
			}
			e.Suggestions.Hint = UserIDHint
		}
	case runtime.CodeNotFound:
		kind, _ := e.Details["resource_type"].(string)
		name, _ := e.Details["resource_name"].(string)
		if e.Field == "" && req != nil {
			e.Field = fieldHolding(req.ProtoReflect(), name)
		}
		if e.Suggestions == nil && e.Field == "org_name" {
			e.Suggestions = &runtime.Suggestions{Hint: "None of your organisations has this name; call list_orgs with a query to find its exact name, or pass org_id."}
		}
		if e.Suggestions == nil && kind != "" {
			e.Suggestions = &runtime.Suggestions{Hint: fmt.Sprintf("Use %s %s id returned by %s or create_%s; only your own records exist for you.", article(kind), kind, listTool[kind], kind)}
		}
	case runtime.CodeAlreadyExists:
		if kind, _ := e.Details["resource_type"].(string); kind != "" && e.Suggestions == nil {
			name, _ := e.Details["resource_name"].(string)
			e.Suggestions = &runtime.Suggestions{Hint: fmt.Sprintf("The existing %s is %s: update it with update_%s, or merge duplicates.", kind, name, kind)}
		}
	}
}

// listTool is the read tool that lists each kind of record.
var listTool = map[string]string{"person": "list_people", "org": "list_orgs", "note": "list_notes"}

func article(noun string) string {
	if strings.IndexByte("aeiou", noun[0]) >= 0 {
		return "an"
	}
	return "a"
}

// fieldHolding returns the top-level agent argument whose value is v.
func fieldHolding(m protoreflect.Message, v string) string {
	if v == "" {
		return ""
	}
	found := ""
	m.Range(func(fd protoreflect.FieldDescriptor, val protoreflect.Value) bool {
		if fd.Kind() == protoreflect.StringKind && !fd.IsList() && !fd.IsMap() && val.String() == v && fd.Name() != "id" {
			found = string(fd.Name())
			return false
		}
		return true
	})
	return found
}

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
