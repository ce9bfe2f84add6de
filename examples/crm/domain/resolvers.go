package domain

import (
	"context"

	crmv1 "github.com/mcpwrite/protoc-gen-mcpwrite/examples/crm/gen/crm/v1"
	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/crm/gen/crm/v1/crmv1mcpwrite"
)

// The resolvers, typed: one method per resolver and request type, each
// given the request itself. When a write is proposed they read the version
// of what it is about, so unknown records and invalid changes fail before
// the user is asked, and a proposal whose record changed since is stale.
// The generated interfaces are asserted here, so a misspelt method fails to
// compile instead of leaving the tools to the embedded
// UnimplementedCrmServiceResolvers.
var (
	_ crmv1mcpwrite.CrmServiceResolvePersonVersionForUpdatePersonRequest      = (*CRM)(nil)
	_ crmv1mcpwrite.CrmServiceResolvePersonVersionForDeletePersonRequest      = (*CRM)(nil)
	_ crmv1mcpwrite.CrmServiceResolvePersonVersionForLinkPersonToOrgRequest   = (*CRM)(nil)
	_ crmv1mcpwrite.CrmServiceResolvePersonVersionForMergePeopleRequest       = (*CRM)(nil)
	_ crmv1mcpwrite.CrmServiceResolveSourcePersonVersionForMergePeopleRequest = (*CRM)(nil)
	_ crmv1mcpwrite.CrmServiceResolveOrgVersionForUpdateOrgRequest            = (*CRM)(nil)
	_ crmv1mcpwrite.CrmServiceResolveOrgVersionForDeleteOrgRequest            = (*CRM)(nil)
	_ crmv1mcpwrite.CrmServiceResolveOrgVersionForLinkPersonToOrgRequest      = (*CRM)(nil)
	_ crmv1mcpwrite.CrmServiceResolveNoteVersionForUpdateNoteRequest          = (*CRM)(nil)
	_ crmv1mcpwrite.CrmServiceResolveNoteVersionForDeleteNoteRequest          = (*CRM)(nil)
	_ crmv1mcpwrite.CrmServiceResolveNoteSubjectForCreateNoteRequest          = (*CRM)(nil)
	_ crmv1mcpwrite.CrmServiceResolveNoteSubjectForAddNoteToPersonRequest     = (*CRM)(nil)
)

// personVersion is the version of the person check returns, for user.
func (c *CRM) personVersion(ctx context.Context, user string, check func(*account) (*crmv1.Person, error)) (int32, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	a, err := c.account(ctx, user)
	if err != nil {
		return 0, err
	}
	p, err := check(a)
	if err != nil {
		return 0, err
	}
	return p.GetVersion(), nil
}

// ResolvePersonVersionForUpdatePersonRequest checks the update and reads
// the person's version.
func (c *CRM) ResolvePersonVersionForUpdatePersonRequest(ctx context.Context, r *crmv1.UpdatePersonRequest) (int32, error) {
	return c.personVersion(ctx, r.GetUserId(), func(a *account) (*crmv1.Person, error) { return a.checkPersonUpdate(r) })
}

// ResolvePersonVersionForDeletePersonRequest reads the version of the
// person to delete.
func (c *CRM) ResolvePersonVersionForDeletePersonRequest(ctx context.Context, r *crmv1.DeletePersonRequest) (int32, error) {
	return c.personVersion(ctx, r.GetUserId(), func(a *account) (*crmv1.Person, error) { return a.person(r.GetPersonId()) })
}

// ResolvePersonVersionForLinkPersonToOrgRequest reads the version of the
// person to link.
func (c *CRM) ResolvePersonVersionForLinkPersonToOrgRequest(ctx context.Context, r *crmv1.LinkPersonToOrgRequest) (int32, error) {
	return c.personVersion(ctx, r.GetUserId(), func(a *account) (*crmv1.Person, error) { return a.person(r.GetPersonId()) })
}

// ResolvePersonVersionForMergePeopleRequest checks the merge and reads the
// version of the person that stays.
func (c *CRM) ResolvePersonVersionForMergePeopleRequest(ctx context.Context, r *crmv1.MergePeopleRequest) (int32, error) {
	return c.personVersion(ctx, r.GetUserId(), func(a *account) (*crmv1.Person, error) {
		_, t, err := a.checkMerge(r)
		return t, err
	})
}

// ResolveSourcePersonVersionForMergePeopleRequest reads the version of the
// duplicate of a merge.
func (c *CRM) ResolveSourcePersonVersionForMergePeopleRequest(ctx context.Context, r *crmv1.MergePeopleRequest) (int32, error) {
	return c.personVersion(ctx, r.GetUserId(), func(a *account) (*crmv1.Person, error) {
		s, _, err := a.checkMerge(r)
		return s, err
	})
}

// orgVersion is the version of the organisation check returns, for user.
func (c *CRM) orgVersion(ctx context.Context, user string, check func(*account) (*crmv1.Org, error)) (int32, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	a, err := c.account(ctx, user)
	if err != nil {
		return 0, err
	}
	o, err := check(a)
	if err != nil {
		return 0, err
	}
	return o.GetVersion(), nil
}

// ResolveOrgVersionForUpdateOrgRequest checks the update and reads the
// organisation's version.
func (c *CRM) ResolveOrgVersionForUpdateOrgRequest(ctx context.Context, r *crmv1.UpdateOrgRequest) (int32, error) {
	return c.orgVersion(ctx, r.GetUserId(), func(a *account) (*crmv1.Org, error) { return a.checkOrgUpdate(r) })
}

// ResolveOrgVersionForDeleteOrgRequest reads the version of the
// organisation to delete.
func (c *CRM) ResolveOrgVersionForDeleteOrgRequest(ctx context.Context, r *crmv1.DeleteOrgRequest) (int32, error) {
	return c.orgVersion(ctx, r.GetUserId(), func(a *account) (*crmv1.Org, error) { return a.org(r.GetOrgId()) })
}

// ResolveOrgVersionForLinkPersonToOrgRequest reads the version of the
// organisation to link to.
func (c *CRM) ResolveOrgVersionForLinkPersonToOrgRequest(ctx context.Context, r *crmv1.LinkPersonToOrgRequest) (int32, error) {
	return c.orgVersion(ctx, r.GetUserId(), func(a *account) (*crmv1.Org, error) { return a.org(r.GetOrgId()) })
}

// noteVersion is the version of the note id of user.
func (c *CRM) noteVersion(ctx context.Context, user, id string) (int32, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	a, err := c.account(ctx, user)
	if err != nil {
		return 0, err
	}
	n, err := a.note(id)
	if err != nil {
		return 0, err
	}
	return n.GetVersion(), nil
}

// ResolveNoteVersionForUpdateNoteRequest reads the version of the note to
// update.
func (c *CRM) ResolveNoteVersionForUpdateNoteRequest(ctx context.Context, r *crmv1.UpdateNoteRequest) (int32, error) {
	return c.noteVersion(ctx, r.GetUserId(), r.GetNoteId())
}

// ResolveNoteVersionForDeleteNoteRequest reads the version of the note to
// delete.
func (c *CRM) ResolveNoteVersionForDeleteNoteRequest(ctx context.Context, r *crmv1.DeleteNoteRequest) (int32, error) {
	return c.noteVersion(ctx, r.GetUserId(), r.GetNoteId())
}

// ResolveNoteSubjectForCreateNoteRequest checks, when a note is proposed,
// that it names exactly one existing person or organisation.
func (c *CRM) ResolveNoteSubjectForCreateNoteRequest(ctx context.Context, r *crmv1.CreateNoteRequest) (crmv1.SubjectKind, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	a, err := c.account(ctx, r.GetUserId())
	if err != nil {
		return 0, err
	}
	return a.subject(r)
}

// ResolveNoteSubjectForAddNoteToPersonRequest checks that the person of
// add_note_to_person exists; the subject is that person.
func (c *CRM) ResolveNoteSubjectForAddNoteToPersonRequest(ctx context.Context, r *crmv1.AddNoteToPersonRequest) (crmv1.SubjectKind, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	a, err := c.account(ctx, r.GetUserId())
	if err != nil {
		return 0, err
	}
	if _, err := a.person(r.GetPersonId()); err != nil {
		return 0, err
	}
	return crmv1.SubjectKind_SUBJECT_KIND_PERSON, nil
}
