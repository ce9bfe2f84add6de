package purchasing_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/purchasing/domain"
	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/purchasing/gen/purchasing/v1/purchasingv1mcpwrite"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcptest"
)

// now is the fixed instant of every call, so timestamps and ULIDs are stable.
var now = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

// seqReader yields 1, 2, 3, ... so generated IDs are deterministic.
type seqReader struct {
	mu sync.Mutex
	n  byte
}

func (s *seqReader) Read(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range p {
		s.n++
		p[i] = s.n
	}
	return len(p), nil
}

// elicitation is how the simulated user answers confirmation requests;
// "" means the client does not support elicitation at all.
type elicitation string

const (
	noElicitation elicitation = ""
	userAccepts   elicitation = "accept"
	userDeclines  elicitation = "decline"
)

// session is one agent connected to a fresh server over in-memory transports.
type session struct {
	t      *testing.T
	cs     *mcp.ClientSession
	server *mcp.Server
	store  *domain.Purchasing
	user   *mcptest.Elicitor // nil when the client cannot elicit
	asked  []string          // elicitation messages shown to the user, as of the last call
}

func newSession(t *testing.T, el elicitation) *session {
	t.Helper()
	server := mcp.NewServer(&mcp.Implementation{Name: "purchasing-server", Version: "test"}, nil)
	// The request context is established server-side (a context on the
	// client's call does not cross the transport).
	rcFunc := func(context.Context, *mcp.CallToolRequest) (runtime.RequestContext, bool) {
		return runtime.RequestContext{TenantID: "acme", PrincipalID: "alice", CorrelationID: "corr-1"}, true
	}
	store := domain.NewDemo()
	err := purchasingv1mcpwrite.RegisterPurchasingServiceTools(server, store,
		runtime.WithRequestContextFunc(rcFunc),
		runtime.WithErrorHook(domain.ErrorHook),
		runtime.WithPreviews(runtime.Previews{Check: store.Check}),
		runtime.WithClock(func() time.Time { return now }),
		runtime.WithRand(&seqReader{}),
	)
	if err != nil {
		t.Fatalf("register: %v", err)
	}
	s := &session{t: t, store: store, server: server}
	s.connect(el)
	return s
}

// connect connects the session's client, answering confirmation requests as
// el says.
func (s *session) connect(el elicitation) {
	o := mcptest.Options{Protocol: "2025-11-25"} // lets the server ask through elicitation inside a tool call
	s.user = nil
	switch el {
	case userAccepts:
		s.user = mcptest.Accept(true)
	case userDeclines:
		s.user = mcptest.Decline()
	}
	if s.user != nil {
		o.Elicit = s.user.Handler
	}
	s.cs = mcptest.Connect(s.t, s.server, o)
}

// otherClient is a second client of the same server and store (the same
// tenant and user), answering confirmation requests as el says.
func (s *session) otherClient(el elicitation) *session {
	o := &session{t: s.t, store: s.store, server: s.server}
	o.connect(el)
	return o
}

// result is one tool answer: the text content, which the runtime makes the
// same JSON as the structured content.
type result struct {
	isError bool
	text    string
}

func (s *session) call(tool, args string) result {
	s.t.Helper()
	r := mcptest.Call(s.t, s.cs, tool, args)
	if s.user != nil {
		s.asked = s.user.Asked()
	}
	return result{isError: r.IsError, text: r.Text}
}

// mustCall calls a tool that must succeed and returns its JSON.
func (s *session) mustCall(tool, args string) string {
	s.t.Helper()
	r := s.call(tool, args)
	if r.isError {
		s.t.Fatalf("%s(%s) failed: %s", tool, args, r.text)
	}
	return r.text
}

func compact(s string) string {
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(s)); err != nil {
		panic("bad want JSON: " + err.Error() + "\n" + s)
	}
	return b.String()
}

// envelopeError is the part of an error entry the tests check.
type envelopeError struct {
	Code        string `json:"code"`
	Message     string `json:"message"`
	Field       string `json:"field"`
	Suggestions struct {
		DidYouMean  []string `json:"did_you_mean"`
		ValidValues []string `json:"valid_values"`
		Hint        string   `json:"hint"`
	} `json:"suggestions"`
}

// errorOf reads the first error of an error envelope.
func errorOf(t *testing.T, text string) envelopeError {
	t.Helper()
	var env struct {
		Success bool          `json:"success"`
		Error   envelopeError `json:"error"`
	}
	if err := json.Unmarshal([]byte(text), &env); err != nil {
		t.Fatalf("envelope: %v\n%s", err, text)
	}
	if env.Success {
		t.Fatalf("success is true in an error result: %s", text)
	}
	return env.Error
}

// A typical order: two fastener lines from a supplier invoicing in USD.
const orderArgs = `{"supplier_id":4001,"location_id":1,"order_number":"PO-1001",
	"items":[{"sku":"BOLT-M8","quantity":500,"unit_price":0.12},{"sku":"NUT-M8","quantity":500,"unit_price":0.05}],
	"expected_delivery_date":"2026-12-15"}`

// createdOrder is the order orderArgs creates, as every answer shows it.
const createdOrder = `{"id":1,"order_number":"PO-1001","supplier_id":4001,"location_id":1,
	"status":"NotReceived","currency":"USD",
	"items":[{"sku":"BOLT-M8","quantity":500,"unit_price":0.12,"line_total":60},{"sku":"NUT-M8","quantity":500,"unit_price":0.05,"line_total":25}],
	"total_cost":85,"expected_delivery_date":"2026-12-15","created_at":"2026-11-22T10:00:00Z"}`

const createdAnswer = `{"success":true,"purchase_order":` + createdOrder + `,
	"message":"Purchase order PO-1001 created: 2 line(s), total 85.00 USD",
	"next_actions":["Send purchase order PO-1001 to Acme Fasteners",
		"Record the delivery with receive_purchase_order (purchase_order_id 1) when the goods arrive (expected 2026-12-15)"],
	"suggestions":["Call receive_purchase_order to receive delivered items of a purchase order into stock, after the user confirms"],
	"warnings":[]}`

func withDryRun(args string) string {
	return strings.TrimSuffix(compact(args), "}") + `,"dry_run":true}`
}

// confirmed asks for the write, as the source design's confirm flag does.
func confirmed(args string) string {
	return strings.TrimSuffix(compact(args), "}") + `,"confirm":true}`
}

// The source design's preview: without confirm the tool answers what the
// order would be (its total computed by the domain) and writes nothing,
// asks no one and claims no key.
func TestCreatePurchaseOrderPreviewsUnlessConfirmed(t *testing.T) {
	s := newSession(t, userAccepts)
	got := s.mustCall("create_purchase_order", orderArgs)
	// The source design's PurchaseOrderResponse for a preview: the order as
	// it would be (no id yet), its status and total_cost, a message,
	// next_actions and warnings, with is_preview true. The user is shown the
	// agent's request only: no tenant, principal or server-resolved currency.
	want := compact(`{"success":true,"is_preview":true,
		"purchase_order":{"order_number":"PO-1001","supplier_id":4001,"location_id":1,"status":"NotReceived","currency":"USD",
			"items":[{"sku":"BOLT-M8","quantity":500,"unit_price":0.12,"line_total":60},{"sku":"NUT-M8","quantity":500,"unit_price":0.05,"line_total":25}],
			"total_cost":85,"expected_delivery_date":"2026-12-15","created_at":"2026-11-22T10:00:00Z"},
		"message":"Nothing was written. With confirm: true: Purchase order PO-1001 created: 2 line(s), total 85.00 USD",
		"next_actions":["Send purchase order PO-1001 to Acme Fasteners","Record the delivery with receive_purchase_order (purchase_order_id 1) when the goods arrive (expected 2026-12-15)"],
		"valid":true,
		"preview":{"request":{"supplier_id":4001,"location_id":1,"order_number":"PO-1001",
			"items":[{"sku":"BOLT-M8","quantity":500,"unit_price":0.12},{"sku":"NUT-M8","quantity":500,"unit_price":0.05}],"expected_delivery_date":"2026-12-15"},
			"domain":{"total":"85.00 USD"}},
		"suggestions":["Nothing was written. Show this preview to the user; to make the change, call create_purchase_order again with the same arguments and confirm: true (the user is then asked to confirm)."],
		"warnings":[]}`)
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	if _, ok := s.store.Order("acme", 1); ok || len(s.asked) != 0 {
		t.Fatalf("a preview wrote an order or asked the user (%q)", s.asked)
	}
	// A preview the write would refuse answers the write's error.
	r := s.call("create_purchase_order", `{"supplier_id":9999,"location_id":1,"order_number":"PO-2","items":[{"sku":"BOLT-M8","quantity":1,"unit_price":1}]}`)
	if e := errorOf(t, r.text); !r.isError || e.Code != "NOT_FOUND" {
		t.Fatalf("preview of an unknown supplier: %s", r.text)
	}
}

func TestCreatePurchaseOrderPreviewWithDryRunFillsCurrencyAndWritesNothing(t *testing.T) {
	s := newSession(t, userAccepts)
	got := s.mustCall("create_purchase_order", withDryRun(orderArgs))
	want := compact(`{"success":true,"valid":true,"errors":[],"warnings":[],
		"suggestions":["Call create_purchase_order with this payload to commit the write"],
		"preview":{"request":{"meta":{"correlation_id":"corr-1","requested_at":"2026-11-22T10:00:00Z"},
			"supplier_id":4001,"location_id":1,"order_number":"PO-1001",
			"items":[{"sku":"BOLT-M8","quantity":500,"unit_price":0.12},{"sku":"NUT-M8","quantity":500,"unit_price":0.05}],
			"currency":"USD","expected_delivery_date":"2026-12-15"},
		"server_filled":["meta.tenant_id","meta.principal_id","meta.correlation_id","meta.client_request_id","meta.requested_at","currency"],
		"domain":{"message":"Nothing was written. With confirm: true: Purchase order PO-1001 created: 2 line(s), total 85.00 USD",
			"next_actions":["Send purchase order PO-1001 to Acme Fasteners","Record the delivery with receive_purchase_order (purchase_order_id 1) when the goods arrive (expected 2026-12-15)"],
			"purchase_order":{"order_number":"PO-1001","supplier_id":4001,"location_id":1,"status":"NotReceived","currency":"USD",
				"items":[{"sku":"BOLT-M8","quantity":500,"unit_price":0.12,"line_total":60},{"sku":"NUT-M8","quantity":500,"unit_price":0.05,"line_total":25}],
				"total_cost":85,"expected_delivery_date":"2026-12-15","created_at":"2026-11-22T10:00:00Z"},
			"total":"85.00 USD","warnings":[]}}}`)
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	if _, ok := s.store.Order("acme", 1); ok || len(s.asked) != 0 {
		t.Fatalf("dry run wrote an order or asked the user (%q)", s.asked)
	}
}

func TestCreatePurchaseOrderCommitsAfterTheUserConfirms(t *testing.T) {
	s := newSession(t, userAccepts)
	if got := s.mustCall("create_purchase_order", confirmed(orderArgs)); got != compact(createdAnswer) {
		t.Fatalf("got\n%s\nwant\n%s", got, compact(createdAnswer))
	}
	// The source design's question, with the total the domain computed.
	// Then the agent's request, one field a line: no meta, no confirm flag.
	wantAsk := "Create purchase order PO-1001 with 2 items totaling 85.00 USD? This changes data.\n\n" +
		"supplier_id: 4001\nlocation_id: 1\norder_number: PO-1001\n" +
		"items[0].sku: BOLT-M8\nitems[0].quantity: 500\nitems[0].unit_price: 0.12\n" +
		"items[1].sku: NUT-M8\nitems[1].quantity: 500\nitems[1].unit_price: 0.05\n" +
		"expected_delivery_date: 2026-12-15"
	if len(s.asked) != 1 || s.asked[0] != wantAsk {
		t.Fatalf("user was asked %q", s.asked)
	}
}

func TestCreatePurchaseOrderReturnsDomainWarningsAndNextActions(t *testing.T) {
	s := newSession(t, userAccepts)
	got := s.mustCall("create_purchase_order", `{"supplier_id":4002,"location_id":1,"order_number":"PO-1002","currency":"dollar",
		"items":[{"sku":"SHEET-2MM","quantity":10,"unit_price":0},{"sku":"SHEET-2MM","quantity":5,"unit_price":0}],
		"expected_delivery_date":"2026-01-15","notes":"Deliver to gate 2","confirm":true}`)
	want := compact(`{"success":true,
		"purchase_order":{"id":1,"order_number":"PO-1002","supplier_id":4002,"location_id":1,
			"status":"NotReceived","currency":"USD","items":[{"sku":"SHEET-2MM","quantity":15}],
			"expected_delivery_date":"2026-01-15","notes":"Deliver to gate 2","created_at":"2026-11-22T10:00:00Z"},
		"message":"Purchase order PO-1002 created: 1 line(s), total 0.00 USD",
		"next_actions":["Send purchase order PO-1002 to Nordic Steel AB",
			"Record the delivery with receive_purchase_order (purchase_order_id 1) when the goods arrive (expected 2026-01-15)"],
		"suggestions":["Call receive_purchase_order to receive delivered items of a purchase order into stock, after the user confirms"],
		"warnings":[{"code":"DOMAIN_WARNING","message":"line 1 (SHEET-2MM) has unit price 0"},{"code":"DOMAIN_WARNING","message":"line 2 (SHEET-2MM) has unit price 0"},
			{"code":"DOMAIN_WARNING","message":"SKU SHEET-2MM appears more than once; quantities were merged into one line"},
			{"code":"DOMAIN_WARNING","message":"expected delivery date 2026-01-15 is in the past"},
			{"code":"DOMAIN_WARNING","message":"Nordic Steel AB invoices in SEK but the order is in USD"}]}`)
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}

func TestCreatePurchaseOrderDeclinedByTheUserWritesNothing(t *testing.T) {
	s := newSession(t, userDeclines)
	r := s.call("create_purchase_order", confirmed(orderArgs))
	msg := `The user declined: Create purchase order: supplier_id=4001, location_id=1, order_number=\"PO-1001\", expected_delivery_date=\"2026-12-15\". Nothing was written.`
	entry := `{"code":"CONFIRMATION_DECLINED","message":"` + msg + `","suggestions":{"hint":"Do not retry unless the user asks for the change again."}}`
	if want := compact(`{"success":false,"error":` + entry + `,"errors":[` + entry + `]}`); !r.isError || r.text != want {
		t.Fatalf("got isError=%v\n%s\nwant\n%s", r.isError, r.text, want)
	}
	if _, ok := s.store.Order("acme", 1); ok {
		t.Fatal("declined order was written")
	}
}

// Without a client that can ask, a confirmed write is refused, not turned
// into a pending proposal: the source design rejects the two-call
// alternative. Nothing is written or stored.
func TestCreatePurchaseOrderWithoutElicitationIsRefused(t *testing.T) {
	s := newSession(t, noElicitation)
	r := s.call("create_purchase_order", confirmed(orderArgs))
	entry := `{"code":"CONFIRMATION_REQUIRED","message":"The user must confirm Create purchase order: supplier_id=4001, location_id=1, order_number=\"PO-1001\", expected_delivery_date=\"2026-12-15\", and this client cannot ask (it does not support MCP elicitation forms). Nothing was written.",
		"suggestions":{"hint":"Tell the user this change needs their confirmation in a client that can show confirmation prompts; do not retry it here."}}`
	if want := compact(`{"success":false,"error":` + entry + `,"errors":[` + entry + `]}`); !r.isError || r.text != want {
		t.Fatalf("got isError=%v\n%s\nwant\n%s", r.isError, r.text, want)
	}
	if _, ok := s.store.Order("acme", 1); ok {
		t.Fatal("the refused order was written")
	}
	// The preview still works without elicitation.
	if got := s.mustCall("create_purchase_order", orderArgs); !strings.Contains(got, `"is_preview":true`) {
		t.Fatalf("preview without elicitation: %s", got)
	}
}

func TestReceivePurchaseOrderBooksPartialThenFullDelivery(t *testing.T) {
	s := newSession(t, userAccepts)
	s.mustCall("create_purchase_order", confirmed(orderArgs))
	steps := []struct {
		name, args, want string
	}{{
		name: "partial delivery, received now",
		args: `{"purchase_order_id":1,"items":[{"sku":"BOLT-M8","quantity":200}]}`,
		want: `{"success":true,"purchase_order":{"id":1,"order_number":"PO-1001","supplier_id":4001,"location_id":1,
			"status":"PartiallyReceived","currency":"USD",
			"items":[{"sku":"BOLT-M8","quantity":500,"unit_price":0.12,"line_total":60,"received_quantity":200},{"sku":"NUT-M8","quantity":500,"unit_price":0.05,"line_total":25}],
			"total_cost":85,"expected_delivery_date":"2026-12-15","created_at":"2026-11-22T10:00:00Z","last_received_at":"2026-11-22T10:00:00Z"},
			"message":"Received 1 line(s) on purchase order PO-1001",
			"next_actions":["Still outstanding: 300 BOLT-M8, 500 NUT-M8; receive them with receive_purchase_order when they arrive"],
			"suggestions":[],"warnings":[]}`,
	}, {
		name: "rest of the delivery, backdated by the agent",
		args: `{"purchase_order_id":1,"items":[{"sku":"BOLT-M8","quantity":300},{"sku":"NUT-M8","quantity":500}],"received_at":"2026-11-21T09:00:00Z"}`,
		want: `{"success":true,"purchase_order":{"id":1,"order_number":"PO-1001","supplier_id":4001,"location_id":1,
			"status":"Received","currency":"USD",
			"items":[{"sku":"BOLT-M8","quantity":500,"unit_price":0.12,"line_total":60,"received_quantity":500},{"sku":"NUT-M8","quantity":500,"unit_price":0.05,"line_total":25,"received_quantity":500}],
			"total_cost":85,"expected_delivery_date":"2026-12-15","created_at":"2026-11-22T10:00:00Z","last_received_at":"2026-11-21T09:00:00Z"},
			"message":"Received 2 line(s) on purchase order PO-1001",
			"next_actions":["Match the supplier invoice for PO-1001 against the received quantities"],
			"suggestions":[],"warnings":[]}`,
	}}
	for _, st := range steps {
		if got := s.mustCall("receive_purchase_order", confirmed(st.args)); got != compact(st.want) {
			t.Fatalf("%s: got\n%s\nwant\n%s", st.name, got, compact(st.want))
		}
	}
}

func TestAgentMistakesAreAnsweredWithCorrectableErrors(t *testing.T) {
	tests := []struct {
		name, tool, args string
		code, field, top string // top: first did_you_mean, else the hint
	}{
		{"create: confirm as text", "create_purchase_order", `{"supplier_id":4001,"location_id":1,"order_number":"PO-2","items":[{"sku":"BOLT-M8","quantity":1,"unit_price":1}],"confirm":"yes"}`, "INVALID_TYPE", "confirm", ""},
		{"create: preview flag", "create_purchase_order", `{"supplier_id":4001,"location_id":1,"order_number":"PO-2","items":[{"sku":"BOLT-M8","quantity":1,"unit_price":1}],"preview":true}`, "UNKNOWN_FIELD", "preview", "Leave out preview: without confirm the answer is a preview; send confirm: true to make the change (the user is asked first)."},
		{"create: currency spelled out", "create_purchase_order", `{"supplier_id":4001,"location_id":1,"order_number":"PO-2","currency":"Euros","items":[{"sku":"BOLT-M8","quantity":1,"unit_price":1}]}`, "INVALID_ENUM_VALUE", "currency", "EUR"},
		{"create: no line items", "create_purchase_order", `{"supplier_id":4001,"location_id":1,"order_number":"PO-2","items":[]}`, "CONSTRAINT_VIOLATION", "items", ""},
		{"create: items missing", "create_purchase_order", `{"supplier_id":4001,"location_id":1,"order_number":"PO-2"}`, "MISSING_REQUIRED_FIELD", "items", ""},
		{"create: supplier id as a string", "create_purchase_order", `{"supplier_id":"4001","location_id":1,"order_number":"PO-2","items":[{"sku":"BOLT-M8","quantity":1,"unit_price":1}]}`, "INVALID_TYPE", "supplier_id", ""},
		{"create: price instead of unit_price", "create_purchase_order", `{"supplier_id":4001,"location_id":1,"order_number":"PO-2","items":[{"sku":"BOLT-M8","quantity":1,"price":1}]}`, "UNKNOWN_FIELD", "items[0].price", "unit_price"},
		{"create: zero quantity", "create_purchase_order", `{"supplier_id":4001,"location_id":1,"order_number":"PO-2","items":[{"sku":"BOLT-M8","quantity":0,"unit_price":1}]}`, "CONSTRAINT_VIOLATION", "items[0].quantity", ""},
		{"create: relative delivery date", "create_purchase_order", `{"supplier_id":4001,"location_id":1,"order_number":"PO-2","items":[{"sku":"BOLT-M8","quantity":1,"unit_price":1}],"expected_delivery_date":"next friday"}`, "CONSTRAINT_VIOLATION", "expected_delivery_date", ""},
		{"create: SKU not in the catalog", "create_purchase_order", `{"supplier_id":4001,"location_id":1,"order_number":"PO-2","items":[{"sku":"BOLT-M9","quantity":1,"unit_price":1}]}`, "VALIDATION_ERROR", "items[0].sku", ""},
		{"create: order number taken", "create_purchase_order", `{"supplier_id":4001,"location_id":1,"order_number":"po-1001","items":[{"sku":"BOLT-M8","quantity":1,"unit_price":1}]}`, "ALREADY_EXISTS", "", ""},
		{"create: unknown supplier", "create_purchase_order", `{"supplier_id":9999,"location_id":1,"order_number":"PO-2","items":[{"sku":"BOLT-M8","quantity":1,"unit_price":1}]}`, "NOT_FOUND", "", ""},
		{"receive: order_id instead of purchase_order_id", "receive_purchase_order", `{"order_id":1,"items":[{"sku":"BOLT-M8","quantity":1}]}`, "UNKNOWN_FIELD", "order_id", "purchase_order_id"},
		{"receive: one item as an object", "receive_purchase_order", `{"purchase_order_id":1,"items":{"sku":"BOLT-M8","quantity":1}}`, "INVALID_TYPE", "items", ""},
		{"receive: more than outstanding", "receive_purchase_order", `{"purchase_order_id":1,"items":[{"sku":"BOLT-M8","quantity":501}]}`, "VALIDATION_ERROR", "items[0].quantity", ""},
		{"receive: SKU not on the order", "receive_purchase_order", `{"purchase_order_id":1,"items":[{"sku":"WASHER-M8","quantity":1}]}`, "VALIDATION_ERROR", "items[0].sku", ""},
		{"receive: relative received_at", "receive_purchase_order", `{"purchase_order_id":1,"items":[{"sku":"BOLT-M8","quantity":1}],"received_at":"yesterday"}`, "INVALID_TYPE", "received_at", ""},
		{"receive: unknown order", "receive_purchase_order", `{"purchase_order_id":7,"items":[{"sku":"BOLT-M8","quantity":1}]}`, "NOT_FOUND", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSession(t, userAccepts)
			s.mustCall("create_purchase_order", confirmed(orderArgs))
			r := s.call(tt.tool, tt.args)
			if !r.isError {
				t.Fatalf("want an error, got %s", r.text)
			}
			e := errorOf(t, r.text)
			top := e.Suggestions.Hint
			if len(e.Suggestions.DidYouMean) > 0 {
				top = e.Suggestions.DidYouMean[0]
			}
			if e.Code != tt.code || e.Field != tt.field || top != tt.top {
				t.Fatalf("got code=%s field=%q top=%q, want code=%s field=%q top=%q\n%s", e.Code, e.Field, top, tt.code, tt.field, tt.top, r.text)
			}
		})
	}
}

func TestServerListsWriteToolsWithHonestHintsAndServiceTools(t *testing.T) {
	s := newSession(t, noElicitation)
	res, err := s.cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, tool := range res.Tools {
		a := tool.Annotations
		got = append(got, fmt.Sprintf("%s readOnly=%v destructive=%v classification=%v confirmation=%v", tool.Name, a.ReadOnlyHint, *a.DestructiveHint,
			tool.Meta["mcpwrite/classification"], tool.Meta["mcpwrite/confirmation"]))
	}
	// Receiving and fulfilling move stock for good: destructive, as the
	// source design calls its elicited writes. The two creates remove and
	// overwrite nothing, so they stay SAFE_CREATE and still ask the user.
	want := []string{
		"apply_proposal readOnly=false destructive=true classification=<nil> confirmation=<nil>",
		"create_manufacturing_order readOnly=false destructive=false classification=SAFE_CREATE confirmation=ELICIT",
		"create_purchase_order readOnly=false destructive=false classification=SAFE_CREATE confirmation=ELICIT",
		"discard_proposal readOnly=false destructive=false classification=<nil> confirmation=<nil>",
		"fulfill_order readOnly=false destructive=true classification=DESTRUCTIVE_UPDATE confirmation=ELICIT",
		"get_write_schema readOnly=true destructive=false classification=<nil> confirmation=<nil>",
		"receive_purchase_order readOnly=false destructive=true classification=DESTRUCTIVE_UPDATE confirmation=ELICIT",
		"search_items readOnly=true destructive=false classification=READ_ONLY confirmation=DIRECT",
		"validate_write readOnly=true destructive=false classification=<nil> confirmation=<nil>",
		"verify_order_document readOnly=true destructive=false classification=READ_ONLY confirmation=DIRECT",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("tools:\n%q\nwant\n%q", got, want)
	}
}
