// Package proposal holds server-side proposals: complete, enriched write
// requests awaiting confirmation by id (docs/architecture.md,
// "Confirmation"). Networked stores live in sub-packages (pgstore).
package proposal

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// State of a proposal.
type State uint8

const (
	StatePending   State = 1
	StateApplying  State = 2
	StateApplied   State = 3
	StateDiscarded State = 4
)

// Proposal is one pending write.
type Proposal struct {
	ID             string
	Tenant         string
	Principal      string
	Tool           string
	Classification string
	Summary        string
	Request        []byte          // the enriched request, proto binary
	Arguments      json.RawMessage // the agent's arguments as received
	Preview        json.RawMessage // structured preview shown to the agent
	CreatedAt      time.Time
	ExpiresAt      time.Time
	State          State
	Result         []byte // the apply result envelope (StateApplied)
	ResultIsError  bool
	// Target names the entity the write changes as the user was shown it
	// (e.g. "element el-1"), StateDigest identifies the state of it the user
	// saw and StateSummary describes that state in a line. Empty when the
	// server supplies no state preview. Applying after the state changed is
	// refused as stale.
	Target       string
	StateDigest  string
	StateSummary string
	// ApplyStartedAt is when the current apply began (StateApplying); an
	// apply that has not finished within the store's apply lease (a crash,
	// a failed save) may be begun again.
	ApplyStartedAt time.Time
}

// DefaultApplyLease is how long an apply may stay unfinished before a new
// BeginApply takes it over.
const DefaultApplyLease = 2 * time.Minute

// Errors of the store.
var (
	// ErrNotFound: unknown id, or owned by another tenant or principal.
	ErrNotFound = errors.New("proposal: not found")
	// ErrExpired: the proposal's expiry has passed.
	ErrExpired = errors.New("proposal: expired")
	// ErrBusy: another apply of the same proposal is running.
	ErrBusy = errors.New("proposal: apply in progress")
	// ErrDiscarded: the proposal was discarded.
	ErrDiscarded = errors.New("proposal: discarded")
)

// Store keeps proposals. Every method is scoped by tenant and principal: a
// proposal is invisible (ErrNotFound) to anyone else.
type Store interface {
	// Create stores p (StatePending).
	Create(ctx context.Context, p *Proposal) error
	// Get returns the proposal in any state.
	Get(ctx context.Context, id, tenant, principal string, now time.Time) (*Proposal, error)
	// BeginApply atomically moves a pending proposal to StateApplying and
	// returns it; so it does with an applying one whose apply began at least
	// the store's apply lease ago. An applied proposal is returned unchanged
	// (the caller replays its Result). Errors: ErrNotFound, ErrExpired,
	// ErrBusy, ErrDiscarded.
	BeginApply(ctx context.Context, id, tenant, principal string, now time.Time) (*Proposal, error)
	// FinishApply records the result and moves the proposal to StateApplied.
	FinishApply(ctx context.Context, id string, result []byte, isError bool) error
	// AbortApply moves an applying proposal back to StatePending (the apply
	// failed before any side effect, or the proposal is stale).
	AbortApply(ctx context.Context, id string) error
	// Discard moves a pending proposal to StateDiscarded.
	Discard(ctx context.Context, id, tenant, principal string, now time.Time) error
}

// More errors of the store.
var (
	// ErrFull: the store holds as many open proposals as it may; Create
	// refuses rather than evicting a proposal a user may still confirm.
	ErrFull = errors.New("proposal: too many pending proposals")
	// ErrInvalid: Create was given a proposal that cannot be stored; the
	// wrapped message names the field.
	ErrInvalid = errors.New("proposal: invalid proposal")
	// ErrDuplicate: Create was given an id that is already stored.
	ErrDuplicate = errors.New("proposal: duplicate id")
	// ErrApplied: Discard of a proposal that was already applied.
	ErrApplied = errors.New("proposal: already applied")
	// ErrNotApplying: FinishApply or AbortApply of a proposal that is not in
	// StateApplying (it was never begun, or was already finished or aborted).
	ErrNotApplying = errors.New("proposal: not being applied")
	// ErrStale: a handler applying the proposal found, under the lock its
	// write takes, that the entity is no longer in the state the user
	// confirmed (runtime.Outcome.StateDigest); it wrote nothing.
	ErrStale = errors.New("proposal: the entity changed since the proposal was confirmed")
)

// IDPrefix starts every id minted by NewID, so ids are recognisable in logs
// and agent transcripts.
const IDPrefix = "prop_"

// MaxIDLength bounds a proposal id in bytes; ids are looked up from agent
// input, so they must stay short.
const MaxIDLength = 128

// DefaultRetention is how long stores keep a proposal after its expiry, so a
// late apply still answers ErrExpired (or replays an applied result) instead
// of ErrNotFound, and an apply in flight at expiry can still finish.
const DefaultRetention = time.Hour

// NewID returns an unguessable proposal id: IDPrefix followed by 26 base32
// characters carrying 128 bits from crypto/rand. Knowing an id never grants
// access (stores also check tenant and principal), but guessable ids would
// leak the existence of other users' proposals through timing and logs.
func NewID() string {
	return IDPrefix + rand.Text()
}

// String names the state for logs and errors.
func (s State) String() string {
	switch s {
	case StatePending:
		return "pending"
	case StateApplying:
		return "applying"
	case StateApplied:
		return "applied"
	case StateDiscarded:
		return "discarded"
	}
	return "State(" + strconv.Itoa(int(s)) + ")"
}

// Expired reports whether p can no longer be applied at now: it is still
// open (pending or applying) and now is at or after ExpiresAt. Applied and
// discarded proposals keep their final state after expiry, so an applied
// result still replays and a discarded one still answers ErrDiscarded.
func (p *Proposal) Expired(now time.Time) bool {
	return (p.State == StatePending || p.State == StateApplying) && !now.Before(p.ExpiresAt)
}

// Owned reports whether p belongs to tenant and principal; stores answer
// ErrNotFound otherwise so existence is never revealed.
func (p *Proposal) Owned(tenant, principal string) bool {
	return p.Tenant == tenant && p.Principal == principal
}

// Clone returns a deep copy of p in the form stores hand out: times in UTC at
// microsecond precision (what durable stores keep) and empty byte slices as
// nil. Stores return clones so callers can never mutate stored state.
func (p *Proposal) Clone() *Proposal {
	if p == nil {
		return nil
	}
	c := *p
	c.Request = cloneBytes(p.Request)
	c.Arguments = json.RawMessage(cloneBytes(p.Arguments))
	c.Preview = json.RawMessage(cloneBytes(p.Preview))
	c.Result = cloneBytes(p.Result)
	c.CreatedAt = NormalizeTime(p.CreatedAt)
	c.ExpiresAt = NormalizeTime(p.ExpiresAt)
	if !p.ApplyStartedAt.IsZero() {
		c.ApplyStartedAt = NormalizeTime(p.ApplyStartedAt)
	}
	return &c
}

// NormalizeTime returns t in UTC truncated to microseconds, without a
// monotonic reading: the precision PostgreSQL keeps, so every store returns
// the same instant.
func NormalizeTime(t time.Time) time.Time {
	return t.UTC().Truncate(time.Microsecond)
}

func cloneBytes(b []byte) []byte {
	if len(b) == 0 {
		return nil
	}
	return append([]byte(nil), b...)
}

// Validate reports why p cannot be stored by Create (an error wrapping
// ErrInvalid), or nil. Text fields must be valid UTF-8 without NUL bytes
// (PostgreSQL text rejects them), JSON fields valid JSON, and a new proposal
// must be pending with no result. An empty ID is valid: Create mints one.
func (p *Proposal) Validate() error {
	if p == nil {
		return fmt.Errorf("%w: nil proposal", ErrInvalid)
	}
	if len(p.ID) > MaxIDLength {
		return fmt.Errorf("%w: id longer than %d bytes", ErrInvalid, MaxIDLength)
	}
	for _, f := range []struct{ name, value string }{
		{"id", p.ID}, {"tenant", p.Tenant}, {"principal", p.Principal},
		{"tool", p.Tool}, {"classification", p.Classification}, {"summary", p.Summary},
		{"target", p.Target}, {"state_digest", p.StateDigest}, {"state_summary", p.StateSummary},
	} {
		if !ValidText(f.value) {
			return fmt.Errorf("%w: %s is not valid UTF-8 text", ErrInvalid, f.name)
		}
	}
	if p.Tool == "" {
		return fmt.Errorf("%w: tool is empty", ErrInvalid)
	}
	for _, f := range []struct {
		name  string
		value json.RawMessage
	}{{"arguments", p.Arguments}, {"preview", p.Preview}} {
		if len(f.value) > 0 && (!utf8.Valid(f.value) || !json.Valid(f.value)) {
			return fmt.Errorf("%w: %s is not valid JSON", ErrInvalid, f.name)
		}
	}
	if p.CreatedAt.IsZero() {
		return fmt.Errorf("%w: created_at is zero", ErrInvalid)
	}
	if !NormalizeTime(p.ExpiresAt).After(NormalizeTime(p.CreatedAt)) {
		return fmt.Errorf("%w: expires_at is not after created_at", ErrInvalid)
	}
	for _, f := range []struct {
		name  string
		value time.Time
	}{{"created_at", p.CreatedAt}, {"expires_at", p.ExpiresAt}} {
		if y := f.value.UTC().Year(); y < 1 || y > 9999 {
			return fmt.Errorf("%w: %s outside years 1-9999", ErrInvalid, f.name)
		}
	}
	if p.State != 0 && p.State != StatePending {
		return fmt.Errorf("%w: a new proposal must be pending, not %s", ErrInvalid, p.State)
	}
	if len(p.Result) > 0 || p.ResultIsError {
		return fmt.Errorf("%w: a new proposal has no result", ErrInvalid)
	}
	return nil
}

// ValidText reports whether s can be stored as text everywhere: valid UTF-8
// without NUL bytes. Stores answer ErrNotFound for lookups by invalid text
// rather than a driver error.
func ValidText(s string) bool {
	return utf8.ValidString(s) && !strings.ContainsRune(s, 0)
}
