package runtime_test

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/gosdk"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/idempotency"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/callmeta"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/impl"
)

// The read tool get_note reads one note of the caller's tenant. It reuses
// the harness messages: its request is DeleteNoteRequest's shape (id and a
// meta envelope whose tenant comes from the request context), its response
// CreateNoteResponse's (the note).
const getNoteDoc = `{
  "name": "get_note",
  "method": "notes.v1.NoteService.GetNote",
  "title": "Get note",
  "description": "Get one note by id. Read-only: changes nothing.",
  "kind": "READ",
  "classification": "READ_ONLY",
  "confirmation": "DIRECT",
  "hints": {"read_only": true, "destructive": false, "idempotent": true, "open_world": false},
  "result": "note",
  "next_steps": ["delete_note"],
  "input_schema": {"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"], "additionalProperties": false},
  "output_schema": {"type": "object", "properties": {"success": {"type": "boolean"}, "note": {"type": "object"}}, "required": ["success"]},
  "required_fields": ["id"],
  "optional_fields": [],
  "server_fills": [{"field": "meta.tenant_id", "source": "context", "how": "tenant id from the request context"}]
}`

// countingStore counts every idempotency store call.
type countingStore struct {
	*idempotency.MemoryStore
	mu    sync.Mutex
	calls map[string]int
}

func newCountingStore() *countingStore {
	return &countingStore{MemoryStore: idempotency.NewMemoryStore(), calls: map[string]int{}}
}

func (s *countingStore) count(op string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls[op]++
}

func (s *countingStore) snapshot() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]int{}
	for k, v := range s.calls {
		out[k] = v
	}
	return out
}

func (s *countingStore) Claim(ctx context.Context, k idempotency.Key, fp string, now time.Time, lease time.Duration) (idempotency.ClaimResult, error) {
	s.count("claim")
	return s.MemoryStore.Claim(ctx, k, fp, now, lease)
}

func (s *countingStore) Complete(ctx context.Context, k idempotency.Key, fp string, resp []byte, isErr bool, now time.Time, ttl time.Duration) error {
	s.count("complete")
	return s.MemoryStore.Complete(ctx, k, fp, resp, isErr, now, ttl)
}

func (s *countingStore) Release(ctx context.Context, k idempotency.Key, fp string) error {
	s.count("release")
	return s.MemoryStore.Release(ctx, k, fp)
}

func (s *countingStore) Get(ctx context.Context, k idempotency.Key, now time.Time) (*idempotency.Record, error) {
	s.count("get")
	return s.MemoryStore.Get(ctx, k, now)
}

// endsObserver records every finished call.
type endsObserver struct {
	mu   sync.Mutex
	ends []runtime.CallEnd
}

func (o *endsObserver) CallStarted(ctx context.Context, _ runtime.CallStart) context.Context {
	return ctx
}

func (o *endsObserver) CallEnded(_ context.Context, e runtime.CallEnd) {
	o.mu.Lock()
	defer o.mu.Unlock()
	e.Duration = 0
	o.ends = append(o.ends, e)
}

// readNotes are the notes get_note reads, by tenant then id.
var readNotes = map[string]map[string]string{
	"acme":   {"note-a": "Buy milk"},
	"globex": {"note-g": "Globex secret plan"},
}

// readService is the harness service plus the read tool get_note; reads
// counts the read handler's calls.
func readService(t *testing.T, d *domain, reads *int, doc string) *impl.Service {
	t.Helper()
	svc := d.service()
	svc.Doc = []byte(doc)
	svc.Tools = append(svc.Tools, &impl.Tool{
		Name:       "get_note",
		NewRequest: func() proto.Message { return newMsg("DeleteNoteRequest") },
		Decode: func(dec *impl.Decoder, obj *impl.Object, req proto.Message) {
			dec.Known(obj, []string{"id"})
			if s, ok := dec.String(obj.Get("id"), "id"); ok {
				setStr(req.ProtoReflect(), "id", s)
			} else if !obj.Get("id").Present() {
				dec.Missing("id")
			}
		},
		Enrich: func(c *impl.Call, req proto.Message) error {
			tenant, err := c.ContextValue(callmeta.ContextTenantID, "meta.tenant_id")
			if err != nil {
				return err
			}
			m := req.ProtoReflect()
			meta := m.Mutable(m.Descriptor().Fields().ByName("meta")).Message()
			setStr(meta, "tenant_id", tenant)
			return nil
		},
		Invoke: func(ctx context.Context, req proto.Message) (proto.Message, error) {
			d.mu.Lock()
			*reads++
			d.mu.Unlock()
			m := req.ProtoReflect()
			tenant := getStr(m.Get(m.Descriptor().Fields().ByName("meta")).Message().Interface(), "tenant_id")
			id := getStr(req, "id")
			title, ok := readNotes[tenant][id]
			if !ok {
				return nil, status.Errorf(codes.NotFound, "note %s not found", id)
			}
			note := newMsg("Note")
			setStr(note, "id", id)
			setStr(note, "title", title)
			resp := newMsg("CreateNoteResponse")
			resp.Set(resp.Descriptor().Fields().ByName("note"), protoreflect.ValueOfMessage(note))
			return resp, nil
		},
	})
	return svc
}

// withReadTool is notesDoc with get_note appended to its tools.
func withReadTool(t *testing.T, tool string) string {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal([]byte(notesDoc), &doc); err != nil {
		t.Fatal(err)
	}
	var entry any
	if err := json.Unmarshal([]byte(tool), &entry); err != nil {
		t.Fatal(err)
	}
	svc := doc["services"].([]any)[0].(map[string]any)
	svc["tools"] = append(svc["tools"].([]any), entry)
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// readHarness is the harness with get_note registered; reads counts the
// read handler's calls.
type readHarness struct {
	*harness
	reads int
}

func newReadHarness(t *testing.T, opts ...runtime.Option) *readHarness {
	t.Helper()
	h := &readHarness{harness: &harness{t: t, dom: newDomain(), clock: &fakeClock{t: time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)}, log: &strings.Builder{}, logMu: &sync.Mutex{}}}
	server := mcp.NewServer(&mcp.Implementation{Name: "notes", Version: "v0.0.1"}, nil)
	opts = append([]runtime.Option{
		runtime.WithClock(h.clock.Now),
		runtime.WithRand(&seqReader{}),
		runtime.WithRequestContextFunc(metaContext),
		runtime.WithLogger(slogTo(h.log, h.logMu)),
	}, opts...)
	if err := gosdk.Register(server, readService(t, h.dom, &h.reads, withReadTool(t, getNoteDoc)), opts...); err != nil {
		t.Fatalf("Register: %v", err)
	}
	ct, st := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := server.Connect(ctx, st, nil)
	if err != nil {
		t.Fatalf("server connect: %v", err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "v0.0.1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatalf("client connect: %v", err)
	}
	t.Cleanup(func() { cs.Close(); ss.Wait() })
	h.cs = cs
	return h
}

func (h *readHarness) readCount() int {
	h.dom.mu.Lock()
	defer h.dom.mu.Unlock()
	return h.reads
}

var globexBob = caller{"globex", "bob"}

func TestReadCallGoesStraightToTheHandlerWithTheCallersTenant(t *testing.T) {
	h := newReadHarness(t)
	got := h.call(alice, "get_note", `{"id":"note-a"}`)
	want := `{"success":true,"note":{"id":"note-a","title":"Buy milk"},"suggestions":["Call delete_note to delete a note"],"warnings":[]}`
	if got.isError || got.text != want {
		t.Fatalf("got isError=%v\n%s\nwant\n%s", got.isError, got.text, want)
	}
	// Another tenant's id answers as one that never existed.
	got = h.call(globexBob, "get_note", `{"id":"note-a"}`)
	want = `{"success":false,"error":{"code":"NOT_FOUND","message":"note note-a not found"},"errors":[{"code":"NOT_FOUND","message":"note note-a not found"}]}`
	if !got.isError || got.text != want {
		t.Fatalf("got isError=%v\n%s\nwant\n%s", got.isError, got.text, want)
	}
	if n := h.readCount(); n != 2 {
		t.Fatalf("read handler called %d times, want 2", n)
	}
}

// A read never claims, completes, releases or looks up an idempotency key;
// the same store counts a keyed write's calls, so the count is live.
func TestReadCallNeverTouchesTheIdempotencyStore(t *testing.T) {
	store := newCountingStore()
	h := newReadHarness(t, runtime.WithIdempotency(runtime.IdempotencyOptions{Store: store}))
	for range 3 {
		if got := h.call(alice, "get_note", `{"id":"note-a"}`); got.isError {
			t.Fatalf("read failed: %s", got.text)
		}
	}
	h.call(alice, "get_note", `{"id":"missing"}`)
	h.call(alice, "get_note", `{"id":5}`)
	if got := store.snapshot(); len(got) != 0 {
		t.Fatalf("reads made idempotency store calls %v, want none", got)
	}
	h.call(alice, "create_note", `{"title":"Buy milk","description":"2 l","client_request_id":"k-1"}`)
	if got, want := store.snapshot(), map[string]int{"claim": 1, "complete": 1}; !reflect.DeepEqual(got, want) {
		t.Fatalf("keyed write made store calls %v, want %v", got, want)
	}
}

func TestReadErrorsUseTheWriteEnvelope(t *testing.T) {
	tests := []struct {
		name string
		who  caller
		args string
		want string
	}{{
		name: "client_request_id is not a read's argument",
		who:  alice,
		args: `{"id":"note-a","client_request_id":"k-1"}`,
		want: `{"success":false,
			"error":{"code":"UNKNOWN_FIELD","message":"unknown field \"client_request_id\": get_note is a read tool and takes no client_request_id","field":"client_request_id","suggestions":{"hint":"A read changes nothing and is safe to repeat; leave client_request_id out."}},
			"errors":[{"code":"UNKNOWN_FIELD","message":"unknown field \"client_request_id\": get_note is a read tool and takes no client_request_id","field":"client_request_id","suggestions":{"hint":"A read changes nothing and is safe to repeat; leave client_request_id out."}}]}`,
	}, {
		name: "dry_run is not a read's argument, and id is missing",
		who:  alice,
		args: `{"dry_run":true}`,
		want: `{"success":false,
			"error":{"code":"UNKNOWN_FIELD","message":"unknown field \"dry_run\": get_note is a read tool and takes no dry_run","field":"dry_run","suggestions":{"hint":"A read changes nothing; call it without dry_run."}},
			"errors":[{"code":"UNKNOWN_FIELD","message":"unknown field \"dry_run\": get_note is a read tool and takes no dry_run","field":"dry_run","suggestions":{"hint":"A read changes nothing; call it without dry_run."}},
			          {"code":"MISSING_REQUIRED_FIELD","message":"missing required field \"id\"","field":"id"}]}`,
	}, {
		name: "a typo gets did-you-mean",
		who:  alice,
		args: `{"idd":"note-a"}`,
		want: `{"success":false,
			"error":{"code":"UNKNOWN_FIELD","message":"unknown field \"idd\"; did you mean \"id\"?","field":"idd","suggestions":{"did_you_mean":["id"],"valid_values":["id"]}},
			"errors":[{"code":"UNKNOWN_FIELD","message":"unknown field \"idd\"; did you mean \"id\"?","field":"idd","suggestions":{"did_you_mean":["id"],"valid_values":["id"]}},
			          {"code":"MISSING_REQUIRED_FIELD","message":"missing required field \"id\"","field":"id"}]}`,
	}, {
		name: "no tenant on the connection",
		who:  caller{},
		args: `{"id":"note-a"}`,
		want: `{"success":false,
			"error":{"code":"PERMISSION_DENIED","message":"cannot fill meta.tenant_id: the request carries no authenticated tenant","field":"meta.tenant_id","suggestions":{"hint":"The tenant comes from the authenticated connection, never from tool arguments; reconnect with credentials that carry it."}},
			"errors":[{"code":"PERMISSION_DENIED","message":"cannot fill meta.tenant_id: the request carries no authenticated tenant","field":"meta.tenant_id","suggestions":{"hint":"The tenant comes from the authenticated connection, never from tool arguments; reconnect with credentials that carry it."}}]}`,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newReadHarness(t)
			got := h.call(tt.who, "get_note", tt.args)
			if !got.isError || got.text != compact(tt.want) {
				t.Fatalf("got isError=%v\n%s\nwant\n%s", got.isError, got.text, compact(tt.want))
			}
			if n := h.readCount(); n != 0 {
				t.Fatalf("read handler called %d times for a refused call", n)
			}
		})
	}
}

// A policy that asks for a proposal on every call governs writes only: a
// read is neither confirmed nor proposed, and the policy is not asked.
func TestReadIgnoresTheConfirmationPolicy(t *testing.T) {
	var asked []string
	var mu sync.Mutex
	h := newReadHarness(t, runtime.WithPolicy(func(_ context.Context, pc runtime.PolicyCall) runtime.Confirmation {
		mu.Lock()
		defer mu.Unlock()
		asked = append(asked, pc.Tool)
		return runtime.ConfirmProposal
	}))
	got := h.call(alice, "get_note", `{"id":"note-a"}`)
	if got.isError || field(t, got.text, "note.title") != "Buy milk" || strings.Contains(got.text, "proposal") {
		t.Fatalf("read was governed: %s", got.text)
	}
	got = h.call(alice, "create_note", `{"title":"Buy milk","description":"2 l"}`)
	if field(t, got.text, "proposal.tool") != "create_note" {
		t.Fatalf("write was not proposed: %s", got.text)
	}
	mu.Lock()
	defer mu.Unlock()
	if !reflect.DeepEqual(asked, []string{"create_note"}) {
		t.Fatalf("policy asked for %v, want only create_note", asked)
	}
}

func TestValidateWriteRefusesAReadToolByName(t *testing.T) {
	h := newReadHarness(t)
	got := h.call(alice, "validate_write", `{"operation":"get_note","payload":"{\"id\":\"note-a\"}"}`)
	entry := `{"code":"UNKNOWN_OPERATION","message":"get_note is a read tool: validate_write checks writes only; call get_note directly, it changes nothing","field":"operation",
		"details":{"kind":"READ","operation":"get_note"},
		"suggestions":{"valid_values":["create_note","delete_note"],"hint":"Call get_note itself; use validate_write only before a write."}}`
	want := compact(`{"success":false,"error":` + entry + `,"errors":[` + entry + `]}`)
	if !got.isError || got.text != want {
		t.Fatalf("got isError=%v\n%s\nwant\n%s", got.isError, got.text, want)
	}
	// An unknown name is offered the writes only.
	got = h.call(alice, "validate_write", `{"operation":"get_nte","payload":"{}"}`)
	if v := valueAt(t, got.text, "error.suggestions.valid_values"); v != "[create_note delete_note]" {
		t.Fatalf("valid_values %s in %s", v, got.text)
	}
	if n := h.readCount(); n != 0 {
		t.Fatalf("read handler called %d times", n)
	}
}

func TestToolsListShowsAReadAsReadOnly(t *testing.T) {
	h := newReadHarness(t)
	res, err := h.cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	tools := map[string]*mcp.Tool{}
	for _, tl := range res.Tools {
		tools[tl.Name] = tl
	}
	get := tools["get_note"]
	if get == nil {
		t.Fatalf("get_note not listed")
	}
	f := false
	want := &mcp.ToolAnnotations{Title: "Get note", ReadOnlyHint: true, DestructiveHint: &f, IdempotentHint: true, OpenWorldHint: &f}
	if !reflect.DeepEqual(get.Annotations, want) {
		t.Fatalf("annotations %+v, want %+v", get.Annotations, want)
	}
	if get.Meta["mcpwrite/kind"] != "READ" || get.Meta["mcpwrite/classification"] != "READ_ONLY" || get.Meta["mcpwrite/confirmation"] != "DIRECT" {
		t.Fatalf("meta %v", get.Meta)
	}
	enumOf := func(tool string) string {
		b, _ := json.Marshal(tools[tool].InputSchema)
		return valueAt(t, string(b), "properties.operation.enum")
	}
	if got := enumOf("validate_write"); got != "[create_note delete_note]" {
		t.Fatalf("validate_write offers %s", got)
	}
	if got := enumOf("get_write_schema"); got != "[create_note delete_note get_note]" {
		t.Fatalf("get_write_schema offers %s", got)
	}
	if d := tools["get_write_schema"].Description; d != "Get the JSON schema of a write or read operation with examples, required and optional fields, and the fields the server fills itself." {
		t.Fatalf("get_write_schema description %q", d)
	}
	got := h.call(alice, "get_write_schema", `{"operation":"get_note"}`)
	for path, want := range map[string]string{"kind": "READ", "classification": "READ_ONLY", "confirmation": "DIRECT"} {
		if v := field(t, got.text, path); v != want {
			t.Fatalf("get_write_schema %s = %q, want %q", path, v, want)
		}
	}
}

func TestObserverRecordsAReadAsARead(t *testing.T) {
	obs := &endsObserver{}
	h := newReadHarness(t, runtime.WithObserver(obs))
	h.call(alice, "get_note", `{"id":"note-a"}`)
	h.call(alice, "get_note", `{"id":"missing"}`)
	h.call(alice, "create_note", `{"title":"Buy milk","description":"2 l"}`)
	want := []runtime.CallEnd{
		{Tool: "get_note", Outcome: "success", Read: true},
		{Tool: "get_note", Outcome: "error", ErrorCode: "NOT_FOUND", Read: true},
		{Tool: "create_note", Outcome: "success"},
	}
	obs.mu.Lock()
	defer obs.mu.Unlock()
	if !reflect.DeepEqual(obs.ends, want) {
		t.Fatalf("ends\n%+v\nwant\n%+v", obs.ends, want)
	}
}

func TestRegisterRefusesAConfirmedRead(t *testing.T) {
	d := newDomain()
	var reads int
	doc := withReadTool(t, strings.Replace(getNoteDoc, `"confirmation": "DIRECT"`, `"confirmation": "PROPOSAL"`, 1))
	err := gosdk.Register(mcp.NewServer(&mcp.Implementation{Name: "notes", Version: "v0.0.1"}, nil), readService(t, d, &reads, doc),
		runtime.WithRequestContextFunc(metaContext))
	want := `runtime: service notes.v1.NoteService: tool "get_note" is a read (kind READ) but asks for PROPOSAL confirmation; a read is never confirmed`
	if err == nil || err.Error() != want {
		t.Fatalf("err %v, want %s", err, want)
	}
}

// Preparer runs a read's decode and enrichment as a call would, and keeps
// client_request_id an unknown field.
func TestPreparerPreparesARead(t *testing.T) {
	d := newDomain()
	var reads int
	p, err := runtime.NewPreparer(readService(t, d, &reads, withReadTool(t, getNoteDoc)))
	if err != nil {
		t.Fatal(err)
	}
	m, es := p.Prepare(context.Background(), "get_note", []byte(`{"id":"note-a"}`), runtime.RequestContext{TenantID: "acme", PrincipalID: "alice"})
	if len(es) != 0 {
		t.Fatalf("errors %v", es)
	}
	r := m.ProtoReflect()
	if id, tenant := getStr(m, "id"), getStr(r.Get(r.Descriptor().Fields().ByName("meta")).Message().Interface(), "tenant_id"); id != "note-a" || tenant != "acme" {
		t.Fatalf("prepared id %q tenant %q", id, tenant)
	}
	_, es = p.Decode("get_note", []byte(`{"id":"note-a","client_request_id":"k"}`))
	if len(es) != 1 || es[0].Message != `unknown field "client_request_id": get_note is a read tool and takes no client_request_id` {
		t.Fatalf("errors %v", es)
	}
	if reads != 0 {
		t.Fatalf("Preparer called the handler")
	}
}
