package domain

import (
	"context"

	"google.golang.org/protobuf/proto"

	crmv1 "github.com/mcpwrite/protoc-gen-mcpwrite/examples/crm/gen/crm/v1"
)

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
