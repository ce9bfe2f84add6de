// Package outbox delivers the facts of committed writes: a Relay reads the
// rows a domain appended to its outbox table in the write's transaction and
// hands them, in order, to a Publisher (redisstream publishes to Redis
// Streams), then marks them delivered.
//
// # The table
//
// The relay reads a table of this shape (the domain creates it and inserts
// one row per committed write, in the write's transaction):
//
//	CREATE TABLE <name> (
//	    id           bigserial   PRIMARY KEY,
//	    tenant       text        NOT NULL,
//	    tool         text        NOT NULL,
//	    request      jsonb       NOT NULL,
//	    response     jsonb       NOT NULL,
//	    created_at   timestamptz NOT NULL DEFAULT now(),
//	    txid         xid8        NOT NULL DEFAULT pg_current_xact_id(),
//	    delivered_at timestamptz
//	);
//	CREATE INDEX ON <name> (txid, id) WHERE delivered_at IS NULL;
//
// # Delivery guarantee
//
// At least once. A batch is published first and marked delivered after; a
// relay that dies in between (kill -9, lost connection, failed broker call)
// leaves the rows undelivered and the next batch publishes them again. A
// consumer deduplicates by the outbox id (Message.ID), which every copy of a
// fact carries.
//
// # Order
//
// bigserial ids are handed out when a row is inserted, not when its
// transaction commits, so a later id can commit first; a relay that followed
// ids would either skip the earlier row for ever or publish out of order.
// The relay publishes only rows whose transaction id is below the oldest
// transaction still running (txid < pg_snapshot_xmin(pg_current_snapshot())),
// in (txid, id) order. Every transaction below that horizon has finished, so
// no row can later appear before one already published: the published
// sequence of first deliveries is exactly the (txid, id) order of the
// committed rows, with nothing skipped and nothing inserted behind it.
//
// What that order means for a tenant's writes: the transaction id is
// assigned at the transaction's first write. When a write's transaction
// committed before another write's transaction made its first write (in
// particular, whenever a client sent the second write after the first was
// acknowledged), the first write's fact comes first. Two writes whose
// transactions overlapped come in the order of their transaction ids, which
// can differ from their commit order (a transaction that wrote first and
// then waited on a row lock commits after the holder but is published
// before it). A consumer that must apply two overlapping writes of one
// entity in commit order compares the entity's version carried in the fact.
// Rows of one transaction come in insertion order.
//
// A transaction that stays open (anywhere in the cluster: the horizon is
// cluster-wide) holds back every fact above its transaction id until it
// ends: delivery is delayed, never reordered; monitor Backlog's age.
//
// # Several relays
//
// Each batch runs in one transaction that first takes a transaction-level
// advisory lock derived from the table name (pg_try_advisory_xact_lock).
// Only the holder publishes, so several relay processes give fail-over, not
// parallel publishing, and the global (txid, id) order, hence every
// tenant's order, holds whichever relay publishes. The lock is released when
// the batch commits or the relay's connection ends, so a killed relay is
// replaced at the next poll of another.
package outbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"log/slog"
	"regexp"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Message is one committed outbox row: the fact of one write.
type Message struct {
	ID        int64           // outbox id: the consumer's deduplication key
	TxID      uint64          // transaction id of the write
	Tenant    string          // tenant of the write
	Tool      string          // tool that wrote
	Fact      string          // fact name (WithFactName; the tool by default)
	Request   json.RawMessage // the write's request, as stored
	Response  json.RawMessage // the write's answer, as stored
	CreatedAt time.Time       // when the row was inserted
}

// Position is where a message sits in the publication order.
func (m Message) Position() Position { return Position{TxID: m.TxID, ID: m.ID} }

// Position orders messages as the relay publishes them: by transaction id,
// then outbox id.
type Position struct {
	TxID uint64
	ID   int64
}

// After reports whether p comes after q in publication order.
func (p Position) After(q Position) bool {
	if p.TxID != q.TxID {
		return p.TxID > q.TxID
	}
	return p.ID > q.ID
}

// Publisher hands messages to a broker.
type Publisher interface {
	// Publish delivers msgs in the given order and returns nil only when
	// the broker accepted every one of them. On an error nothing of the
	// batch is marked delivered and the relay publishes it again later, so
	// a message may reach the broker more than once.
	Publish(ctx context.Context, msgs []Message) error
}

// PublisherFunc adapts a function to Publisher.
type PublisherFunc func(ctx context.Context, msgs []Message) error

// Publish calls f.
func (f PublisherFunc) Publish(ctx context.Context, msgs []Message) error { return f(ctx, msgs) }

// Defaults of a Relay.
const (
	DefaultBatchSize    = 500
	DefaultPollInterval = 200 * time.Millisecond
	DefaultBatchTimeout = 30 * time.Second
)

// Relay publishes the committed rows of one outbox table.
type Relay struct {
	pool    *pgxpool.Pool
	table   string
	pub     Publisher
	batch   int
	poll    time.Duration
	timeout time.Duration
	fact    func(tool string) string
	log     *slog.Logger
	lockKey int64
	sel     string
	mark    string
}

// Option configures a Relay.
type Option func(*Relay)

// WithBatchSize sets how many rows one batch publishes at most.
func WithBatchSize(n int) Option { return func(r *Relay) { r.batch = n } }

// WithPollInterval sets how long Run waits after a batch that found less
// than a full batch (or found another relay holding the lock).
func WithPollInterval(d time.Duration) Option { return func(r *Relay) { r.poll = d } }

// WithBatchTimeout bounds one batch (select, publish, mark); a broker that
// hangs fails the batch after it and the rows are published again.
func WithBatchTimeout(d time.Duration) Option { return func(r *Relay) { r.timeout = d } }

// WithFactName names each message's fact from its tool (Message.Fact).
func WithFactName(f func(tool string) string) Option { return func(r *Relay) { r.fact = f } }

// WithLogger sets where Run logs failed batches (default slog.Default()).
func WithLogger(l *slog.Logger) Option { return func(r *Relay) { r.log = l } }

var tableRE = regexp.MustCompile(`^[a-z_][a-z0-9_]{0,62}$`)

// New returns a relay of table (an unquoted, lower-case name such as
// archimate_outbox) to pub.
func New(pool *pgxpool.Pool, table string, pub Publisher, opts ...Option) (*Relay, error) {
	if !tableRE.MatchString(table) {
		return nil, fmt.Errorf("outbox: invalid table name %q: use lower-case letters, digits and _ (at most 63), not starting with a digit", table)
	}
	if pool == nil || pub == nil {
		return nil, errors.New("outbox: New needs a pool and a publisher")
	}
	r := &Relay{pool: pool, table: table, pub: pub, batch: DefaultBatchSize, poll: DefaultPollInterval,
		timeout: DefaultBatchTimeout, fact: func(tool string) string { return tool }, log: slog.Default()}
	for _, o := range opts {
		o(r)
	}
	if r.fact == nil || r.log == nil {
		return nil, errors.New("outbox: WithFactName and WithLogger need a non-nil argument")
	}
	if r.batch < 1 || r.poll <= 0 || r.timeout <= 0 {
		return nil, fmt.Errorf("outbox: batch size (%d), poll interval (%v) and batch timeout (%v) must be positive", r.batch, r.poll, r.timeout)
	}
	h := fnv.New64a()
	h.Write([]byte("mcpwrite-outbox-relay:" + table))
	r.lockKey = int64(h.Sum64())
	r.sel = `SELECT id, txid::text, tenant, tool, request, response, created_at FROM ` + table + `
WHERE delivered_at IS NULL AND txid < pg_snapshot_xmin(pg_current_snapshot())
ORDER BY txid, id LIMIT $1`
	r.mark = `UPDATE ` + table + ` SET delivered_at = now() WHERE id = ANY($1)`
	return r, nil
}

// Table is the outbox table the relay reads.
func (r *Relay) Table() string { return r.table }

// Check verifies that the table exists with the columns the relay reads,
// so a misconfigured relay fails at start with the reason.
func (r *Relay) Check(ctx context.Context) error {
	rows, err := r.pool.Query(ctx, `SELECT column_name, data_type FROM information_schema.columns
WHERE table_schema = current_schema() AND table_name = $1`, r.table)
	if err != nil {
		return fmt.Errorf("outbox: check table %s: %w", r.table, err)
	}
	got := map[string]string{}
	for rows.Next() {
		var name, typ string
		if err := rows.Scan(&name, &typ); err != nil {
			return fmt.Errorf("outbox: check table %s: %w", r.table, err)
		}
		got[name] = typ
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("outbox: check table %s: %w", r.table, err)
	}
	if len(got) == 0 {
		return fmt.Errorf("outbox: table %s does not exist in the current schema: start the server on this database once (it migrates the table) or check the table prefix", r.table)
	}
	want := [][2]string{{"id", "bigint"}, {"tenant", "text"}, {"tool", "text"}, {"request", "jsonb"}, {"response", "jsonb"},
		{"created_at", "timestamp with time zone"}, {"txid", "xid8"}, {"delivered_at", "timestamp with time zone"}}
	for _, c := range want {
		if got[c[0]] != c[1] {
			have := got[c[0]]
			if have == "" {
				have = "missing"
			}
			return fmt.Errorf("outbox: table %s: column %s must be %s, is %s: the table predates the relay; migrate it", r.table, c[0], c[1], have)
		}
	}
	return nil
}

// Batch is what one call of Once did.
type Batch struct {
	Delivered int  // rows published and marked delivered
	Busy      bool // another relay held the lock; nothing was done
}

// Once publishes at most one batch: under the relay lock, the committed
// undelivered rows below the horizon in (txid, id) order, then marks them
// delivered in the same transaction. On an error nothing is marked.
func (r *Relay) Once(ctx context.Context) (Batch, error) {
	ctx, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()
	tx, err := r.pool.Begin(ctx)
	if err != nil {
		return Batch{}, fmt.Errorf("outbox: begin: %w", err)
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
	var locked bool
	if err := tx.QueryRow(ctx, `SELECT pg_try_advisory_xact_lock($1)`, r.lockKey).Scan(&locked); err != nil {
		return Batch{}, fmt.Errorf("outbox: relay lock: %w", err)
	}
	if !locked {
		return Batch{Busy: true}, nil
	}
	msgs, err := r.pending(ctx, tx)
	if err != nil || len(msgs) == 0 {
		return Batch{}, err
	}
	if err := r.pub.Publish(ctx, msgs); err != nil {
		return Batch{}, fmt.Errorf("outbox: publish %d messages (ids %d..%d): %w", len(msgs), msgs[0].ID, msgs[len(msgs)-1].ID, err)
	}
	ids := make([]int64, len(msgs))
	for i, m := range msgs {
		ids[i] = m.ID
	}
	if _, err := tx.Exec(ctx, r.mark, ids); err != nil {
		return Batch{}, fmt.Errorf("outbox: mark delivered: %w", err)
	}
	if err := tx.Commit(ctx); err != nil {
		return Batch{}, fmt.Errorf("outbox: commit delivered marks: %w", err)
	}
	return Batch{Delivered: len(msgs)}, nil
}

// pending reads the next batch below the horizon.
func (r *Relay) pending(ctx context.Context, tx pgx.Tx) ([]Message, error) {
	rows, err := tx.Query(ctx, r.sel, r.batch)
	if err != nil {
		return nil, fmt.Errorf("outbox: read %s: %w", r.table, err)
	}
	defer rows.Close()
	var msgs []Message
	for rows.Next() {
		var m Message
		var txid string
		if err := rows.Scan(&m.ID, &txid, &m.Tenant, &m.Tool, &m.Request, &m.Response, &m.CreatedAt); err != nil {
			return nil, fmt.Errorf("outbox: read %s: %w", r.table, err)
		}
		if m.TxID, err = strconv.ParseUint(txid, 10, 64); err != nil {
			return nil, fmt.Errorf("outbox: row %d: txid %q: %w", m.ID, txid, err)
		}
		m.Fact = r.fact(m.Tool)
		msgs = append(msgs, m)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("outbox: read %s: %w", r.table, err)
	}
	return msgs, nil
}

// Run publishes batches until ctx ends: at once again after a full batch,
// after the poll interval otherwise. A failed batch is logged and retried
// after a back-off that doubles up to 30 poll intervals. Run returns
// ctx's error.
func (r *Relay) Run(ctx context.Context) error {
	backoff := r.poll
	for {
		b, err := r.Once(ctx)
		wait := r.poll
		switch {
		case ctx.Err() != nil:
			return ctx.Err()
		case err != nil:
			r.log.Error("outbox relay: batch failed; it will be published again", "table", r.table, "error", err, "retry_in", backoff)
			wait, backoff = backoff, min(2*backoff, 30*r.poll)
		case b.Delivered == r.batch:
			wait, backoff = 0, r.poll
		default:
			backoff = r.poll
		}
		if wait > 0 {
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(wait):
			}
		}
	}
}

// Backlog is what is waiting: rows not yet delivered (committed or not yet
// below the horizon) and the age of the oldest of them.
type Backlog struct {
	Undelivered int64
	OldestAge   time.Duration
}

// Backlog reads the undelivered rows' count and oldest age: the figures to
// monitor (a growing age means the relay is down, the broker refuses, or a
// long transaction holds the horizon back).
func (r *Relay) Backlog(ctx context.Context) (Backlog, error) {
	var b Backlog
	var age *float64
	err := r.pool.QueryRow(ctx, `SELECT count(*), extract(epoch FROM now() - min(created_at))::float8 FROM `+r.table+` WHERE delivered_at IS NULL`).Scan(&b.Undelivered, &age)
	if err != nil {
		return Backlog{}, fmt.Errorf("outbox: backlog of %s: %w", r.table, err)
	}
	if age != nil {
		b.OldestAge = time.Duration(*age * float64(time.Second))
	}
	return b, nil
}
