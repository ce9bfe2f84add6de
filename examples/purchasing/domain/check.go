package domain

import (
	"context"
	"fmt"
	"strings"

	"google.golang.org/protobuf/proto"

	purchasingv1 "github.com/mcpwrite/protoc-gen-mcpwrite/examples/purchasing/gen/purchasing/v1"
)

// Check is the domain's answer to a write without making it (pass it as
// runtime.WithPreviews(runtime.Previews{Check: p.Check})): it runs the write against a scratch
// copy of the tenant's orders, so a preview, dry_run and validate_write
// refuse exactly what the write would refuse. A preview has the source
// design's PurchaseOrderResponse form: the order as the write would leave
// it (without an id when it would create one), status, total_cost, a
// message, next_actions and warnings, answered where the write answers
// them; total, plan and status_after fill the confirmation questions.
func (p *Purchasing) Check(ctx context.Context, _ string, req proto.Message) (map[string]any, error) {
	scratch := p.scratch(req)
	switch r := req.(type) {
	case *purchasingv1.CreatePurchaseOrderRequest:
		resp, err := scratch.CreatePurchaseOrder(ctx, r)
		if err != nil {
			return nil, err
		}
		po := resp.GetPurchaseOrder()
		return map[string]any{
			"purchase_order": unsavedPO(po),
			"message":        previewMessage(resp.GetMessage()),
			"next_actions":   nonNil(resp.GetNextActions()),
			"warnings":       nonNil(resp.GetWarnings()),
			"total":          fmt.Sprintf("%s %s", money(po.GetTotalCost()), currencyCode(po.GetCurrency())),
		}, nil
	case *purchasingv1.ReceivePurchaseOrderRequest:
		resp, err := scratch.ReceivePurchaseOrder(ctx, r)
		if err != nil {
			return nil, err
		}
		po := resp.GetPurchaseOrder()
		return map[string]any{
			"purchase_order": po,
			"message":        previewMessage(resp.GetMessage()),
			"next_actions":   nonNil(resp.GetNextActions()),
			"warnings":       nonNil(resp.GetWarnings()),
			"order_number":   po.GetOrderNumber(),
			"received":       resp.GetMessage(),
		}, nil
	case *purchasingv1.CreateManufacturingOrderRequest:
		resp, err := scratch.CreateManufacturingOrder(ctx, r)
		if err != nil {
			return nil, err
		}
		mo := resp.GetManufacturingOrder()
		return map[string]any{
			"manufacturing_order": unsavedMO(mo),
			"message":             previewMessage(resp.GetMessage()),
			"next_actions":        nonNil(resp.GetNextActions()),
			"warnings":            nonNil(resp.GetWarnings()),
			"order_number":        mo.GetOrderNumber(),
			"total":               money(mo.GetTotalCost()) + " USD",
		}, nil
	case *purchasingv1.FulfillOrderRequest:
		resp, err := scratch.FulfillOrder(ctx, r)
		if err != nil {
			return nil, err
		}
		return map[string]any{
			"order_id":          resp.GetOrderId(),
			"order_type":        strings.ToLower(strings.TrimPrefix(resp.GetOrderType().String(), "ORDER_TYPE_")),
			"order_number":      resp.GetOrderNumber(),
			"status":            resp.GetStatus(),
			"inventory_updates": nonNil(resp.GetInventoryUpdates()),
			"warnings":          nonNil(resp.GetWarnings()),
			"next_actions":      nonNil(resp.GetNextActions()),
			"message":           previewMessage(resp.GetMessage()),
			"plan":              "Stock changes: " + strings.Join(resp.GetInventoryUpdates(), ", "),
		}, nil
	}
	return nil, nil
}

// previewMessage is the message of a preview: what the write would answer,
// marked as not done.
func previewMessage(written string) string {
	return "Nothing was written. With confirm: true: " + written
}

// unsavedPO and unsavedMO are an order the write would create, without
// the id only a stored order has.
func unsavedPO(po *purchasingv1.PurchaseOrder) *purchasingv1.PurchaseOrder {
	c := proto.Clone(po).(*purchasingv1.PurchaseOrder)
	c.Id = 0
	return c
}

func unsavedMO(mo *purchasingv1.ManufacturingOrder) *purchasingv1.ManufacturingOrder {
	c := proto.Clone(mo).(*purchasingv1.ManufacturingOrder)
	c.Id = 0
	return c
}

// scratch is a copy of the store holding a deep copy of the calling
// tenant's books and the shared catalog.
func (p *Purchasing) scratch(req proto.Message) *Purchasing {
	tenant := ""
	if m, ok := req.(interface {
		GetMeta() *purchasingv1.RequestMeta
	}); ok {
		tenant = m.GetMeta().GetTenantId()
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	s := &Purchasing{suppliers: p.suppliers, locations: p.locations, items: p.items, books: map[string]*books{}}
	if b, ok := p.books[tenant]; ok {
		s.books[tenant] = b.clone()
	}
	return s
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
