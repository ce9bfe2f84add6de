package domain

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
	"strings"

	"google.golang.org/protobuf/proto"

	crmv1 "github.com/mcpwrite/protoc-gen-mcpwrite/examples/crm/gen/crm/v1"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
)

// StatePreview is the state a write on an existing person, organisation or
// note acts on, as the user who confirms it is shown it (pass it as
// runtime.WithPreviews(runtime.Previews{State: crm.StatePreview})): its name, version and what
// goes with it (a person's notes; an organisation's notes and people). The
// proposal names the entity and, for updates, diffs the fields the request
// changes. Applying after any of that changed (a merge's two people, a note
// added to a person about to be deleted, a person linked to an organisation
// about to be deleted) is refused as stale.
func (c *CRM) StatePreview(ctx context.Context, _ string, req proto.Message) (runtime.EntityState, bool, error) {
	user, kind, ids := subjectOf(req)
	if kind == "" {
		return runtime.EntityState{}, false, nil // a create: nothing exists yet
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
		m, summary, bound, ok := a.shown(kind, id)
		if !ok {
			return runtime.EntityState{}, false, nil // gone: nothing left to preview
		}
		b, err := proto.MarshalOptions{Deterministic: true}.Marshal(m)
		if err != nil {
			return runtime.EntityState{}, false, err
		}
		fmt.Fprintf(h, "%d:%s\x00%s\x00", len(b), b, bound)
		parts = append(parts, summary)
	}
	st := runtime.EntityState{Target: kind + " " + ids[0], Digest: hex.EncodeToString(h.Sum(nil)[:16]), Summary: parts[0], Type: kind, ID: ids[0]}
	if len(ids) == 2 {
		st.Target = "people " + ids[0] + " and " + ids[1]
		st.Summary = "merge " + parts[0] + " into " + parts[1]
		st.ID = ids[1] // a merge changes the person it keeps
	}
	// What an update may change, or a delete removes, for the proposal's
	// before/after diff.
	switch req.(type) {
	case *crmv1.UpdatePersonRequest, *crmv1.LinkPersonToOrgRequest, *crmv1.DeletePersonRequest:
		p := a.people[ids[0]]
		st.Fields = map[string]any{"first_name": p.GetFirstName(), "last_name": p.GetLastName(),
			"email": p.GetEmail(), "phone": p.GetPhone(), "title": p.GetTitle(), "org_id": p.GetOrgId()}
	case *crmv1.UpdateOrgRequest, *crmv1.DeleteOrgRequest:
		o := a.orgs[ids[0]]
		st.Fields = map[string]any{"name": o.GetName(), "domain": o.GetDomain(), "industry": o.GetIndustry()}
	case *crmv1.UpdateNoteRequest, *crmv1.DeleteNoteRequest:
		st.Fields = map[string]any{"body": a.notes[ids[0]].GetBody()}
	}
	return st, true, nil
}

// subjectOf names the acting user and the existing records a write acts on
// (kind "" for a create).
func subjectOf(req proto.Message) (user, kind string, ids []string) {
	switch r := req.(type) {
	case *crmv1.MergePeopleRequest:
		return r.GetUserId(), "person", []string{r.GetSourcePersonId(), r.GetTargetPersonId()}
	case *crmv1.DeletePersonRequest:
		return r.GetUserId(), "person", []string{r.GetPersonId()}
	case *crmv1.UpdatePersonRequest:
		return r.GetUserId(), "person", []string{r.GetPersonId()}
	case *crmv1.LinkPersonToOrgRequest:
		return r.GetUserId(), "person", []string{r.GetPersonId()}
	case *crmv1.UpdateOrgRequest:
		return r.GetUserId(), "org", []string{r.GetOrgId()}
	case *crmv1.DeleteOrgRequest:
		return r.GetUserId(), "org", []string{r.GetOrgId()}
	case *crmv1.UpdateNoteRequest:
		return r.GetUserId(), "note", []string{r.GetNoteId()}
	case *crmv1.DeleteNoteRequest:
		return r.GetUserId(), "note", []string{r.GetNoteId()}
	}
	return "", "", nil
}

// shown is one record as the user is shown it: the record, a one-line
// summary, and what else the write would carry along (bound into the
// digest): a person's notes, an organisation's notes and people.
func (a *account) shown(kind, id string) (m proto.Message, summary, bound string, ok bool) {
	switch kind {
	case "person":
		p, ok := a.people[id]
		if !ok {
			return nil, "", "", false
		}
		notes := a.notesAbout(id)
		return p, fmt.Sprintf("%s (version %d, %s)", displayName(p), p.GetVersion(), plural(len(notes), "note")), "notes=" + strings.Join(notes, ","), true
	case "org":
		o, ok := a.orgs[id]
		if !ok {
			return nil, "", "", false
		}
		notes, people := a.notesAboutOrg(id), a.peopleAt(id)
		return o, fmt.Sprintf("%s (version %d, %s, %s)", o.GetName(), o.GetVersion(), plural(len(notes), "note"), plural(len(people), "person")),
			"notes=" + strings.Join(notes, ",") + "\x00people=" + strings.Join(people, ","), true
	case "note":
		n, ok := a.notes[id]
		if !ok {
			return nil, "", "", false
		}
		return n, fmt.Sprintf("note about %s (version %d): %q", a.subjectName(n), n.GetVersion(), clip(n.GetBody(), 60)), "", true
	}
	return nil, "", "", false
}

// PreviewLoss names what a write would remove or overwrite, for the user
// who confirms it (pass it as runtime.WithPreviews(runtime.Previews{Loss: crm.PreviewLoss})): a
// person's deletion loses the person, their notes and their organisation
// link; an organisation's, its notes and its people's links; a merge, the
// duplicate and whichever of its details the kept person overrides; a
// note's update (destructive_update), the text it replaces. The runtime
// asks it for deletes and destructive writes only, so the safe_update
// tools name no loss. "" when nothing is lost.
func (c *CRM) PreviewLoss(ctx context.Context, _ string, req proto.Message) (string, error) {
	user, _, _ := subjectOf(req)
	c.mu.Lock()
	defer c.mu.Unlock()
	a, err := c.account(ctx, user)
	if err != nil {
		return "", err
	}
	switch r := req.(type) {
	case *crmv1.DeletePersonRequest:
		p, err := a.person(r.GetPersonId())
		if err != nil {
			return "", err
		}
		lost := []string{fmt.Sprintf("person %s (%s)", displayName(p), p.GetId())}
		if notes := a.notesAbout(p.GetId()); len(notes) > 0 {
			lost = append(lost, a.noteList("their", notes))
		}
		if o, ok := a.orgs[p.GetOrgId()]; ok {
			lost = append(lost, fmt.Sprintf("their link to %s (%s)", o.GetName(), o.GetId()))
		}
		return joinAnd(lost), nil
	case *crmv1.DeleteOrgRequest:
		o, err := a.org(r.GetOrgId())
		if err != nil {
			return "", err
		}
		lost := []string{fmt.Sprintf("organisation %s (%s)", o.GetName(), o.GetId())}
		if notes := a.notesAboutOrg(o.GetId()); len(notes) > 0 {
			lost = append(lost, a.noteList("its", notes))
		}
		if people := a.peopleAt(o.GetId()); len(people) > 0 {
			names := make([]string, len(people))
			for i, id := range people {
				names[i] = displayName(a.people[id])
			}
			lost = append(lost, fmt.Sprintf("the links of %s to it (%s; they are kept, without an organisation)", plural(len(people), "person"), strings.Join(names, ", ")))
		}
		return joinAnd(lost), nil
	case *crmv1.DeleteNoteRequest:
		n, err := a.note(r.GetNoteId())
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("note %s about %s: %q", n.GetId(), a.subjectName(n), clip(n.GetBody(), 60)), nil
	case *crmv1.UpdateNoteRequest:
		n, err := a.note(r.GetNoteId())
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("the current text of note %s: %q", n.GetId(), clip(n.GetBody(), 60)), nil
	case *crmv1.MergePeopleRequest:
		src, dst, err := a.checkMerge(r)
		if err != nil {
			return "", err
		}
		lost := []string{fmt.Sprintf("person %s (%s), deleted after the merge", displayName(src), src.GetId())}
		kept := []struct{ name, src, dst string }{
			{"first_name", src.GetFirstName(), dst.GetFirstName()}, {"last_name", src.GetLastName(), dst.GetLastName()},
			{"email", src.GetEmail(), dst.GetEmail()}, {"phone", src.GetPhone(), dst.GetPhone()},
			{"title", src.GetTitle(), dst.GetTitle()}, {"org_id", src.GetOrgId(), dst.GetOrgId()},
		}
		for _, f := range kept {
			if f.src != "" && f.dst != "" && f.src != f.dst {
				lost = append(lost, fmt.Sprintf("their %s %q (%s keeps %q)", f.name, f.src, displayName(dst), f.dst))
			}
		}
		if notes := a.notesAbout(src.GetId()); len(notes) == 1 {
			lost = append(lost, "their note moves to "+displayName(dst))
		} else if len(notes) > 1 {
			lost = append(lost, fmt.Sprintf("their %d notes move to %s", len(notes), displayName(dst)))
		}
		return strings.Join(lost, "; "), nil
	}
	return "", nil
}

// noteList is "their 2 notes (\"Met at the demo\", \"Asked about cards\")",
// quoting at most three.
func (a *account) noteList(whose string, ids []string) string {
	var quoted []string
	for i, id := range ids {
		if i == 3 {
			quoted = append(quoted, fmt.Sprintf("%d more", len(ids)-3))
			break
		}
		quoted = append(quoted, fmt.Sprintf("%q", clip(a.notes[id].GetBody(), 40)))
	}
	return fmt.Sprintf("%s %s (%s)", whose, plural(len(ids), "note"), strings.Join(quoted, ", "))
}

// subjectName names who or what a note is about.
func (a *account) subjectName(n *crmv1.Note) string {
	if p, ok := a.people[n.GetPersonId()]; ok {
		return displayName(p)
	}
	if o, ok := a.orgs[n.GetOrgId()]; ok {
		return o.GetName()
	}
	return "a deleted record"
}

// notesAbout lists the ids of the notes about person id, oldest first.
func (a *account) notesAbout(id string) []string {
	return a.noteIDs(func(n *crmv1.Note) bool { return n.GetPersonId() == id })
}

// notesAboutOrg lists the ids of the notes about organisation id.
func (a *account) notesAboutOrg(id string) []string {
	return a.noteIDs(func(n *crmv1.Note) bool { return n.GetOrgId() == id })
}

func (a *account) noteIDs(match func(*crmv1.Note) bool) []string {
	var ids []string
	for id, n := range a.notes {
		if match(n) {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids) // UUID v7 ids sort by creation
	return ids
}

// peopleAt lists the ids of the people linked to organisation id.
func (a *account) peopleAt(id string) []string {
	var ids []string
	for pid, p := range a.people {
		if p.GetOrgId() == id {
			ids = append(ids, pid)
		}
	}
	sort.Strings(ids)
	return ids
}

func displayName(p *crmv1.Person) string {
	return strings.TrimSpace(p.GetFirstName() + " " + p.GetLastName())
}

// clip shortens s to n characters, marking the cut.
func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-3]) + "..."
	}
	return s
}

// joinAnd joins "a", "b" and "c" as "a, b and c".
func joinAnd(parts []string) string {
	if len(parts) <= 1 {
		return strings.Join(parts, "")
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}

func plural(n int, what string) string {
	switch {
	case n == 1:
		return "1 " + what
	case what == "person":
		return fmt.Sprintf("%d people", n)
	}
	return fmt.Sprintf("%d %ss", n, what)
}
