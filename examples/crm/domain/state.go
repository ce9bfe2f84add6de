package domain

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	"google.golang.org/protobuf/proto"

	crmv1 "github.com/mcpwrite/protoc-gen-mcpwrite/examples/crm/gen/crm/v1"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
)

// StatePreview is the state a merge or a person's deletion acts on, as the
// user who confirms it is shown it (pass it as
// runtime.WithStatePreview(crm.StatePreview)): each person's name, version
// and how many notes follow them. Applying after either person of a merge
// changed, gained or lost a note, or was deleted, is refused as stale.
func (c *CRM) StatePreview(ctx context.Context, _ string, req proto.Message) (runtime.EntityState, bool, error) {
	var user string
	var ids []string
	switch r := req.(type) {
	case *crmv1.MergePeopleRequest:
		user, ids = r.GetUserId(), []string{r.GetSourcePersonId(), r.GetTargetPersonId()}
	case *crmv1.DeletePersonRequest:
		user, ids = r.GetUserId(), []string{r.GetPersonId()}
	case *crmv1.UpdatePersonRequest:
		user, ids = r.GetUserId(), []string{r.GetPersonId()}
	default:
		return runtime.EntityState{}, false, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	a, err := c.account(ctx, user)
	if err != nil {
		return runtime.EntityState{}, false, err
	}
	h := sha256.New()
	parts := make([]string, 0, len(ids))
	for _, id := range ids {
		p, ok := a.people[id]
		if !ok {
			return runtime.EntityState{}, false, nil // gone: nothing left to preview
		}
		b, err := proto.MarshalOptions{Deterministic: true}.Marshal(p)
		if err != nil {
			return runtime.EntityState{}, false, err
		}
		notes := a.notesAbout(id)
		fmt.Fprintf(h, "%d:%s\x00notes=%d\x00", len(b), b, notes)
		parts = append(parts, fmt.Sprintf("%s (version %d, %s)", displayName(p), p.GetVersion(), plural(notes, "note")))
	}
	target := "person " + ids[0]
	summary := parts[0]
	if len(ids) == 2 {
		target = "people " + ids[0] + " and " + ids[1]
		summary = "merge " + parts[0] + " into " + parts[1]
	}
	st := runtime.EntityState{Target: target, Digest: hex.EncodeToString(h.Sum(nil)[:16]), Summary: summary, Type: "person", ID: ids[0]}
	if len(ids) == 2 {
		st.ID = ids[1] // a merge changes the person it keeps
	}
	if _, ok := req.(*crmv1.UpdatePersonRequest); ok {
		// What an update may change, for the proposal's before/after diff.
		p := a.people[ids[0]]
		st.Fields = map[string]any{"first_name": p.GetFirstName(), "last_name": p.GetLastName(),
			"email": p.GetEmail(), "phone": p.GetPhone(), "title": p.GetTitle()}
	}
	return st, true, nil
}

// notesAbout counts the notes about person id.
func (a *account) notesAbout(id string) int {
	n := 0
	for _, note := range a.notes {
		if note.GetPersonId() == id {
			n++
		}
	}
	return n
}

func displayName(p *crmv1.Person) string {
	return strings.TrimSpace(p.GetFirstName() + " " + p.GetLastName())
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}
