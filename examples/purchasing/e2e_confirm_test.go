package purchasing_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/purchasing/domain"
	purchasingv1 "github.com/mcpwrite/protoc-gen-mcpwrite/examples/purchasing/gen/purchasing/v1"
	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/purchasing/gen/purchasing/v1/purchasingv1mcpwrite"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcptest"
)

// Every write asks through one shared confirmation form, a required
// boolean confirm, as the source design's ConfirmationSchema does. An
// accepted form with confirm false is declined and a dismissed one
// cancelled; neither writes anything.
func TestEveryWriteAsksThroughTheSharedConfirmationForm(t *testing.T) {
	s := newSession(t, userAccepts)
	s.stockMaterials()                                        // purchase order 1, received
	s.mustCall("create_purchase_order", confirmed(orderArgs)) // purchase order 2
	s.mustCall("create_manufacturing_order", confirmed(moArgs))
	writes := []struct{ tool, args string }{
		{"create_purchase_order", confirmed(`{"supplier_id":4001,"location_id":1,"order_number":"PO-3001","items":[{"sku":"BOLT-M8","quantity":1,"unit_price":0.12}]}`)},
		{"receive_purchase_order", `{"purchase_order_id":2,"items":[{"sku":"BOLT-M8","quantity":1}],"confirm":true}`},
		{"create_manufacturing_order", confirmed(moArgs)},
		{"fulfill_order", `{"order_id":1,"order_type":"manufacturing","confirm":true}`},
	}
	const form = `{"type":"object","properties":{"confirm":{"type":"boolean","title":"Confirm","description":"Perform this change"}},"required":["confirm"]}`
	for _, answer := range []struct {
		result *mcp.ElicitResult
		code   string
	}{
		{&mcp.ElicitResult{Action: "accept", Content: map[string]any{"confirm": false}}, "CONFIRMATION_DECLINED"},
		{&mcp.ElicitResult{Action: "cancel"}, "CONFIRMATION_CANCELLED"},
	} {
		var mu sync.Mutex
		var forms []string
		cs := mcptest.Connect(t, s.server, mcptest.Options{Protocol: "2025-11-25", Elicit: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			b, err := json.Marshal(req.Params.RequestedSchema)
			if err != nil {
				return nil, err
			}
			mu.Lock()
			forms = append(forms, string(b))
			mu.Unlock()
			return answer.result, nil
		}})
		for _, w := range writes {
			r := mcptest.Call(t, cs, w.tool, w.args)
			if e := errorOf(t, r.Text); !r.IsError || e.Code != answer.code {
				t.Errorf("%s answered %s: %s", w.tool, answer.result.Action, r.Text)
			}
		}
		if len(forms) != len(writes) {
			t.Fatalf("%d forms for %d writes", len(forms), len(writes))
		}
		var want any
		if err := json.Unmarshal([]byte(form), &want); err != nil {
			t.Fatal(err)
		}
		for i, f := range forms {
			var got any
			if err := json.Unmarshal([]byte(f), &got); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%s asked with form %s, want %s", writes[i].tool, f, form)
			}
		}
	}
	if _, ok := s.store.Order("acme", 3); ok {
		t.Error("an unconfirmed purchase order was written")
	}
	if po, _ := s.store.Order("acme", 2); po.GetStatus().String() != "PURCHASE_ORDER_STATUS_NOT_RECEIVED" {
		t.Errorf("an unconfirmed receipt was booked: %v", po)
	}
	if _, ok := s.store.ManufacturingOrder("acme", 2); ok {
		t.Error("an unconfirmed manufacturing order was written")
	}
	if mo, _ := s.store.ManufacturingOrder("acme", 1); mo.GetStatus().String() != "MANUFACTURING_ORDER_STATUS_NOT_STARTED" {
		t.Errorf("an unconfirmed fulfillment was made: %v", mo)
	}
}

// receive_purchase_order previews what stays outstanding, then asks the
// question its proto names.
func TestReceivePurchaseOrderPreviewsThenAsks(t *testing.T) {
	s := newSession(t, userAccepts)
	s.mustCall("create_purchase_order", confirmed(orderArgs))
	got := s.mustCall("receive_purchase_order", `{"purchase_order_id":1,"items":[{"sku":"BOLT-M8","quantity":200}]}`)
	want := compact(`{"success":true,"is_preview":true,
		"purchase_order":{"id":1,"order_number":"PO-1001","supplier_id":4001,"location_id":1,"status":"PartiallyReceived","currency":"USD",
			"items":[{"sku":"BOLT-M8","quantity":500,"unit_price":0.12,"line_total":60,"received_quantity":200},{"sku":"NUT-M8","quantity":500,"unit_price":0.05,"line_total":25}],
			"total_cost":85,"expected_delivery_date":"2026-12-15","created_at":"2026-11-22T10:00:00Z","last_received_at":"2026-11-22T10:00:00Z"},
		"message":"Nothing was written. With confirm: true: Received 1 line(s) on purchase order PO-1001",
		"next_actions":["Still outstanding: 300 BOLT-M8, 500 NUT-M8; receive them with receive_purchase_order when they arrive"],
		"valid":true,
		"preview":{"request":{"purchase_order_id":1,"items":[{"sku":"BOLT-M8","quantity":200}]},
			"domain":{"order_number":"PO-1001","received":"Received 1 line(s) on purchase order PO-1001"}},
		"suggestions":["Nothing was written. Show this preview to the user; to make the change, call receive_purchase_order again with the same arguments and confirm: true (the user is then asked to confirm)."],
		"warnings":[]}`)
	if got != want {
		t.Fatalf("preview: got\n%s\nwant\n%s", got, want)
	}
	if po, _ := s.store.Order("acme", 1); po.GetItems()[0].GetReceivedQuantity() != 0 || len(s.asked) != 1 {
		t.Fatalf("the preview booked a receipt or asked the user (%q)", s.asked)
	}
	s.mustCall("receive_purchase_order", `{"purchase_order_id":1,"items":[{"sku":"BOLT-M8","quantity":200}],"confirm":true}`)
	wantAsk := "Receive 1 line(s) on purchase order PO-1001? Received 1 line(s) on purchase order PO-1001. " +
		"This overwrites existing data; the previous values are lost.\n\n" +
		"purchase_order_id: 1\nitems[0].sku: BOLT-M8\nitems[0].quantity: 200"
	if len(s.asked) != 2 || s.asked[1] != wantAsk {
		t.Fatalf("user was asked %q", s.asked)
	}
	if n := s.store.Stock("acme", "BOLT-M8"); n != 200 {
		t.Fatalf("BOLT-M8 stock after the receipt: %d, want 200", n)
	}
}

// create_purchase_order takes the source design's request fields flat at
// the top level (what its unpack decorator achieves), with the design's
// descriptions; the four it marks required are required and confirm is an
// optional boolean.
func TestCreatePurchaseOrderSchemaHasTheDesignsFields(t *testing.T) {
	s := newSession(t, noElicitation)
	res, err := s.cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range res.Tools {
		if tool.Name != "create_purchase_order" {
			continue
		}
		b, err := json.Marshal(tool.InputSchema)
		if err != nil {
			t.Fatal(err)
		}
		var schema struct {
			Properties map[string]struct {
				Type        string `json:"type"`
				Description string `json:"description"`
				MinItems    *int   `json:"minItems"`
			} `json:"properties"`
			Required []string `json:"required"`
		}
		if err := json.Unmarshal(b, &schema); err != nil {
			t.Fatal(err)
		}
		for _, f := range []struct{ name, typ, desc string }{
			{"supplier_id", "integer", "Supplier ID"},
			{"location_id", "integer", "Location ID where items will be received"},
			{"order_number", "string", "Purchase order number"},
			{"items", "array", "Line items"},
			{"confirm", "boolean", "If false, returns preview. If true, creates order."},
		} {
			p := schema.Properties[f.name]
			if p.Type != f.typ || p.Description != f.desc {
				t.Errorf("%s: type %q description %q, want %q %q", f.name, p.Type, p.Description, f.typ, f.desc)
			}
		}
		if m := schema.Properties["items"].MinItems; m == nil || *m != 1 {
			t.Errorf("items minItems %v, want 1", m)
		}
		if got := strings.Join(schema.Required, ","); got != "supplier_id,location_id,order_number,items" {
			t.Errorf("required: %s", got)
		}
		return
	}
	t.Fatal("create_purchase_order is not listed")
}

// quietOrders answers purchase orders without next actions, as a domain
// with nothing to suggest would.
type quietOrders struct{ *domain.Purchasing }

func (q quietOrders) CreatePurchaseOrder(ctx context.Context, req *purchasingv1.CreatePurchaseOrderRequest) (*purchasingv1.CreatePurchaseOrderResponse, error) {
	resp, err := q.Purchasing.CreatePurchaseOrder(ctx, req)
	if resp != nil {
		resp.NextActions = nil
	}
	return resp, err
}

// The source design's PurchaseOrderResponse always carries next_actions
// (`list[str] = []`): an answer with none says "next_actions":[] rather
// than leaving the key out, and every write's output schema says so.
func TestNextActionsArePresentWhenEmpty(t *testing.T) {
	server := mcp.NewServer(&mcp.Implementation{Name: "purchasing-server", Version: "test"}, nil)
	rc := func(context.Context, *mcp.CallToolRequest) (runtime.RequestContext, bool) {
		return runtime.RequestContext{TenantID: "acme", PrincipalID: "alice", CorrelationID: "corr-1"}, true
	}
	store := domain.NewDemo()
	if err := purchasingv1mcpwrite.RegisterPurchasingServiceTools(server, quietOrders{store},
		runtime.WithRequestContextFunc(rc), runtime.WithClock(func() time.Time { return now }), runtime.WithRand(&seqReader{})); err != nil {
		t.Fatal(err)
	}
	cs := mcptest.Connect(t, server, mcptest.Options{Protocol: "2025-11-25", Elicit: mcptest.Accept(true).Handler})
	r := mcptest.Call(t, cs, "create_purchase_order", confirmed(orderArgs))
	want := compact(`{"success":true,"purchase_order":` + createdOrder + `,
		"message":"Purchase order PO-1001 created: 2 line(s), total 85.00 USD","next_actions":[],
		"suggestions":["Call receive_purchase_order to receive delivered items of a purchase order into stock, after the user confirms"],
		"warnings":[]}`)
	if r.IsError || r.Text != want {
		t.Fatalf("got\n%s\nwant\n%s", r.Text, want)
	}
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, tool := range res.Tools {
		b, err := json.Marshal(tool.OutputSchema)
		if err != nil {
			t.Fatal(err)
		}
		var out struct {
			Properties map[string]struct {
				Description string `json:"description"`
			} `json:"properties"`
		}
		if err := json.Unmarshal(b, &out); err != nil {
			t.Fatal(err)
		}
		if p, ok := out.Properties["next_actions"]; ok {
			got = append(got, tool.Name+": "+p.Description)
		}
	}
	wantSchemas := []string{
		"create_manufacturing_order: Always present when the call succeeds.",
		"create_purchase_order: What the user or agent should do next. Always present when the call succeeds.",
		"fulfill_order: Always present when the call succeeds.",
		"receive_purchase_order: Always present when the call succeeds.",
	}
	if diff := cmp.Diff(wantSchemas, got); diff != "" {
		t.Fatalf("next_actions in the output schemas (-want +got):\n%s", diff)
	}
}
