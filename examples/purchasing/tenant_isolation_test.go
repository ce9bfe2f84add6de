package purchasing_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/testing/protocmp"

	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/purchasing/domain"
	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/purchasing/gen/purchasing/v1/purchasingv1mcpwrite"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcptest"
)

var (
	isoA = runtime.RequestContext{TenantID: "tenant-a", PrincipalID: "user-1"}
	isoB = runtime.RequestContext{TenantID: "tenant-b", PrincipalID: "user-1"}
)

// isoServer is one purchasing system the two tenants share. Tenant A
// confirms through proposals as usual (its client cannot elicit); tenant
// B's writes run directly, so every probe reaches the domain handler.
func isoServer(t *testing.T) (*domain.Purchasing, *mcp.ClientSession, *mcp.ClientSession) {
	t.Helper()
	store := domain.NewDemo()
	who := map[string]runtime.RequestContext{"agent-a": isoA, "agent-b": isoB}
	s := mcp.NewServer(&mcp.Implementation{Name: "purchasing", Version: "test"}, nil)
	err := purchasingv1mcpwrite.RegisterPurchasingServiceTools(s, store,
		runtime.WithClock(func() time.Time { return time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC) }),
		runtime.WithPolicy(func(_ context.Context, pc runtime.PolicyCall) runtime.Confirmation {
			if pc.RequestContext.TenantID == isoB.TenantID {
				return runtime.ConfirmDirect
			}
			return runtime.ConfirmProposal
		}),
		runtime.WithPreviews(runtime.Previews{Check: store.Check}), // previews answer what the write would, per tenant
		runtime.WithRequestContextFunc(mcptest.ContextByClientName(who)))
	if err != nil {
		t.Fatal(err)
	}
	return store, mcptest.Connect(t, s, mcptest.Options{ClientName: "agent-a"}), mcptest.Connect(t, s, mcptest.Options{ClientName: "agent-b"})
}

// isoMasked is an answer with an order id (as a number and in text)
// replaced by a placeholder and without the generated envelope of a
// validate_write preview. Order ids are numbers, so the generic
// mcptest.Masked (which replaces strings) does not fit.
func isoMasked(t *testing.T, r mcptest.Result, id string) any {
	t.Helper()
	s := r.Text
	s = strings.ReplaceAll(s, `"purchase_order_id":`+id, `"purchase_order_id":"<id>"`)
	s = strings.ReplaceAll(s, `"order_id":`+id, `"order_id":"<id>"`)
	for _, form := range []string{`order ` + id + ` `, `order ` + id + `"`, `"resource_name":"` + id + `"`} {
		s = strings.ReplaceAll(s, form, strings.ReplaceAll(form, id, "<id>"))
	}
	var v map[string]any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("answer is not JSON: %v", err)
	}
	if p, ok := v["preview"].(map[string]any); ok {
		if req, ok := p["request"].(map[string]any); ok {
			delete(req, "meta")
		}
	}
	v["isError"] = r.IsError
	return v
}

func isoOK(t *testing.T, cs *mcp.ClientSession, tool, args string) map[string]any {
	t.Helper()
	r := mcptest.Call(t, cs, tool, args)
	if r.IsError {
		t.Fatalf("%s %s: %s", tool, args, r.Text)
	}
	return r.Body
}

// isoCommit proposes a write as tenant A and applies it.
func isoCommit(t *testing.T, cs *mcp.ClientSession, tool, args string) map[string]any {
	t.Helper()
	p := isoOK(t, cs, tool, args)["proposal"].(map[string]any)["proposal_id"].(string)
	return isoOK(t, cs, "apply_proposal", `{"proposal_id":"`+p+`"}`)
}

// A second tenant can neither read, overwrite nor learn of the first
// tenant's purchase orders through any tool: receiving against A's order
// ids answers exactly as for ids that never existed, A's order numbers are
// free in B's books, and A's orders stay as they were.
func TestTenantIsolationThroughEveryTool(t *testing.T) {
	store, a, b := isoServer(t)
	var ids []int32
	for i := range 3 {
		po := isoCommit(t, a, "create_purchase_order", fmt.Sprintf(`{"supplier_id":4001,"location_id":1,"order_number":"PO-A-%d","items":[{"sku":"BOLT-M8","quantity":500,"unit_price":0.25}],"confirm":true}`, i))
		ids = append(ids, int32(po["purchase_order"].(map[string]any)["id"].(float64)))
	}
	isoCommit(t, a, "receive_purchase_order", fmt.Sprintf(`{"purchase_order_id":%d,"items":[{"sku":"BOLT-M8","quantity":100}],"confirm":true}`, ids[1]))
	mo := isoCommit(t, a, "create_manufacturing_order", `{"sku":"BRACKET-WALL","planned_quantity":5,"location_id":1,"confirm":true}`)["manufacturing_order"].(map[string]any)
	moID := int32(mo["id"].(float64))
	soID, err := store.PlaceSalesOrder(isoA.TenantID, "Hansen Hardware", domain.SalesLine{SKU: "BRACKET-WALL", Quantity: 5})
	if err != nil {
		t.Fatal(err)
	}
	moBefore, _ := store.ManufacturingOrder(isoA.TenantID, moID)
	pending := isoOK(t, a, "receive_purchase_order", fmt.Sprintf(`{"purchase_order_id":%d,"items":[{"sku":"BOLT-M8","quantity":200}],"confirm":true}`, ids[0]))["proposal"].(map[string]any)["proposal_id"].(string)
	before := map[int32]proto.Message{}
	for _, id := range ids {
		po, found := store.Order(isoA.TenantID, id)
		if !found {
			t.Fatalf("tenant A has no order %d", id)
		}
		before[id] = po
	}

	covered := map[string]bool{}
	const never = "9876"
	for _, id := range ids {
		for _, tc := range []struct{ tool, args string }{
			{"receive_purchase_order", `{"purchase_order_id":%s,"items":[{"sku":"BOLT-M8","quantity":200}],"confirm":true}`},
			{"receive_purchase_order", `{"purchase_order_id":%s,"items":[{"sku":"NUT-M8","quantity":7}],"received_at":"2026-11-21T09:00:00Z","confirm":true}`},
			{"receive_purchase_order", `{"purchase_order_id":%s,"items":[{"sku":"BOLT-M8","quantity":200}]}`}, // a preview
			{"validate_write", `{"operation":"receive_purchase_order","payload":{"purchase_order_id":%s,"items":[{"sku":"BOLT-M8","quantity":200}]}}`},
			{"verify_order_document", `{"purchase_order_id":%s,"document_items":[{"sku":"BOLT-M8","quantity":500,"unit_price":0.25}]}`},
		} {
			covered[tc.tool] = true
			foreign := fmt.Sprint(id)
			absent := mcptest.Call(t, b, tc.tool, fmt.Sprintf(tc.args, never))
			got := mcptest.Call(t, b, tc.tool, fmt.Sprintf(tc.args, foreign))
			if !got.IsError && tc.tool != "validate_write" {
				t.Errorf("%s %s succeeded for tenant B: %s", tc.tool, fmt.Sprintf(tc.args, foreign), got.Text)
			}
			if diff := cmp.Diff(isoMasked(t, absent, never), isoMasked(t, got, foreign)); diff != "" {
				t.Errorf("%s %s: tenant A's id answers differently from an id that never existed (-never +A's):\n%s", tc.tool, tc.args, diff)
			}
		}
	}
	// A's manufacturing and sales orders are as unknown to B as ids that
	// never existed, whether B previews, fulfills or validates.
	for _, tc := range []struct {
		tool, args string
		id         int32
	}{
		{"fulfill_order", `{"order_id":%s,"order_type":"manufacturing","confirm":true}`, moID},
		{"fulfill_order", `{"order_id":%s,"order_type":"manufacturing"}`, moID},
		{"fulfill_order", `{"order_id":%s,"order_type":"sales","confirm":true}`, soID},
		{"fulfill_order", `{"order_id":%s,"order_type":"sales"}`, soID},
		{"validate_write", `{"operation":"fulfill_order","payload":{"order_id":%s,"order_type":"manufacturing"}}`, moID},
	} {
		covered[tc.tool] = true
		foreign := fmt.Sprint(tc.id)
		absent := mcptest.Call(t, b, tc.tool, fmt.Sprintf(tc.args, never))
		got := mcptest.Call(t, b, tc.tool, fmt.Sprintf(tc.args, foreign))
		if !got.IsError && tc.tool != "validate_write" {
			t.Errorf("%s %s succeeded for tenant B: %s", tc.tool, fmt.Sprintf(tc.args, foreign), got.Text)
		}
		if diff := cmp.Diff(isoMasked(t, absent, never), isoMasked(t, got, foreign)); diff != "" {
			t.Errorf("%s %s: tenant A's id answers differently from an id that never existed (-never +A's):\n%s", tc.tool, tc.args, diff)
		}
	}
	// B's stock is its own: A's received bolts are not in it, and B's first
	// manufacturing order is its own MO-1, planned against B's empty stock.
	covered["search_items"] = true
	const bolts = `{"sku":"BOLT-M8","name":"Hex bolt M8x30","type":"material","purchase_price":0.12%s}`
	for _, tc := range []struct {
		cs    *mcp.ClientSession
		stock string
	}{{a, `,"in_stock":100`}, {b, ``}} {
		want := `{"success":true,"items":[` + fmt.Sprintf(bolts, tc.stock) + `],"total_count":1,` +
			`"suggestions":["Call create_purchase_order to create a purchase order with its line items, after the user confirms",` +
			`"Call create_manufacturing_order to plan production of a product from its recipe, after the user confirms"],"warnings":[]}`
		if r := mcptest.Call(t, tc.cs, "search_items", `{"query":"bolt"}`); r.IsError || r.Text != want {
			t.Errorf("search_items:\n got %s\nwant %s", r.Text, want)
		}
	}
	covered["create_manufacturing_order"] = true
	bmo := isoOK(t, b, "create_manufacturing_order", `{"sku":"BRACKET-WALL","planned_quantity":5,"location_id":1,"confirm":true}`)["manufacturing_order"].(map[string]any)
	if bolt := bmo["ingredients"].([]any)[1].(map[string]any); bmo["order_number"] != "MO-1" || bmo["id"] != 1.0 || bolt["sku"] != "BOLT-M8" || bolt["in_stock"] != nil {
		t.Errorf("B's manufacturing order: %v", bmo)
	}
	for _, tool := range []string{"apply_proposal", "discard_proposal"} {
		covered[tool] = true
		absent := mcptest.Call(t, b, tool, `{"proposal_id":"prop-never-existed"}`)
		got := mcptest.Call(t, b, tool, `{"proposal_id":"`+pending+`"}`)
		if g, w := strings.ReplaceAll(got.Text, pending, "<id>"), strings.ReplaceAll(absent.Text, "prop-never-existed", "<id>"); !got.IsError || g != w {
			t.Errorf("%s of A's proposal by B:\n got: %s\nwant: %s", tool, g, w)
		}
	}
	// A's order numbers are free in B's books; B's first order is its own 1.
	covered["create_purchase_order"] = true
	po := isoOK(t, b, "create_purchase_order", `{"supplier_id":4001,"location_id":1,"order_number":"PO-A-0","items":[{"sku":"NUT-M8","quantity":10,"unit_price":0.05}],"confirm":true}`)["purchase_order"].(map[string]any)
	if _, shown := po["created_by"]; po["order_number"] != "PO-A-0" || po["id"] != 1.0 || shown {
		t.Errorf("B's order: %v", po)
	}
	// The books record who created it; the answer left that out.
	if stored, ok := store.Order(isoB.TenantID, 1); !ok || stored.GetCreatedBy() != "user-1" {
		t.Errorf("B's stored order 1: %v", stored)
	}
	// Within B's books the number is now taken (case-insensitively).
	if r := mcptest.Call(t, b, "create_purchase_order", `{"supplier_id":4001,"location_id":1,"order_number":"po-a-0","items":[{"sku":"NUT-M8","quantity":10,"unit_price":0.05}],"confirm":true}`); !r.IsError ||
		r.Text != `{"success":false,"error":{"code":"ALREADY_EXISTS","message":"purchase order number PO-A-0 is already used by purchase order 1"},"errors":[{"code":"ALREADY_EXISTS","message":"purchase order number PO-A-0 is already used by purchase order 1"}]}` {
		t.Errorf("B's duplicate order number: %s", r.Text)
	}
	covered["get_write_schema"] = true
	if ra, rb := mcptest.Call(t, a, "get_write_schema", `{"operation":"create_purchase_order"}`), mcptest.Call(t, b, "get_write_schema", `{"operation":"create_purchase_order"}`); ra.Text != rb.Text {
		t.Errorf("get_write_schema answers the tenants differently:\n A: %s\n B: %s", ra.Text, rb.Text)
	}
	// B receiving against its own order 1 touches B's order only.
	isoOK(t, b, "receive_purchase_order", `{"purchase_order_id":1,"items":[{"sku":"NUT-M8","quantity":10}],"confirm":true}`)

	for id, want := range before {
		got, _ := store.Order(isoA.TenantID, id)
		if diff := cmp.Diff(want, got, protocmp.Transform()); diff != "" {
			t.Errorf("tenant A's order %d changed (-before +after):\n%s", id, diff)
		}
	}
	if got, _ := store.ManufacturingOrder(isoA.TenantID, moID); !proto.Equal(got, moBefore) {
		t.Errorf("tenant A's manufacturing order changed: %v", got)
	}
	if n := store.Stock(isoA.TenantID, "BOLT-M8"); n != 100 {
		t.Errorf("tenant A's BOLT-M8 stock: %d, want 100", n)
	}
	if out := isoOK(t, a, "apply_proposal", `{"proposal_id":"`+pending+`"}`); out["purchase_order"].(map[string]any)["status"] != "PartiallyReceived" {
		t.Errorf("A's pending receipt: %v", out)
	}

	res, err := b.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var missing []string
	for _, tool := range res.Tools {
		if !covered[tool.Name] {
			missing = append(missing, tool.Name)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("tools not probed across tenants: %v", missing)
	}
}
