package runtime_test

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/gosdk"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/impl"
)

// The test service is notes.v1.NoteService, built at run time as dynamic
// messages so the tests need no generated code:
//
//	message Meta { string tenant_id = 1; string correlation_id = 2; string created_at = 3; }
//	message CreateNoteRequest { string id = 1; string title = 2; string description = 3;
//	                            int32 priority = 4; string model_id = 5; Meta meta = 6;
//	                            bool confirm = 7; } // confirm: preview_unless tests only
//	message Note { string id = 1; string title = 2; string description = 3; int32 priority = 4; string model_id = 5; }
//	message CreateNoteResponse { Note note = 1; }
//	message DeleteNoteRequest { string id = 1; Meta meta = 2; }
//	message DeleteNoteResponse { string id = 1; bool deleted = 2; }
var notesFile = func() protoreflect.FileDescriptor {
	str := descriptorpb.FieldDescriptorProto_TYPE_STRING.Enum()
	i32 := descriptorpb.FieldDescriptorProto_TYPE_INT32.Enum()
	boolean := descriptorpb.FieldDescriptorProto_TYPE_BOOL.Enum()
	msg := descriptorpb.FieldDescriptorProto_TYPE_MESSAGE.Enum()
	opt := descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL.Enum()
	field := func(name string, n int32, t *descriptorpb.FieldDescriptorProto_Type, typeName string) *descriptorpb.FieldDescriptorProto {
		f := &descriptorpb.FieldDescriptorProto{Name: proto.String(name), Number: proto.Int32(n), Type: t, Label: opt, JsonName: proto.String(name)}
		if typeName != "" {
			f.TypeName = proto.String(typeName)
		}
		return f
	}
	message := func(name string, fs ...*descriptorpb.FieldDescriptorProto) *descriptorpb.DescriptorProto {
		return &descriptorpb.DescriptorProto{Name: proto.String(name), Field: fs}
	}
	fdp := &descriptorpb.FileDescriptorProto{
		Name:    proto.String("notes/v1/notes.proto"),
		Package: proto.String("notes.v1"),
		Syntax:  proto.String("proto3"),
		MessageType: []*descriptorpb.DescriptorProto{
			message("Meta", field("tenant_id", 1, str, ""), field("correlation_id", 2, str, ""), field("created_at", 3, str, "")),
			message("CreateNoteRequest", field("id", 1, str, ""), field("title", 2, str, ""), field("description", 3, str, ""),
				field("priority", 4, i32, ""), field("model_id", 5, str, ""), field("meta", 6, msg, ".notes.v1.Meta"),
				field("confirm", 7, boolean, "")),
			message("Note", field("id", 1, str, ""), field("title", 2, str, ""), field("description", 3, str, ""),
				field("priority", 4, i32, ""), field("model_id", 5, str, "")),
			message("CreateNoteResponse", field("note", 1, msg, ".notes.v1.Note")),
			message("DeleteNoteRequest", field("id", 1, str, ""), field("meta", 2, msg, ".notes.v1.Meta")),
			message("DeleteNoteResponse", field("id", 1, str, ""), field("deleted", 2, boolean, "")),
		},
	}
	fd, err := protodesc.NewFile(fdp, nil)
	if err != nil {
		panic(err)
	}
	return fd
}()

func newMsg(name string) *dynamicpb.Message {
	return dynamicpb.NewMessage(notesFile.Messages().ByName(protoreflect.Name(name)))
}

func getStr(m proto.Message, name string) string {
	r := m.ProtoReflect()
	return r.Get(r.Descriptor().Fields().ByName(protoreflect.Name(name))).String()
}

func setStr(m protoreflect.Message, name, v string) {
	if v != "" {
		m.Set(m.Descriptor().Fields().ByName(protoreflect.Name(name)), protoreflect.ValueOfString(v))
	}
}

func setMeta(c *impl.Call, req protoreflect.Message) {
	fd := req.Descriptor().Fields().ByName("meta")
	meta := req.Mutable(fd).Message()
	setStr(meta, "tenant_id", c.RC.TenantID)
	setStr(meta, "correlation_id", c.RC.CorrelationID)
	setStr(meta, "created_at", c.Now().UTC().Format(time.RFC3339))
}

// notesVersion is the schema version notesDoc states; the runtime serves
// the document's own value.
const notesVersion = "sha256:5e7e1a7b0a0c4f6e9d2b3c4d5e6f7a8b"

// notesDoc is the schema document the plugin would write for the service.
const notesDoc = `{
  "source": "notes/v1/notes.proto",
  "services": [{
    "name": "notes.v1.NoteService",
    "schema_version": "` + notesVersion + `",
    "validate_tool": "validate_write",
    "schema_tool": "get_write_schema",
    "apply_tool": "apply_proposal",
    "discard_tool": "discard_proposal",
    "tools": [{
      "name": "create_note",
      "method": "notes.v1.NoteService.CreateNote",
      "title": "Create note",
      "description": "Create a note in the active model.",
      "kind": "CREATE",
      "classification": "SAFE_CREATE",
      "confirmation": "DIRECT",
      "hints": {"read_only": false, "destructive": false, "idempotent": false, "open_world": false},
      "result": "note",
      "next_steps": ["delete_note"],
      "retry_on_conflict": 2,
      "input_schema": {"type": "object", "properties": {
          "title": {"type": "string", "description": "Note title"},
          "description": {"type": "string", "description": "What the note is about"},
          "priority": {"type": "integer"},
          "client_request_id": {"type": "string"},
          "dry_run": {"type": "boolean"}},
        "required": ["title"], "additionalProperties": false},
      "output_schema": {"type": "object", "properties": {"success": {"type": "boolean"}, "note": {"type": "object"}}, "required": ["success"]},
      "examples": [{"description": "A plain note", "input": {"title": "Buy milk"}}],
      "required_fields": ["title"],
      "optional_fields": ["description", "priority"],
      "server_fills": [
        {"field": "id", "source": "generated", "how": "note- and 8 random hex digits"},
        {"field": "model_id", "source": "resolver", "how": "resolver active_model", "overridable": true},
        {"field": "meta.tenant_id", "source": "context", "how": "tenant from the request context"},
        {"field": "meta.correlation_id", "source": "context", "how": "correlation from the request context"},
        {"field": "meta.created_at", "source": "generated", "how": "NOW"}]
    }, {
      "name": "delete_note",
      "method": "notes.v1.NoteService.DeleteNote",
      "title": "Delete note",
      "description": "Delete a note.",
      "kind": "DELETE",
      "classification": "DESTRUCTIVE_DELETE",
      "confirmation": "ELICIT",
      "agent_summary": "summary",
      "hints": {"read_only": false, "destructive": true, "idempotent": true, "open_world": false},
      "input_schema": {"type": "object", "properties": {
          "id": {"type": "string"}, "client_request_id": {"type": "string"}, "dry_run": {"type": "boolean"},
          "summary": {"type": "string", "minLength": 1, "maxLength": 200}},
        "required": ["id"], "additionalProperties": false},
      "output_schema": {"type": "object", "properties": {"success": {"type": "boolean"}}, "required": ["success"]},
      "required_fields": ["id"],
      "optional_fields": [],
      "server_fills": [
        {"field": "meta.tenant_id", "source": "context", "how": "tenant from the request context"},
        {"field": "meta.correlation_id", "source": "context", "how": "correlation from the request context"},
        {"field": "meta.created_at", "source": "generated", "how": "NOW"}]
    }],
    "discovery": [{
      "tool": "list_priorities",
      "enum": "notes.v1.Priority",
      "description": "List the priorities a note can have, grouped by urgency.",
      "group_by": "notes.v1.Urgency",
      "values": [
        {"value": "Low", "description": "Whenever there is time", "group": "later"},
        {"value": "High", "description": "Before the end of the day", "group": "now"},
        {"value": "Critical", "group": "now"}]
    }]
  }]
}`

// domain is the in-memory note store behind the tools. Titles steer
// failures: "missing" -> NotFound, "secret" -> a plain error carrying a
// secret, "panic" -> panic, "conflict" -> Aborted while conflicts > 0,
// "bad" -> InvalidArgument with field violations.
type domain struct {
	mu          sync.Mutex
	calls       map[string]int
	notes       map[string]bool
	activeModel string
	conflicts   int
	// resolveErr, when set, is asked before each create_note enrichment
	// (numbered from 1); an error fails the active_model resolver.
	resolveErr func(enrichment int) error
	enriches   int
}

func newDomain() *domain {
	return &domain{calls: map[string]int{}, notes: map[string]bool{}, activeModel: "model-1"}
}

func (d *domain) count(tool string) int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.calls[tool]
}

func (d *domain) setModel(m string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.activeModel = m
}

func (d *domain) service() *impl.Service {
	return &impl.Service{
		Name: "notes.v1.NoteService",
		Doc:  []byte(notesDoc),
		Tools: []*impl.Tool{{
			Name:       "create_note",
			NewRequest: func() proto.Message { return newMsg("CreateNoteRequest") },
			Decode: func(dec *impl.Decoder, obj *impl.Object, req proto.Message) {
				m := req.ProtoReflect()
				dec.Known(obj, []string{"title", "description", "priority"})
				if s, ok := dec.String(obj.Get("title"), "title"); ok {
					setStr(m, "title", s)
				} else if !obj.Get("title").Present() {
					dec.Missing("title")
				}
				if s, ok := dec.String(obj.Get("description"), "description"); ok {
					setStr(m, "description", s)
				}
				if n, ok := dec.Int32(obj.Get("priority"), "priority"); ok {
					m.Set(m.Descriptor().Fields().ByName("priority"), protoreflect.ValueOfInt32(n))
				}
			},
			Enrich: func(c *impl.Call, req proto.Message) error {
				m := req.ProtoReflect()
				var b [4]byte
				if _, err := io.ReadFull(c.Rand, b[:]); err != nil {
					return err
				}
				setStr(m, "id", "note-"+hex.EncodeToString(b[:]))
				d.mu.Lock()
				d.enriches++
				n, hook, model := d.enriches, d.resolveErr, d.activeModel
				d.mu.Unlock()
				if hook != nil {
					if err := hook(n); err != nil {
						return c.ResolverError("model_id", err)
					}
				}
				setStr(m, "model_id", model)
				setMeta(c, m)
				return nil
			},
			Invoke: func(ctx context.Context, req proto.Message) (proto.Message, error) {
				d.mu.Lock()
				defer d.mu.Unlock()
				d.calls["create_note"]++
				switch getStr(req, "title") {
				case "missing":
					return nil, status.Error(codes.NotFound, "model model-1 not found")
				case "secret":
					return nil, errors.New("pq: password authentication failed for user admin:hunter2")
				case "panic":
					panic("handler exploded with secret hunter2")
				case "conflict":
					if d.conflicts > 0 {
						d.conflicts--
						return nil, status.Error(codes.Aborted, "note version changed")
					}
				case "bad":
					st, _ := status.New(codes.InvalidArgument, "invalid note").WithDetails(&errdetails.BadRequest{
						FieldViolations: []*errdetails.BadRequest_FieldViolation{
							{Field: "title", Description: "title must not be a reserved word"},
							{Field: "priority", Description: "priority must be at most 3"},
						},
					})
					return nil, st.Err()
				}
				id := getStr(req, "id")
				d.notes[id] = true
				note := newMsg("Note")
				src := req.ProtoReflect()
				for _, f := range []string{"id", "title", "description", "model_id"} {
					setStr(note, f, getStr(req, f))
				}
				if p := src.Get(src.Descriptor().Fields().ByName("priority")).Int(); p != 0 {
					note.Set(note.Descriptor().Fields().ByName("priority"), protoreflect.ValueOfInt32(int32(p)))
				}
				resp := newMsg("CreateNoteResponse")
				resp.Set(resp.Descriptor().Fields().ByName("note"), protoreflect.ValueOfMessage(note))
				return resp, nil
			},
		}, {
			Name:       "delete_note",
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
				setMeta(c, req.ProtoReflect())
				return nil
			},
			Invoke: func(ctx context.Context, req proto.Message) (proto.Message, error) {
				d.mu.Lock()
				defer d.mu.Unlock()
				d.calls["delete_note"]++
				id := getStr(req, "id")
				if !d.notes[id] {
					return nil, status.Errorf(codes.NotFound, "note %s not found", id)
				}
				delete(d.notes, id)
				resp := newMsg("DeleteNoteResponse")
				setStr(resp, "id", id)
				resp.Set(resp.Descriptor().Fields().ByName("deleted"), protoreflect.ValueOfBool(true))
				return resp, nil
			},
		}},
	}
}

// seqReader fills each Read with one byte value, 1, 2, 3, ... so generated
// IDs and trace IDs are predictable in exact-output tests.
type seqReader struct {
	mu sync.Mutex
	n  byte
}

func (s *seqReader) Read(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.n++
	for i := range p {
		p[i] = s.n
	}
	return len(p), nil
}

// fakeClock is a settable clock.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// metaContext reads the caller from _meta, as a gateway-fronted server would.
func metaContext(ctx context.Context, req *mcp.CallToolRequest) (runtime.RequestContext, bool) {
	m := req.Params.GetMeta()
	tenant, _ := m["test/tenant"].(string)
	if tenant == "" {
		return runtime.RequestContext{}, false
	}
	principal, _ := m["test/principal"].(string)
	return runtime.RequestContext{TenantID: tenant, PrincipalID: principal, CorrelationID: "corr-1"}, true
}

// harness is a server with the note tools and a connected client session.
type harness struct {
	t     *testing.T
	dom   *domain
	clock *fakeClock
	cs    *mcp.ClientSession
	log   *strings.Builder
	logMu *sync.Mutex
}

// caller identifies who calls: tenant and principal in _meta.
type caller struct{ tenant, principal string }

var alice = caller{"acme", "alice"}

type harnessOpts struct {
	opts []runtime.Option
	// doc rewrites the service's getWriteSchema document before registration.
	doc func(string) string
	// service adjusts the service (its tools' bindings) before registration.
	service       func(*impl.Service)
	client        *mcp.ClientOptions
	clientSession *mcp.ClientSessionOptions
}

func newHarness(t *testing.T, ho harnessOpts) *harness {
	t.Helper()
	h := &harness{t: t, dom: newDomain(), clock: &fakeClock{t: time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)}, log: &strings.Builder{}}
	h.logMu = &sync.Mutex{}
	logger := slogTo(h.log, h.logMu)
	server := mcp.NewServer(&mcp.Implementation{Name: "notes", Version: "v0.0.1"}, nil)
	opts := append([]runtime.Option{
		runtime.WithClock(h.clock.Now),
		runtime.WithRand(&seqReader{}),
		runtime.WithRequestContextFunc(metaContext),
		runtime.WithLogger(logger),
	}, ho.opts...)
	svc := h.dom.service()
	if ho.doc != nil {
		svc.Doc = []byte(ho.doc(string(svc.Doc)))
	}
	if ho.service != nil {
		ho.service(svc)
	}
	if err := gosdk.Register(server, svc, opts...); err != nil {
		t.Fatalf("Register: %v", err)
	}
	ct, st := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := server.Connect(ctx, st, nil)
	if err != nil {
		t.Fatalf("server connect: %v", err)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "v0.0.1"}, ho.client)
	cs, err := client.Connect(ctx, ct, ho.clientSession)
	if err != nil {
		t.Fatalf("client connect: %v", err)
	}
	t.Cleanup(func() { cs.Close(); ss.Wait() })
	h.cs = cs
	return h
}

// result is a tool result as the agent sees it.
type result struct {
	isError bool
	text    string // the text content: the envelope JSON
}

// call calls a tool and checks that the structured content and the text
// content carry the same JSON.
func (h *harness) call(who caller, tool, args string) result {
	h.t.Helper()
	params := &mcp.CallToolParams{Name: tool, Arguments: json.RawMessage(args)}
	if who.tenant != "" {
		params.Meta = mcp.Meta{"test/tenant": who.tenant, "test/principal": who.principal}
	}
	res, err := h.cs.CallTool(context.Background(), params)
	if err != nil {
		h.t.Fatalf("CallTool %s: protocol error %v", tool, err)
	}
	if len(res.Content) != 1 {
		h.t.Fatalf("CallTool %s: %d content items, want 1", tool, len(res.Content))
	}
	text := res.Content[0].(*mcp.TextContent).Text
	var fromText, fromStructured any
	if err := json.Unmarshal([]byte(text), &fromText); err != nil {
		h.t.Fatalf("CallTool %s: text is not JSON: %v\n%s", tool, err, text)
	}
	sb, _ := json.Marshal(res.StructuredContent)
	_ = json.Unmarshal(sb, &fromStructured)
	if !reflect.DeepEqual(fromText, fromStructured) {
		h.t.Fatalf("CallTool %s: structured content differs from text:\n%s\n%s", tool, sb, text)
	}
	return result{isError: res.IsError, text: text}
}

// field extracts a string at a dotted path of a result's JSON.
func field(t *testing.T, text, path string) string {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(text), &v); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	for _, k := range strings.Split(path, ".") {
		m, ok := v.(map[string]any)
		if !ok {
			t.Fatalf("no %s in %s", path, text)
		}
		v = m[k]
	}
	s, ok := v.(string)
	if !ok {
		t.Fatalf("%s is %v in %s", path, v, text)
	}
	return s
}

// mustEqualJSON compares two JSON texts semantically, printing both.
func mustEqualJSON(t *testing.T, got, want string) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal([]byte(got), &g); err != nil {
		t.Fatalf("got is not JSON: %v\n%s", err, got)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("want is not JSON: %v\n%s", err, want)
	}
	if !reflect.DeepEqual(g, w) {
		gb, _ := json.MarshalIndent(g, "", "  ")
		wb, _ := json.MarshalIndent(w, "", "  ")
		t.Fatalf("JSON differs\ngot:\n%s\nwant:\n%s", gb, wb)
	}
}

// compact removes insignificant whitespace from a want literal.
func compact(s string) string {
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(s)); err != nil {
		panic(fmt.Sprintf("bad JSON literal: %v\n%s", err, s))
	}
	return b.String()
}

// lockedWriter lets concurrent handlers log into one buffer.
type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func slogTo(w io.Writer, mu *sync.Mutex) *slog.Logger {
	return slog.New(slog.NewTextHandler(lockedWriter{mu, w}, nil))
}

// logs returns what the server logged so far.
func (h *harness) logs() string {
	h.logMu.Lock()
	defer h.logMu.Unlock()
	return h.log.String()
}
