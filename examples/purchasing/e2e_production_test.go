package purchasing_test

import (
	"testing"

	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/purchasing/domain"
)

// The materials for ten wall brackets, bought from Acme Fasteners.
const materialsArgs = `{"supplier_id":4001,"location_id":1,"order_number":"PO-2001",
	"items":[{"sku":"SHEET-2MM","quantity":10,"unit_price":12.40},{"sku":"BOLT-M8","quantity":20,"unit_price":0.12},
		{"sku":"NUT-M8","quantity":20,"unit_price":0.05},{"sku":"WASHER-M8","quantity":20,"unit_price":0.02}]}`

// The proto's own example of create_manufacturing_order.
const moArgs = `{"sku":"BRACKET-WALL","planned_quantity":10,"location_id":1,"production_deadline_date":"2026-12-01"}`

// stockMaterials buys and receives the materials of moArgs (purchase order 1).
func (s *session) stockMaterials() {
	s.t.Helper()
	s.mustCall("create_purchase_order", confirmed(materialsArgs))
	s.mustCall("receive_purchase_order", `{"purchase_order_id":1,"items":[{"sku":"SHEET-2MM","quantity":10},{"sku":"BOLT-M8","quantity":20},
		{"sku":"NUT-M8","quantity":20},{"sku":"WASHER-M8","quantity":20}],"confirm":true}`)
}

const moAnswer = `{"success":true,
	"manufacturing_order":{"id":1,"order_number":"MO-1","sku":"BRACKET-WALL","planned_quantity":10,"location_id":1,"status":"NotStarted",
		"ingredients":[{"sku":"SHEET-2MM","quantity_required":10,"in_stock":10,"cost":124},{"sku":"BOLT-M8","quantity_required":20,"in_stock":20,"cost":2.4},
			{"sku":"NUT-M8","quantity_required":20,"in_stock":20,"cost":1},{"sku":"WASHER-M8","quantity_required":20,"in_stock":20,"cost":0.4}],
		"total_cost":127.8,"production_deadline_date":"2026-12-01","created_at":"2026-11-22T10:00:00Z"},
	"message":"Manufacturing order MO-1 created: 10 x BRACKET-WALL, materials 127.80 USD",
	"next_actions":["When production is done, complete it with fulfill_order (order_id 1, order_type manufacturing)"],
	"suggestions":["Call fulfill_order to fulfill a manufacturing or sales order, after the user confirms"],
	"warnings":[]}`

// Without confirm, create_manufacturing_order answers the order it would
// plan, the materials' cost and what stock is short of, and writes nothing.
func TestCreateManufacturingOrderPreviewsUnlessConfirmed(t *testing.T) {
	s := newSession(t, userAccepts)
	got := s.mustCall("create_manufacturing_order", moArgs)
	want := compact(`{"success":true,"is_preview":true,
		"manufacturing_order":{"order_number":"MO-1","sku":"BRACKET-WALL","planned_quantity":10,"location_id":1,"status":"NotStarted",
			"ingredients":[{"sku":"SHEET-2MM","quantity_required":10,"cost":124},{"sku":"BOLT-M8","quantity_required":20,"cost":2.4},
				{"sku":"NUT-M8","quantity_required":20,"cost":1},{"sku":"WASHER-M8","quantity_required":20,"cost":0.4}],
			"total_cost":127.8,"production_deadline_date":"2026-12-01","created_at":"2026-11-22T10:00:00Z"},
		"message":"Nothing was written. With confirm: true: Manufacturing order MO-1 created: 10 x BRACKET-WALL, materials 127.80 USD",
		"next_actions":["Buy the missing materials with create_purchase_order: 10 SHEET-2MM, 20 BOLT-M8, 20 NUT-M8, 20 WASHER-M8",
			"When production is done, complete it with fulfill_order (order_id 1, order_type manufacturing)"],
		"valid":true,
		"preview":{"request":{"sku":"BRACKET-WALL","planned_quantity":10,"location_id":1,"production_deadline_date":"2026-12-01"},
			"domain":{"order_number":"MO-1","total":"127.80 USD"}},
		"suggestions":["Nothing was written. Show this preview to the user; to make the change, call create_manufacturing_order again with the same arguments and confirm: true (the user is then asked to confirm)."],
		"warnings":[{"code":"DOMAIN_WARNING","message":"short 10 SHEET-2MM: 10 needed, 0 in stock"},{"code":"DOMAIN_WARNING","message":"short 20 BOLT-M8: 20 needed, 0 in stock"},
			{"code":"DOMAIN_WARNING","message":"short 20 NUT-M8: 20 needed, 0 in stock"},{"code":"DOMAIN_WARNING","message":"short 20 WASHER-M8: 20 needed, 0 in stock"}]}`)
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	if _, ok := s.store.ManufacturingOrder("acme", 1); ok || len(s.asked) != 0 {
		t.Fatalf("a preview wrote a manufacturing order or asked the user (%q)", s.asked)
	}
}

func TestCreateManufacturingOrderCommitsAfterTheUserConfirms(t *testing.T) {
	s := newSession(t, userAccepts)
	s.stockMaterials()
	if got := s.mustCall("create_manufacturing_order", confirmed(moArgs)); got != compact(moAnswer) {
		t.Fatalf("got\n%s\nwant\n%s", got, compact(moAnswer))
	}
	wantAsk := "Create manufacturing order MO-1 for 10 x BRACKET-WALL with materials totaling 127.80 USD? This changes data.\n\n" +
		"sku: BRACKET-WALL\nplanned_quantity: 10\nlocation_id: 1\nproduction_deadline_date: 2026-12-01"
	if len(s.asked) != 3 || s.asked[2] != wantAsk {
		t.Fatalf("user was asked %q", s.asked)
	}
	// Planning uses no stock; only fulfillment does.
	if n := s.store.Stock("acme", "SHEET-2MM"); n != 10 {
		t.Fatalf("SHEET-2MM stock after planning: %d, want 10", n)
	}
}

// The whole flow: materials bought and received, ten brackets made, a
// customer's order for them shipped; each fulfillment is previewed first
// and asks the user with its stock changes.
func TestFulfillOrderCompletesManufacturingThenShipsSales(t *testing.T) {
	s := newSession(t, userAccepts)
	s.stockMaterials()
	s.mustCall("create_manufacturing_order", confirmed(moArgs))

	got := s.mustCall("fulfill_order", `{"order_id":1,"order_type":"manufacturing"}`)
	want := compact(`{"success":true,"is_preview":true,"order_id":1,"order_type":"manufacturing","order_number":"MO-1","status":"Done",
		"inventory_updates":["+10 BRACKET-WALL","-10 SHEET-2MM","-20 BOLT-M8","-20 NUT-M8","-20 WASHER-M8"],
		"next_actions":["Ship sales orders waiting for BRACKET-WALL with fulfill_order (order_type sales)"],
		"message":"Nothing was written. With confirm: true: Manufacturing order MO-1 done: 10 BRACKET-WALL added to stock",
		"valid":true,
		"preview":{"request":{"order_id":1,"order_type":"manufacturing"},
			"domain":{"plan":"Stock changes: +10 BRACKET-WALL, -10 SHEET-2MM, -20 BOLT-M8, -20 NUT-M8, -20 WASHER-M8"}},
		"suggestions":["Nothing was written. Show this preview to the user; to make the change, call fulfill_order again with the same arguments and confirm: true (the user is then asked to confirm)."],
		"warnings":[]}`)
	if got != want {
		t.Fatalf("preview: got\n%s\nwant\n%s", got, want)
	}
	if n := s.store.Stock("acme", "BRACKET-WALL"); n != 0 {
		t.Fatalf("the preview moved stock: %d BRACKET-WALL", n)
	}

	got = s.mustCall("fulfill_order", `{"order_id":1,"order_type":"manufacturing","confirm":true}`)
	want = compact(`{"success":true,"order_id":1,"order_type":"manufacturing","order_number":"MO-1","status":"Done",
		"inventory_updates":["+10 BRACKET-WALL","-10 SHEET-2MM","-20 BOLT-M8","-20 NUT-M8","-20 WASHER-M8"],
		"next_actions":["Ship sales orders waiting for BRACKET-WALL with fulfill_order (order_type sales)"],
		"message":"Manufacturing order MO-1 done: 10 BRACKET-WALL added to stock",
		"suggestions":[],"warnings":[]}`)
	if got != want {
		t.Fatalf("complete: got\n%s\nwant\n%s", got, want)
	}
	wantAsk := "Fulfill manufacturing order MO-1? Stock changes: +10 BRACKET-WALL, -10 SHEET-2MM, -20 BOLT-M8, -20 NUT-M8, -20 WASHER-M8. " +
		"This overwrites existing data; the previous values are lost.\n\norder_id: 1\norder_type: manufacturing"
	if len(s.asked) != 4 || s.asked[3] != wantAsk {
		t.Fatalf("user was asked %q", s.asked)
	}
	for sku, want := range map[string]int32{"BRACKET-WALL": 10, "SHEET-2MM": 0, "BOLT-M8": 0, "NUT-M8": 0, "WASHER-M8": 0} {
		if n := s.store.Stock("acme", sku); n != want {
			t.Errorf("stock of %s: %d, want %d", sku, n, want)
		}
	}
	if mo, _ := s.store.ManufacturingOrder("acme", 1); mo.GetStatus().String() != "MANUFACTURING_ORDER_STATUS_DONE" || mo.GetDoneAt().AsTime() != now {
		t.Fatalf("stored manufacturing order: %v", mo)
	}

	// A customer orders the ten brackets; the synonym "so" names a sales order.
	if id, err := s.store.PlaceSalesOrder("acme", "Hansen Hardware", domain.SalesLine{SKU: "BRACKET-WALL", Quantity: 10}); err != nil || id != 1 {
		t.Fatalf("place sales order: %d %v", id, err)
	}
	got = s.mustCall("fulfill_order", `{"order_id":1,"order_type":"so","confirm":true}`)
	want = compact(`{"success":true,"order_id":1,"order_type":"sales","order_number":"SO-1","status":"Shipped",
		"inventory_updates":["-10 BRACKET-WALL"],
		"next_actions":["Invoice Hansen Hardware for sales order SO-1"],
		"message":"Sales order SO-1 for Hansen Hardware shipped: 1 line(s)",
		"suggestions":[],"warnings":[{"code":"DOMAIN_WARNING","message":"BRACKET-WALL is now out of stock"}]}`)
	if got != want {
		t.Fatalf("ship: got\n%s\nwant\n%s", got, want)
	}
	wantAsk = "Fulfill sales order SO-1? Stock changes: -10 BRACKET-WALL. This overwrites existing data; the previous values are lost." +
		"\n\norder_id: 1\norder_type: sales"
	if len(s.asked) != 5 || s.asked[4] != wantAsk {
		t.Fatalf("user was asked %q", s.asked)
	}

	// Fulfilled orders are not fulfilled twice, and stock never goes below zero.
	for _, tc := range []struct{ args, want string }{
		{`{"order_id":1,"order_type":"manufacturing","confirm":true}`,
			`{"code":"CONFLICT","message":"manufacturing order MO-1 is already done","details":{"precondition_failures":[{"description":"manufacturing order MO-1 is already done","subject":"MO-1","type":"ALREADY_DONE"}]}}`},
		{`{"order_id":1,"order_type":"sales","confirm":true}`,
			`{"code":"CONFLICT","message":"sales order SO-1 is already shipped","details":{"precondition_failures":[{"description":"sales order SO-1 is already shipped","subject":"SO-1","type":"ALREADY_FULFILLED"}]}}`},
	} {
		r := s.call("fulfill_order", tc.args)
		if w := compact(`{"success":false,"error":` + tc.want + `,"errors":[` + tc.want + `]}`); !r.isError || r.text != w {
			t.Errorf("%s: got\n%s\nwant\n%s", tc.args, r.text, w)
		}
	}
	if _, err := s.store.PlaceSalesOrder("acme", "Hansen Hardware", domain.SalesLine{SKU: "BRACKET-WALL", Quantity: 5}); err != nil {
		t.Fatal(err)
	}
	short := `{"code":"CONFLICT","message":"sales order SO-2 cannot be shipped: short 5 BRACKET-WALL (5 needed, 0 in stock); make the products with create_manufacturing_order and fulfill it first",
		"details":{"precondition_failures":[{"description":"short 5 BRACKET-WALL (5 needed, 0 in stock)","subject":"BRACKET-WALL","type":"INSUFFICIENT_STOCK"}]}}`
	// The preview answers the write's own refusal.
	for _, args := range []string{`{"order_id":2,"order_type":"sales"}`, `{"order_id":2,"order_type":"sales","confirm":true}`} {
		r := s.call("fulfill_order", args)
		if w := compact(`{"success":false,"error":` + short + `,"errors":[` + short + `]}`); !r.isError || r.text != w {
			t.Errorf("%s: got\n%s\nwant\n%s", args, r.text, w)
		}
	}
	if n := s.store.Stock("acme", "BRACKET-WALL"); n != 0 {
		t.Fatalf("BRACKET-WALL stock after the refused shipment: %d", n)
	}
}

// Completing a manufacturing order needs its materials on hand: every
// shortage is named, with the way out.
func TestFulfillOrderNamesEveryShortMaterial(t *testing.T) {
	s := newSession(t, userAccepts)
	s.mustCall("create_purchase_order", confirmed(materialsArgs))
	s.mustCall("receive_purchase_order", `{"purchase_order_id":1,"items":[{"sku":"SHEET-2MM","quantity":10},{"sku":"BOLT-M8","quantity":15},{"sku":"NUT-M8","quantity":20}],"confirm":true}`)
	s.mustCall("create_manufacturing_order", confirmed(moArgs))
	r := s.call("fulfill_order", `{"order_id":1,"order_type":"manufacturing","confirm":true}`)
	entry := `{"code":"CONFLICT","message":"manufacturing order MO-1 cannot be completed: short 5 BOLT-M8 (20 needed, 15 in stock), short 20 WASHER-M8 (20 needed, 0 in stock); buy the materials with create_purchase_order and receive them first",
		"details":{"precondition_failures":[{"description":"short 5 BOLT-M8 (20 needed, 15 in stock)","subject":"BOLT-M8","type":"INSUFFICIENT_STOCK"},
			{"description":"short 20 WASHER-M8 (20 needed, 0 in stock)","subject":"WASHER-M8","type":"INSUFFICIENT_STOCK"}]}}`
	if want := compact(`{"success":false,"error":` + entry + `,"errors":[` + entry + `]}`); !r.isError || r.text != want {
		t.Fatalf("got\n%s\nwant\n%s", r.text, want)
	}
	if n := s.store.Stock("acme", "SHEET-2MM"); n != 10 {
		t.Fatalf("a refused completion moved stock: %d SHEET-2MM", n)
	}
}

// The new writes follow the same confirmation as the purchase orders: a
// declined question writes nothing, and a client that cannot ask is
// refused rather than handed a proposal.
func TestNewWritesAreDeclinedOrRefusedWithoutTheUser(t *testing.T) {
	for _, tc := range []struct {
		el         elicitation
		tool, args string
		want       string
	}{
		{userDeclines, "create_manufacturing_order", confirmed(moArgs),
			`{"code":"CONFIRMATION_DECLINED","message":"The user declined: Create manufacturing order: sku=\"BRACKET-WALL\", planned_quantity=10, location_id=1, production_deadline_date=\"2026-12-01\". Nothing was written.","suggestions":{"hint":"Do not retry unless the user asks for the change again."}}`},
		{noElicitation, "create_manufacturing_order", confirmed(moArgs),
			`{"code":"CONFIRMATION_REQUIRED","message":"The user must confirm Create manufacturing order: sku=\"BRACKET-WALL\", planned_quantity=10, location_id=1, production_deadline_date=\"2026-12-01\", and this client cannot ask (it does not support MCP elicitation forms). Nothing was written.","suggestions":{"hint":"Tell the user this change needs their confirmation in a client that can show confirmation prompts; do not retry it here."}}`},
	} {
		s := newSession(t, tc.el)
		r := s.call(tc.tool, tc.args)
		if want := compact(`{"success":false,"error":` + tc.want + `,"errors":[` + tc.want + `]}`); !r.isError || r.text != want {
			t.Errorf("%s (%q): got\n%s\nwant\n%s", tc.tool, tc.el, r.text, want)
		}
		if _, ok := s.store.ManufacturingOrder("acme", 1); ok {
			t.Errorf("%s (%q) wrote a manufacturing order", tc.tool, tc.el)
		}
	}
	// fulfill_order, on an order planned by a user who confirmed, from
	// clients whose user declines or that cannot ask.
	s := newSession(t, userAccepts)
	s.stockMaterials()
	s.mustCall("create_manufacturing_order", confirmed(moArgs))
	for _, tc := range []struct {
		el   elicitation
		want string
	}{
		{userDeclines, `{"code":"CONFIRMATION_DECLINED","message":"The user declined: Fulfill order: order_id=1, order_type=\"manufacturing\". Nothing was written.","suggestions":{"hint":"Do not retry unless the user asks for the change again."}}`},
		{noElicitation, `{"code":"CONFIRMATION_REQUIRED","message":"The user must confirm Fulfill order: order_id=1, order_type=\"manufacturing\", and this client cannot ask (it does not support MCP elicitation forms). Nothing was written.","suggestions":{"hint":"Tell the user this change needs their confirmation in a client that can show confirmation prompts; do not retry it here."}}`},
	} {
		r := s.otherClient(tc.el).call("fulfill_order", `{"order_id":1,"order_type":"manufacturing","confirm":true}`)
		if want := compact(`{"success":false,"error":` + tc.want + `,"errors":[` + tc.want + `]}`); !r.isError || r.text != want {
			t.Errorf("fulfill_order (%q): got\n%s\nwant\n%s", tc.el, r.text, want)
		}
	}
	if mo, _ := s.store.ManufacturingOrder("acme", 1); mo.GetStatus().String() != "MANUFACTURING_ORDER_STATUS_NOT_STARTED" || s.store.Stock("acme", "BRACKET-WALL") != 0 {
		t.Fatalf("a fulfillment the user did not confirm was made: %v", mo)
	}
}

func TestNewToolMistakesAreAnsweredWithCorrectableErrors(t *testing.T) {
	tests := []struct {
		name, tool, args string
		code, field, top string // top: first did_you_mean, else the hint
	}{
		{"mo: a material", "create_manufacturing_order", `{"sku":"BOLT-M8","planned_quantity":10,"location_id":1}`, "VALIDATION_ERROR", "sku", ""},
		{"mo: SKU not in the catalog", "create_manufacturing_order", `{"sku":"BRACKET-FLOOR","planned_quantity":10,"location_id":1}`, "VALIDATION_ERROR", "sku", ""},
		{"mo: zero quantity", "create_manufacturing_order", `{"sku":"BRACKET-WALL","planned_quantity":0,"location_id":1}`, "CONSTRAINT_VIOLATION", "planned_quantity", ""},
		{"mo: quantity instead of planned_quantity", "create_manufacturing_order", `{"sku":"BRACKET-WALL","quantity":10,"location_id":1}`, "UNKNOWN_FIELD", "quantity", "planned_quantity"},
		{"mo: unknown location", "create_manufacturing_order", `{"sku":"BRACKET-WALL","planned_quantity":10,"location_id":9}`, "NOT_FOUND", "", ""},
		{"mo: relative deadline", "create_manufacturing_order", `{"sku":"BRACKET-WALL","planned_quantity":10,"location_id":1,"production_deadline_date":"friday"}`, "CONSTRAINT_VIOLATION", "production_deadline_date", ""},
		{"fulfill: order type missing", "fulfill_order", `{"order_id":1}`, "MISSING_REQUIRED_FIELD", "order_type", ""},
		{"fulfill: a purchase order", "fulfill_order", `{"order_id":1,"order_type":"purchase"}`, "INVALID_ENUM_VALUE", "order_type", ""},
		{"fulfill: order type misspelled", "fulfill_order", `{"order_id":1,"order_type":"manufacturng"}`, "INVALID_ENUM_VALUE", "order_type", "manufacturing"},
		{"fulfill: unknown manufacturing order", "fulfill_order", `{"order_id":1,"order_type":"manufacturing"}`, "NOT_FOUND", "", ""},
		{"fulfill: unknown sales order", "fulfill_order", `{"order_id":1,"order_type":"sales","confirm":true}`, "NOT_FOUND", "", ""},
		{"verify: no lines", "verify_order_document", `{"purchase_order_id":1,"document_items":[]}`, "CONSTRAINT_VIOLATION", "document_items", ""},
		{"verify: order_id instead of purchase_order_id", "verify_order_document", `{"order_id":1,"document_items":[{"sku":"BOLT-M8","quantity":1}]}`, "UNKNOWN_FIELD", "order_id", "purchase_order_id"},
		{"verify: negative price", "verify_order_document", `{"purchase_order_id":1,"document_items":[{"sku":"BOLT-M8","quantity":1,"unit_price":-1}]}`, "CONSTRAINT_VIOLATION", "document_items[0].unit_price", ""},
		{"verify: unknown order", "verify_order_document", `{"purchase_order_id":7,"document_items":[{"sku":"BOLT-M8","quantity":1}]}`, "NOT_FOUND", "", ""},
		{"verify: a read has no confirm", "verify_order_document", `{"purchase_order_id":1,"document_items":[{"sku":"BOLT-M8","quantity":1}],"confirm":true}`, "UNKNOWN_FIELD", "confirm", ""},
		{"search: query missing", "search_items", `{"limit":5}`, "MISSING_REQUIRED_FIELD", "query", ""},
		{"search: blank query", "search_items", `{"query":"  "}`, "VALIDATION_ERROR", "query", ""},
		{"search: limit too large", "search_items", `{"query":"bolt","limit":500}`, "CONSTRAINT_VIOLATION", "limit", ""},
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
