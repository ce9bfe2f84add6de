package pgdomain

import (
	"fmt"
	"regexp"

	"github.com/jackc/pgx/v5/pgxpool"

	idempg "github.com/mcpwrite/protoc-gen-mcpwrite/runtime/idempotency/pgstore"
	proposalpg "github.com/mcpwrite/protoc-gen-mcpwrite/runtime/proposal/pgstore"
)

// Repository implements archimatev1mcpwrite.ArchitectureServiceHandler on
// PostgreSQL.
type Repository struct {
	pool      *pgxpool.Pool
	idem      *idempg.Store
	proposals *proposalpg.Store
	prefix    string
	sql       sqlText
	// Fault, when set, is called at "before-claim" and "after-claim" (a key
	// claimed in the write's transaction), "before-read" and "locked" (before
	// and after the write reads and locks its rows; a key claimed in the
	// transaction is sent in the same round trip as the read, so
	// "before-read" comes before "after-claim" then), "inside-tx" (the write
	// decided, its rows about to go out with the commit in one round trip;
	// for a proposal's apply, its rows written, before the commit) and
	// "after-commit" (before the answer): crash tests kill the process
	// there, stall tests hold a write there.
	Fault func(point string)
}

var prefixRE = regexp.MustCompile(`^[a-z][a-z0-9_]{0,40}$`)

// Option configures New.
type Option func(*Repository)

// WithProposals records the outcome of a proposal's apply in the write's
// transaction (proposalpg.Store.FinishApply, fenced by
// runtime.Outcome.ApplyToken), in props, which must be the proposal store
// the tools use, on the same database.
func WithProposals(props *proposalpg.Store) Option {
	return func(r *Repository) { r.proposals = props }
}

// New returns a repository whose tables start with prefix ("archimate"
// gives archimate_elements, archimate_outbox, ...). idem must be the store
// the tools claim keys in, so outcomes recorded here are the ones they
// replay.
func New(pool *pgxpool.Pool, idem *idempg.Store, prefix string, opts ...Option) (*Repository, error) {
	if !prefixRE.MatchString(prefix) {
		return nil, fmt.Errorf("pgdomain: invalid table prefix %q", prefix)
	}
	r := &Repository{pool: pool, idem: idem, prefix: prefix, sql: newSQL(prefix)}
	if _, ok := idem.ReserveLock(elementsArgs + 1); ok {
		r.sql.reserving(func(first int) string {
			lock, _ := idem.ReserveLock(first)
			return lock
		})
	}
	for _, o := range opts {
		o(r)
	}
	return r, nil
}
