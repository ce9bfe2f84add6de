package domain

import (
	"context"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	crmv1 "github.com/mcpwrite/protoc-gen-mcpwrite/examples/crm/gen/crm/v1"
)

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
