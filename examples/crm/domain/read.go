package domain

import (
	"context"
	"encoding/base64"
	"slices"
	"strings"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	crmv1 "github.com/mcpwrite/protoc-gen-mcpwrite/examples/crm/gen/crm/v1"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
)

// The read tools. Each looks in the acting user's records of the call's
// tenant only, exactly as the writes do, so another user's id answers
// NotFound; a read never creates the user's (empty) account.

// records returns the acting user's records, or an empty account when the
// user has none yet.
func (c *CRM) records(ctx context.Context, userID string) (*account, error) {
	rc, _ := runtime.RequestContextFrom(ctx)
	if rc.TenantID == "" {
		return nil, status.Error(codes.Unauthenticated, "no tenant")
	}
	if userID == "" {
		return nil, status.Error(codes.Unauthenticated, "no acting user")
	}
	if a, ok := c.users[owner{tenant: rc.TenantID, user: userID}]; ok {
		return a, nil
	}
	return &account{}, nil // nil maps read as empty
}

// defaultPageSize is the page size when the request leaves it 0 (the
// generated decoder applies the schema default, 50, for agents).
const defaultPageSize = 50

// pageTokenPrefix marks the tokens this server issues: the sort key of the
// last item of the previous page.
const pageTokenPrefix = "after:"

// sortKey orders records oldest first, ties by id.
func sortKey(created interface{ AsTime() time.Time }, id string) string {
	return created.AsTime().UTC().Format("2006-01-02T15:04:05.000000000Z") + "|" + id
}

// page returns the ids of keys (sort key -> id) after the token's key, at
// most size of them, oldest first, and the token of the next page.
func page(keys map[string]string, size int32, token string) ([]string, string, error) {
	sorted := make([]string, 0, len(keys))
	for k := range keys {
		sorted = append(sorted, k)
	}
	slices.Sort(sorted)
	start := 0
	if token != "" {
		raw, err := base64.RawURLEncoding.DecodeString(token)
		if err != nil || !strings.HasPrefix(string(raw), pageTokenPrefix) {
			return nil, "", invalid("invalid page_token", "page_token",
				"page_token is not one this server issued: pass the previous answer's next_page_token unchanged, or omit page_token for the first page")
		}
		start, _ = slices.BinarySearch(sorted, strings.TrimPrefix(string(raw), pageTokenPrefix)+"\x00")
	}
	n := int(size)
	if n <= 0 {
		n = defaultPageSize
	}
	end := min(start+n, len(sorted))
	next := ""
	if end < len(sorted) {
		next = base64.RawURLEncoding.EncodeToString([]byte(pageTokenPrefix + sorted[end-1]))
	}
	ids := make([]string, 0, end-start)
	for _, k := range sorted[start:end] {
		ids = append(ids, keys[k])
	}
	return ids, next, nil
}

func containsFold(s, sub string) bool {
	return strings.Contains(strings.ToLower(s), strings.ToLower(sub))
}

// ListPeople lists the user's people, oldest first.
func (c *CRM) ListPeople(ctx context.Context, req *crmv1.ListPeopleRequest) (*crmv1.ListPeopleResponse, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	a, err := c.records(ctx, req.GetUserId())
	if err != nil {
		return nil, err
	}
	keys := map[string]string{}
	for id, p := range a.people {
		q := req.GetQuery()
		if q == "" || containsFold(displayName(p), q) || containsFold(p.GetEmail(), q) {
			keys[sortKey(p.GetCreatedAt(), id)] = id
		}
	}
	ids, next, err := page(keys, req.GetPageSize(), req.GetPageToken())
	if err != nil {
		return nil, err
	}
	resp := &crmv1.ListPeopleResponse{NextPageToken: next}
	for _, id := range ids {
		resp.People = append(resp.People, proto.Clone(a.people[id]).(*crmv1.Person))
	}
	return resp, nil
}

// GetPerson reads one person.
func (c *CRM) GetPerson(ctx context.Context, req *crmv1.GetPersonRequest) (*crmv1.GetPersonResponse, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	a, err := c.records(ctx, req.GetUserId())
	if err != nil {
		return nil, err
	}
	p, err := a.person(req.GetPersonId())
	if err != nil {
		return nil, err
	}
	return &crmv1.GetPersonResponse{Person: proto.Clone(p).(*crmv1.Person)}, nil
}

// ListOrgs lists the user's organisations, oldest first.
func (c *CRM) ListOrgs(ctx context.Context, req *crmv1.ListOrgsRequest) (*crmv1.ListOrgsResponse, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	a, err := c.records(ctx, req.GetUserId())
	if err != nil {
		return nil, err
	}
	keys := map[string]string{}
	for id, o := range a.orgs {
		q := req.GetQuery()
		if q == "" || containsFold(o.GetName(), q) || containsFold(o.GetDomain(), q) {
			keys[sortKey(o.GetCreatedAt(), id)] = id
		}
	}
	ids, next, err := page(keys, req.GetPageSize(), req.GetPageToken())
	if err != nil {
		return nil, err
	}
	resp := &crmv1.ListOrgsResponse{NextPageToken: next}
	for _, id := range ids {
		resp.Orgs = append(resp.Orgs, proto.Clone(a.orgs[id]).(*crmv1.Org))
	}
	return resp, nil
}

// GetOrg reads one organisation.
func (c *CRM) GetOrg(ctx context.Context, req *crmv1.GetOrgRequest) (*crmv1.GetOrgResponse, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	a, err := c.records(ctx, req.GetUserId())
	if err != nil {
		return nil, err
	}
	o, err := a.org(req.GetOrgId())
	if err != nil {
		return nil, err
	}
	return &crmv1.GetOrgResponse{Org: proto.Clone(o).(*crmv1.Org)}, nil
}

// ListNotes lists the user's notes, oldest first, optionally about one
// person or organisation (which must exist, so a mistyped id is NotFound,
// not an empty list).
func (c *CRM) ListNotes(ctx context.Context, req *crmv1.ListNotesRequest) (*crmv1.ListNotesResponse, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	a, err := c.records(ctx, req.GetUserId())
	if err != nil {
		return nil, err
	}
	if id := req.GetPersonId(); id != "" {
		if _, err := a.person(id); err != nil {
			return nil, err
		}
	}
	if id := req.GetOrgId(); id != "" {
		if _, err := a.org(id); err != nil {
			return nil, err
		}
	}
	keys := map[string]string{}
	for id, n := range a.notes {
		switch {
		case req.GetPersonId() != "" && n.GetPersonId() != req.GetPersonId():
		case req.GetOrgId() != "" && n.GetOrgId() != req.GetOrgId():
		default:
			keys[sortKey(n.GetCreatedAt(), id)] = id
		}
	}
	ids, next, err := page(keys, req.GetPageSize(), req.GetPageToken())
	if err != nil {
		return nil, err
	}
	resp := &crmv1.ListNotesResponse{NextPageToken: next}
	for _, id := range ids {
		resp.Notes = append(resp.Notes, proto.Clone(a.notes[id]).(*crmv1.Note))
	}
	return resp, nil
}

// GetNote reads one note.
func (c *CRM) GetNote(ctx context.Context, req *crmv1.GetNoteRequest) (*crmv1.GetNoteResponse, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	a, err := c.records(ctx, req.GetUserId())
	if err != nil {
		return nil, err
	}
	n, err := a.note(req.GetNoteId())
	if err != nil {
		return nil, err
	}
	return &crmv1.GetNoteResponse{Note: proto.Clone(n).(*crmv1.Note)}, nil
}

// FindPeopleAtOrg answers an organisation, by id or by name (ignoring
// case), with the people who work there, oldest first.
func (c *CRM) FindPeopleAtOrg(ctx context.Context, req *crmv1.FindPeopleAtOrgRequest) (*crmv1.FindPeopleAtOrgResponse, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	a, err := c.records(ctx, req.GetUserId())
	if err != nil {
		return nil, err
	}
	var o *crmv1.Org
	switch {
	case req.GetOrgId() != "":
		if o, err = a.org(req.GetOrgId()); err != nil {
			return nil, err
		}
	case req.GetOrgName() != "":
		id := a.orgNamed(req.GetOrgName(), "")
		if id == "" {
			return nil, withDetails(status.Newf(codes.NotFound, "no organisation named %q", req.GetOrgName()),
				&errdetails.ResourceInfo{ResourceType: "org", ResourceName: req.GetOrgName()})
		}
		o = a.orgs[id]
	default:
		return nil, invalid("name the organisation", "org_id", "send org_id or org_name")
	}
	var keys []string
	for id, p := range a.people {
		if p.GetOrgId() == o.GetId() {
			keys = append(keys, sortKey(p.GetCreatedAt(), id))
		}
	}
	slices.Sort(keys)
	resp := &crmv1.FindPeopleAtOrgResponse{Org: proto.Clone(o).(*crmv1.Org)}
	for _, k := range keys {
		id := k[strings.IndexByte(k, '|')+1:]
		resp.People = append(resp.People, proto.Clone(a.people[id]).(*crmv1.Person))
	}
	return resp, nil
}
