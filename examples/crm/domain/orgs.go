package domain

import (
	"context"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	crmv1 "github.com/mcpwrite/protoc-gen-mcpwrite/examples/crm/gen/crm/v1"
)

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
