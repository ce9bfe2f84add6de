package impl

import (
	"context"
	crand "crypto/rand"
	"errors"
	"fmt"
	"io"
	"time"

	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/callmeta"
)

// Call carries one tool call through enrichment: generated Enrich code
// reads the request context, the call's fixed time and its ID sources here.
type Call struct {
	Ctx             context.Context
	Tool            string
	RC              callmeta.RequestMetadata
	HasRC           bool // a RequestMetadata was established for this call
	ClientRequestID string
	DryRun          bool
	Clock           func() time.Time // nil = time.Now; the pipeline sets it from options
	Rand            io.Reader        // nil = cryptographically strong bytes (randomBlock); tests inject a deterministic reader
	// IDSecret keys RequestScopedID; nil = the process's random secret.
	// The pipeline sets it from runtime.WithSecrets.
	IDSecret []byte

	now    time.Time // the call's instant, fixed on first use
	nowSet bool
	// refPath is where enrichment is in the agent's input, so an error in
	// a nested message or item names the whole path (Enter, Leave), and an
	// item's request-scoped ID is its own. It starts in refBuf, so the
	// usual depths cost no allocation.
	refPath []pathSeg
	refBuf  [6]pathSeg
	// rnd receives random bytes: a reader may keep the slice it is given,
	// so a buffer on the stack would be moved to the heap for every ID.
	rnd [16]byte
	// block, when set, is the random block of the call's scratch.
	block *randomBlock
}

// Enter descends into the agent-facing field key while nested messages
// are enriched. For use by generated code.
func (c *Call) Enter(key string) { c.enter(pathSeg{key: key}) }

// enter appends s to the path, in refBuf while it has room.
func (c *Call) enter(s pathSeg) {
	if c.refPath == nil {
		c.refPath = c.refBuf[:0]
	}
	c.refPath = append(c.refPath, s)
}

// EnterIndex descends into list element i. For use by generated code.
func (c *Call) EnterIndex(i int) { c.enter(pathSeg{idx: i, isIdx: true}) }

// Leave returns to the enclosing level. For use by generated code.
func (c *Call) Leave() {
	if len(c.refPath) > 0 {
		c.refPath = c.refPath[:len(c.refPath)-1]
	}
}

// path is the agent path of key at the current level.
func (c *Call) path(key string) string {
	if len(c.refPath) == 0 {
		return key
	}
	var b []byte
	for _, s := range c.refPath {
		b = appendPathSeg(b, s)
	}
	return string(appendPathSeg(b, pathSeg{key: key}))
}

// Now returns the call's instant: the same value for every field of the
// call, so created_at, updated_at and time-ordered IDs agree.
func (c *Call) Now() time.Time {
	if !c.nowSet {
		if c.Clock != nil {
			c.now = c.Clock()
		} else {
			c.now = time.Now()
		}
		c.now = c.now.Round(0) // wall clock only: the instant is data, not a stopwatch
		c.nowSet = true
	}
	return c.now
}

// random fills b from Rand, or from a random block (seeded from crypto/rand) when Rand is nil or fails
// (an exhausted test reader must not yield a predictable ID).
func (c *Call) random(b []byte) {
	if c.Rand == nil || c.Rand == crand.Reader {
		c.cryptoRandom(b)
		return
	}
	r := c.rnd[:len(b)] // b is at most an ID's 16 bytes
	if _, err := io.ReadFull(c.Rand, r); err != nil {
		c.cryptoRandom(r)
	}
	copy(b, r)
}

// cryptoRandom fills b from a random block: the call's scratch's when it
// has one, else a pooled one.
func (c *Call) cryptoRandom(b []byte) {
	if c.block != nil {
		c.block.read(b)
		return
	}
	cryptoRandom(b)
}

// UUIDv4 returns a random UUID (RFC 9562 version 4).
func (c *Call) UUIDv4() string {
	var u [16]byte
	c.random(u[:])
	setVersion(&u, 4)
	return c.uuidText(&u)
}

// UUIDv7 returns a time-ordered UUID (RFC 9562 version 7): the call's Now in
// Unix milliseconds, then 74 random bits.
func (c *Call) UUIDv7() string {
	var u [16]byte
	putMillis(&u, unixMillis(c.Now()))
	c.random(u[6:])
	setVersion(&u, 7)
	return c.uuidText(&u)
}

// ULID returns a ULID: the call's Now in Unix milliseconds (48 bits) and 80
// random bits, as 26 Crockford base32 characters.
func (c *Call) ULID() string {
	var u [16]byte
	putMillis(&u, unixMillis(c.Now()))
	c.random(u[6:])
	if c.block == nil {
		return formatULID(u)
	}
	b := c.block.text.take(26)
	putULID(b, &u)
	return seal(b)
}

// RequestScopedID returns an ID only this server can compute: a UUID
// (RFC 9562 version 8) from HMAC-SHA256 keyed with IDSecret over tenant,
// principal, tool and client_request_id (the scope of the call's key), so a retry with the same key gets the same ID
// even when every idempotency record was lost, while another tenant, who
// knows the tenant name, the tool and perhaps the key, cannot predict or
// recompute it. Without a ClientRequestID it is a UUIDv7. Inside the item
// of a list or map (elements[2]) the item's path is hashed too, so every
// item gets its own ID, the same on retry. The tenant and principal are ""
// when no RequestMetadata was established.
func (c *Call) RequestScopedID() string {
	if c.ClientRequestID == "" {
		return c.UUIDv7()
	}
	rc, _ := c.requestContext()
	var u [16]byte
	if item, _, ok := itemScope(c.refPath); ok {
		// Inside an item (elements[2]) each item has an ID of its own.
		u = keyedUUID(c.idSecret(), requestScopedLabel, rc.TenantID, rc.PrincipalID, c.Tool, c.ClientRequestID, item)
	} else {
		u = requestScopedUUID(c.idSecret(), rc.TenantID, rc.PrincipalID, c.Tool, c.ClientRequestID)
	}
	return c.uuidText(&u)
}

// idSecret keys the call's deterministic IDs: IDSecret, else the
// process's own.
func (c *Call) idSecret() []byte {
	if c.IDSecret != nil {
		return c.IDSecret
	}
	return processIDSecret()
}

// ContentHash returns a deterministic UUID-shaped ID (RFC 9562 version 8)
// from the SHA-256 of the parts, each length-prefixed, so equal content
// gives equal IDs and ("ab","c") differs from ("a","bc").
func (c *Call) ContentHash(parts ...string) string {
	u := uuidV8SHA256(parts)
	return c.uuidText(&u)
}

// ContentHash is Call.ContentHash outside a call: the same ID for the
// same parts.
func ContentHash(parts ...string) string { return formatUUID(uuidV8SHA256(parts)) }

// requestContext returns the call's RequestMetadata, falling back to the one
// carried by Ctx when the pipeline did not set one.
func (c *Call) requestContext() (callmeta.RequestMetadata, bool) {
	if !c.HasRC && c.Ctx != nil {
		if rc, ok := callmeta.RequestMetadataFrom(c.Ctx); ok {
			c.RC, c.HasRC = rc, true
		}
	}
	return c.RC, c.HasRC
}

// ContextValue returns the request-context value for the derived field
// named field (named by its whole path inside nested items). A missing tenant or principal is PERMISSION_DENIED (they are
// never defaulted: a write must not land in a guessed tenant). A missing
// correlation ID is generated once and stored in c.RC, so every field of
// the call sees the same one. Causation ID, traceparent and session ID may
// be empty.
func (c *Call) ContextValue(key callmeta.ContextKey, field string) (string, error) {
	c.requestContext()
	rc := &c.RC // not copied: a call reads several fields in a row
	switch key {
	case callmeta.ContextTenantID:
		if rc.TenantID == "" {
			return "", denied(c.path(field), "tenant")
		}
		return rc.TenantID, nil
	case callmeta.ContextPrincipalID:
		if rc.PrincipalID == "" {
			return "", denied(c.path(field), "principal")
		}
		return rc.PrincipalID, nil
	case callmeta.ContextCorrelationID:
		if rc.CorrelationID == "" {
			c.RC.CorrelationID = c.UUIDv4()
		}
		return c.RC.CorrelationID, nil
	case callmeta.ContextCausationID:
		return rc.CausationID, nil
	case callmeta.ContextTraceParent:
		return rc.TraceParent, nil
	case callmeta.ContextSessionID:
		return rc.SessionID, nil
	case callmeta.ContextClientRequestID:
		return c.ClientRequestID, nil
	case callmeta.ContextToolName:
		return c.Tool, nil
	}
	field = c.path(field)
	return "", &ErrorEntry{Code: CodeInternal, Field: field, Message: fmt.Sprintf("unknown context key %d for %s", int32(key), field)}
}

func denied(field, what string) *ErrorEntry {
	return &ErrorEntry{
		Code:    CodePermissionDenied,
		Field:   field,
		Message: fmt.Sprintf("cannot fill %s: the request carries no authenticated %s", field, what),
		Suggestions: &Suggestions{
			Hint: "The " + what + " comes from the authenticated connection, never from tool arguments; reconnect with credentials that carry it.",
		},
	}
}

// ResolverError wraps a resolver failure for field. An *ErrorEntry (or
// Errors) passes through as a copy with an empty Field set to field; gRPC
// status errors and context cancellation are returned unchanged for the
// pipeline to map; anything else becomes INTERNAL "could not resolve
// <field>" for the agent, while errors.Is/As and Error() still reach the
// cause for the server's logs.
func (c *Call) ResolverError(field string, err error) error {
	if err == nil {
		return nil
	}
	field = c.path(field)
	if list, isList, ok := EntriesOf(err); ok {
		if !isList {
			return withField(list[0], field)
		}
		out := make(Errors, len(list))
		for i, e := range list {
			out[i] = withField(e, field)
		}
		return out
	}
	if _, ok := status.FromError(err); ok {
		return err
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return &resolverFailure{
		entry: &ErrorEntry{Code: CodeInternal, Field: field, Message: "could not resolve " + field},
		cause: err,
	}
}

// withField copies e, setting an empty Field; the original may be a shared
// sentinel and is never modified.
func withField(e *ErrorEntry, field string) *ErrorEntry {
	if e == nil {
		return nil
	}
	cp := *e
	if cp.Field == "" {
		cp.Field = field
	}
	return &cp
}

// resolverFailure is the INTERNAL entry shown to the agent, joined with the
// cause kept for logs.
type resolverFailure struct {
	entry *ErrorEntry
	cause error
}

func (f *resolverFailure) Error() string   { return f.entry.Message + ": " + f.cause.Error() }
func (f *resolverFailure) Unwrap() []error { return []error{f.entry, f.cause} }

// JoinResolverErrors combines the failures of the resolvers of one request
// so the agent hears about every missing reference at once. Domain answers
// (error entries) are reported together; a transport, internal or
// cancellation failure wins on its own, so it is classified and logged as
// such. It returns nil when every error is nil.
func JoinResolverErrors(errs ...error) error {
	var out Errors
	for _, err := range errs {
		if err == nil {
			continue
		}
		var rf *resolverFailure
		if errors.As(err, &rf) {
			return err
		}
		list, _, ok := EntriesOf(err)
		if !ok {
			return err
		}
		out = append(out, list...)
	}
	switch len(out) {
	case 0:
		return nil
	case 1:
		return out[0]
	}
	return out
}

// uuidText renders u as formatUUID does, from the scratch's ID storage
// when the call has one.
func (c *Call) uuidText(u *[16]byte) string {
	if c.block == nil {
		return formatUUID(*u)
	}
	b := c.block.text.take(36)
	putUUID(b, u)
	return seal(b)
}

// NowTimestamp returns the call's Now as a new Timestamp: what
// timestamppb.New(c.Now()) returns, taken from storage the calls of one
// scratch share, so it costs no allocation of its own. Each Timestamp is
// handed out once; the caller owns it. For use by generated code.
func (c *Call) NowTimestamp() *timestamppb.Timestamp {
	t := c.Now()
	if c.block == nil {
		return timestamppb.New(t)
	}
	x := &c.block.text
	if len(x.times) == 0 {
		x.times = make([]timestamppb.Timestamp, timesChunk)
	}
	ts := &x.times[0]
	x.times = x.times[1:]
	ts.Seconds, ts.Nanos = t.Unix(), int32(t.Nanosecond())
	return ts
}
