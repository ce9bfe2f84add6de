package purchasing_test

import (
	"context"
	"encoding/json"
	"testing"
)

// The proto's own example of verify_order_document: a packing slip for
// PO-1001 that is 50 nuts short.
const packingSlip = `{"purchase_order_id":1,"document_items":[{"sku":"BOLT-M8","quantity":500,"unit_price":0.12},{"sku":"NUT-M8","quantity":450,"unit_price":0.05}]}`

const receiveSuggestion = `"suggestions":["Call receive_purchase_order to receive delivered items of a purchase order into stock, after the user confirms"]`

// verify_order_document answers at once, line by line: matches,
// discrepancies with the order's and the document's values, and what to do.
// It writes nothing and asks no one.
func TestVerifyOrderDocumentComparesEveryLine(t *testing.T) {
	s := newSession(t, userAccepts)
	s.mustCall("create_purchase_order", confirmed(orderArgs))
	before, _ := s.store.Order("acme", 1)
	asked := len(s.asked)
	tests := []struct{ name, args, want string }{{
		name: "the proto's example: a quantity short",
		args: packingSlip,
		want: `{"success":true,"purchase_order_id":1,"order_number":"PO-1001","overall_status":"partial_match",
			"matches":[{"sku":"BOLT-M8","quantity":500,"unit_price":0.12}],
			"discrepancies":[{"sku":"NUT-M8","type":"quantity_mismatch","expected":500,"actual":450,"message":"NUT-M8: the document says 450, the order 500"}],
			"suggested_actions":["Receive the 450 NUT-M8 on the document with receive_purchase_order and ask Acme Fasteners when the other 50 follow"],
			"message":"1 of 2 document line(s) match purchase order PO-1001",` + receiveSuggestion + `,"warnings":[]}`,
	}, {
		name: "every line matches; a line without a price is checked by quantity",
		args: `{"purchase_order_id":1,"document_items":[{"sku":"NUT-M8","quantity":500,"unit_price":0.05},{"sku":"BOLT-M8","quantity":500}]}`,
		want: `{"success":true,"purchase_order_id":1,"order_number":"PO-1001","overall_status":"match",
			"matches":[{"sku":"NUT-M8","quantity":500,"unit_price":0.05},{"sku":"BOLT-M8","quantity":500,"unit_price":0.12}],
			"suggested_actions":["Receive the delivered items with receive_purchase_order (purchase_order_id 1)"],
			"message":"2 of 2 document line(s) match purchase order PO-1001",` + receiveSuggestion + `,"warnings":[]}`,
	}, {
		name: "nothing matches: a line not ordered, a price and a quantity too high, an order line missing",
		args: `{"purchase_order_id":1,"document_items":[{"sku":"WASHER-M8","quantity":100},{"sku":"BOLT-M8","quantity":600,"unit_price":0.15}]}`,
		want: `{"success":true,"purchase_order_id":1,"order_number":"PO-1001","overall_status":"no_match",
			"discrepancies":[{"sku":"WASHER-M8","type":"missing_in_po","actual":100,"message":"WASHER-M8 is not on purchase order PO-1001"},
				{"sku":"BOLT-M8","type":"quantity_mismatch","expected":500,"actual":600,"message":"BOLT-M8: the document says 600, the order 500"},
				{"sku":"BOLT-M8","type":"price_mismatch","expected":0.12,"actual":0.15,"message":"BOLT-M8: the document's price is 0.15, the order's 0.12 USD"}],
			"suggested_actions":["Ask Acme Fasteners why WASHER-M8 was sent, or order it with create_purchase_order",
				"Receive no more than the 500 BOLT-M8 ordered and ask Acme Fasteners about the 100 extra",
				"Ask Acme Fasteners to correct the price of BOLT-M8 to 0.12 USD before paying",
				"The document does not list NUT-M8 of purchase order PO-1001; check whether it is still to come"],
			"message":"0 of 2 document line(s) match purchase order PO-1001",` + receiveSuggestion + `,"warnings":[]}`,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := s.mustCall("verify_order_document", tt.args); got != compact(tt.want) {
				t.Fatalf("got\n%s\nwant\n%s", got, compact(tt.want))
			}
		})
	}
	if after, _ := s.store.Order("acme", 1); after.String() != before.String() || len(s.asked) != asked {
		t.Fatalf("verifying changed the order or asked the user (%q):\n%v", s.asked, after)
	}
}

const searchSuggestions = `"suggestions":["Call create_purchase_order to create a purchase order with its line items, after the user confirms",
	"Call create_manufacturing_order to plan production of a product from its recipe, after the user confirms"]`

// search_items finds catalog items by SKU or name, ignoring case, with the
// caller's own stock (received goods count; ordered ones do not).
func TestSearchItemsFindsItemsWithTheirStock(t *testing.T) {
	s := newSession(t, userAccepts)
	s.mustCall("create_purchase_order", confirmed(orderArgs))
	s.mustCall("receive_purchase_order", `{"purchase_order_id":1,"items":[{"sku":"BOLT-M8","quantity":200}],"confirm":true}`)
	tests := []struct{ name, args, want string }{{
		name: "the proto's example: by SKU, any case",
		args: `{"query":"m8"}`,
		want: `{"success":true,"items":[{"sku":"BOLT-M8","name":"Hex bolt M8x30","type":"material","purchase_price":0.12,"in_stock":200},
			{"sku":"NUT-M8","name":"Hex nut M8","type":"material","purchase_price":0.05},
			{"sku":"WASHER-M8","name":"Flat washer M8","type":"material","purchase_price":0.02}],
			"total_count":3,` + searchSuggestions + `,"warnings":[]}`,
	}, {
		name: "by name",
		args: `{"query":"HEX"}`,
		want: `{"success":true,"items":[{"sku":"BOLT-M8","name":"Hex bolt M8x30","type":"material","purchase_price":0.12,"in_stock":200},
			{"sku":"NUT-M8","name":"Hex nut M8","type":"material","purchase_price":0.05}],
			"total_count":2,` + searchSuggestions + `,"warnings":[]}`,
	}, {
		name: "limit keeps the count of every match",
		args: `{"query":"bracket","limit":1}`,
		want: `{"success":true,"items":[{"sku":"BRACKET-CORNER","name":"Corner bracket","type":"product"}],
			"total_count":2,` + searchSuggestions + `,"warnings":[]}`,
	}, {
		name: "nothing found",
		args: `{"query":"hinge"}`,
		want: `{"success":true,"total_count":0,` + searchSuggestions + `,"warnings":[]}`,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := s.mustCall("search_items", tt.args); got != compact(tt.want) {
				t.Fatalf("got\n%s\nwant\n%s", got, compact(tt.want))
			}
		})
	}
}

// The input schemas state the rules the proto gives the new tools: required
// fields, limit's bounds and default, the document's line count, the order
// types.
func TestNewToolInputSchemasStateTheirRules(t *testing.T) {
	s := newSession(t, noElicitation)
	res, err := s.cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"search_items": `{"type":"object","properties":{
			"limit":{"type":"integer","description":"Maximum results, 1-100; default 20","default":20,"minimum":1,"maximum":100},
			"query":{"type":"string","description":"Text the SKU or name contains, ignoring case","examples":["bolt"],"minLength":1,"maxLength":200}},
			"required":["query"],"additionalProperties":false}`,
		"verify_order_document": `{"type":"object","properties":{
			"purchase_order_id":{"type":"integer","minimum":1,"description":"ID of the purchase order the document belongs to"},
			"document_items":{"type":"array","minItems":1,"maxItems":100,"description":"Items from the document to verify",
				"items":{"type":"object","description":"DocumentItem is one line of a supplier's document.","properties":{
					"sku":{"type":"string","minLength":1,"maxLength":64,"description":"Item SKU from document"},
					"quantity":{"type":"integer","minimum":0,"description":"Quantity from document"},
					"unit_price":{"type":"number","minimum":0,"description":"Price from document, in the order currency; leave out when the document shows none"}},
					"required":["sku","quantity"],"additionalProperties":false}}},
			"required":["purchase_order_id","document_items"],"additionalProperties":false}`,
		// A write: order_type is one of the two aliases, and the preview flag
		// sits with the write options.
		"fulfill_order": `{"type":"object","properties":{
			"order_id":{"type":"integer","minimum":1,"description":"Order ID to fulfill"},
			"order_type":{"type":"string","enum":["manufacturing","sales"],"description":"Type of order (manufacturing or sales)"},
			"confirm":{"type":"boolean","description":"If false, returns preview. If true, fulfills order."},
			"client_request_id":{"type":"string","minLength":1,"maxLength":255,"pattern":"^[A-Za-z0-9_-]+$","description":"Idempotency key you choose: a repeat with the same key and arguments returns the stored result, never a second write (kept 24 h)."},
			"dry_run":{"type":"boolean","description":"Preview the complete request; write nothing."}},
			"required":["order_id","order_type"],"additionalProperties":false}`,
	}
	for _, tool := range res.Tools {
		w, ok := want[tool.Name]
		if !ok {
			continue
		}
		got, err := json.Marshal(tool.InputSchema)
		if err != nil {
			t.Fatal(err)
		}
		var wantSchema any
		if err := json.Unmarshal([]byte(w), &wantSchema); err != nil {
			t.Fatal(err)
		}
		if w, _ := json.Marshal(wantSchema); string(got) != string(w) {
			t.Errorf("%s input schema:\n got %s\nwant %s", tool.Name, got, w)
		}
		delete(want, tool.Name)
	}
	if len(want) > 0 {
		t.Errorf("tools not listed: %v", want)
	}
}
