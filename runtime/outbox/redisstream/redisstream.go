// Package redisstream publishes outbox messages to Redis Streams and reads
// them back: Publisher is an outbox.Publisher (one pipelined XADD per
// message, in order), Decode turns a stream entry into the message, and
// Dedup drops the copies an at-least-once relay may publish.
//
// Each entry has the fields outbox_id, txid, tenant, tool, fact, request,
// response (JSON as stored) and created_at (RFC 3339, UTC).
package redisstream

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/outbox"
)

// DefaultStream is the stream every message goes to unless WithStream or
// WithStreamPerTenant says otherwise.
const DefaultStream = "mcpwrite:facts"

// Publisher appends messages to Redis Streams.
type Publisher struct {
	client      redis.Cmdable
	stream      func(tenant string) string
	maxLen      int64
	replicas    int
	waitTimeout time.Duration
}

var _ outbox.Publisher = (*Publisher)(nil)

// Option configures a Publisher.
type Option func(*Publisher)

// WithStream sends every message to one stream: one order over all tenants.
func WithStream(name string) Option {
	return func(p *Publisher) { p.stream = func(string) string { return name } }
}

// WithStreamPerTenant sends a tenant's messages to prefix+tenant, so a
// consumer can follow one tenant; each stream keeps its tenant's order.
func WithStreamPerTenant(prefix string) Option {
	return func(p *Publisher) { p.stream = func(t string) string { return prefix + t } }
}

// WithMaxLen trims each stream to about n entries (XADD MAXLEN ~ n); 0
// keeps everything. Trim only what every consumer has read.
func WithMaxLen(n int64) Option { return func(p *Publisher) { p.maxLen = n } }

// WithWaitReplicas makes a batch count as published only once n replicas
// acknowledged it (WAIT n timeout after the XADDs): a failover to a replica
// then cannot lose a fact the relay marked delivered. Without it a batch is
// published when the primary accepted it, and only its persistence
// (appendonly, appendfsync) keeps it across a crash.
func WithWaitReplicas(n int, timeout time.Duration) Option {
	return func(p *Publisher) { p.replicas, p.waitTimeout = n, timeout }
}

// New returns a publisher on client.
func New(client redis.Cmdable, opts ...Option) *Publisher {
	p := &Publisher{client: client}
	WithStream(DefaultStream)(p)
	for _, o := range opts {
		o(p)
	}
	return p
}

// Stream is the stream a tenant's messages go to.
func (p *Publisher) Stream(tenant string) string { return p.stream(tenant) }

// Publish appends msgs in order in one pipeline. It fails when any XADD
// failed; the ones before it may have been appended (the relay publishes
// the batch again and the consumer drops the copies).
func (p *Publisher) Publish(ctx context.Context, msgs []outbox.Message) error {
	if len(msgs) == 0 {
		return nil
	}
	pipe := p.client.Pipeline()
	for _, m := range msgs {
		pipe.XAdd(ctx, &redis.XAddArgs{Stream: p.stream(m.Tenant), MaxLen: p.maxLen, Approx: p.maxLen > 0, Values: Fields(m)})
	}
	var wait *redis.Cmd
	if p.replicas > 0 { // on the pipeline's connection: WAIT covers that connection's writes
		wait = pipe.Do(ctx, "WAIT", p.replicas, p.waitTimeout.Milliseconds())
	}
	cmds, err := pipe.Exec(ctx)
	if err != nil {
		for i, c := range cmds[:len(msgs)] {
			if c.Err() != nil {
				return fmt.Errorf("redisstream: XADD of outbox id %d (%d of %d): %w", msgs[i].ID, i+1, len(msgs), c.Err())
			}
		}
		return fmt.Errorf("redisstream: XADD pipeline: %w", err)
	}
	if wait != nil {
		acked, err := wait.Int64()
		if err != nil {
			return fmt.Errorf("redisstream: WAIT %d replicas: %w", p.replicas, err)
		}
		if acked < int64(p.replicas) {
			return fmt.Errorf("redisstream: %d of %d replicas acknowledged the batch within %v; it will be published again", acked, p.replicas, p.waitTimeout)
		}
	}
	return nil
}

// Fields are the stream entry fields of m.
func Fields(m outbox.Message) []any {
	return []any{
		"outbox_id", strconv.FormatInt(m.ID, 10),
		"txid", strconv.FormatUint(m.TxID, 10),
		"tenant", m.Tenant,
		"tool", m.Tool,
		"fact", m.Fact,
		"request", string(m.Request),
		"response", string(m.Response),
		"created_at", m.CreatedAt.UTC().Format(time.RFC3339Nano),
	}
}

// Decode reads the message of a stream entry; an entry without the
// fields Publisher writes is an error naming the entry and the field.
func Decode(e redis.XMessage) (outbox.Message, error) {
	var m outbox.Message
	str := func(name string) (string, error) {
		v, ok := e.Values[name].(string)
		if !ok {
			return "", fmt.Errorf("redisstream: entry %s has no %s field: not an outbox message", e.ID, name)
		}
		return v, nil
	}
	var err error
	get := func(name string, dst *string) {
		if err == nil {
			*dst, err = str(name)
		}
	}
	var id, txid, req, resp, created string
	get("outbox_id", &id)
	get("txid", &txid)
	get("tenant", &m.Tenant)
	get("tool", &m.Tool)
	get("fact", &m.Fact)
	get("request", &req)
	get("response", &resp)
	get("created_at", &created)
	if err != nil {
		return outbox.Message{}, err
	}
	if m.ID, err = strconv.ParseInt(id, 10, 64); err != nil || m.ID < 1 {
		return outbox.Message{}, fmt.Errorf("redisstream: entry %s: outbox_id %q is not a positive integer", e.ID, id)
	}
	if m.TxID, err = strconv.ParseUint(txid, 10, 64); err != nil {
		return outbox.Message{}, fmt.Errorf("redisstream: entry %s: txid %q is not an unsigned integer", e.ID, txid)
	}
	if !json.Valid([]byte(req)) || !json.Valid([]byte(resp)) {
		return outbox.Message{}, fmt.Errorf("redisstream: entry %s (outbox id %d): request or response is not JSON", e.ID, m.ID)
	}
	m.Request, m.Response = json.RawMessage(req), json.RawMessage(resp)
	if m.CreatedAt, err = time.Parse(time.RFC3339Nano, created); err != nil {
		return outbox.Message{}, fmt.Errorf("redisstream: entry %s: created_at %q: %v", e.ID, created, err)
	}
	return m, nil
}

// Dedup drops the copies of messages already seen on one stream. The relay
// publishes first copies in (txid, id) order, and a copy always repeats a
// message published before, so the position of the last message taken is
// all the state it needs; a consumer that must survive restarts stores
// Last with its own effects, in the same transaction, and starts from it.
type Dedup struct {
	// Last is the position of the last message taken.
	Last outbox.Position
}

// Take reports whether m is new (and moves past it) or a copy.
func (d *Dedup) Take(m outbox.Message) bool {
	if !m.Position().After(d.Last) {
		return false
	}
	d.Last = m.Position()
	return true
}
