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
// refuse exactly what the write would refuse, and a preview shows the
// figures the write would compute (total cost, what stays outstanding,
// the stock a fulfillment moves).
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
			"order_number": po.GetOrderNumber(),
			"line_count":   len(po.GetItems()),
			"total_cost":   po.GetTotalCost(),
			"total":        fmt.Sprintf("%s %s", money(po.GetTotalCost()), currencyCode(po.GetCurrency())),
			"warnings":     nonNil(resp.GetWarnings()),
		}, nil
	case *purchasingv1.ReceivePurchaseOrderRequest:
		resp, err := scratch.ReceivePurchaseOrder(ctx, r)
		if err != nil {
			return nil, err
		}
		po := resp.GetPurchaseOrder()
		return map[string]any{
			"order_number": po.GetOrderNumber(),
			"status_after": po.GetStatus().String(),
			"message":      resp.GetMessage(),
			"next_actions": nonNil(resp.GetNextActions()),
			"warnings":     nonNil(resp.GetWarnings()),
		}, nil
	case *purchasingv1.CreateManufacturingOrderRequest:
		resp, err := scratch.CreateManufacturingOrder(ctx, r)
		if err != nil {
			return nil, err
		}
		mo := resp.GetManufacturingOrder()
		return map[string]any{
			"order_number": mo.GetOrderNumber(),
			"total_cost":   mo.GetTotalCost(),
			"total":        money(mo.GetTotalCost()) + " USD",
			"next_actions": nonNil(resp.GetNextActions()),
			"warnings":     nonNil(resp.GetWarnings()),
		}, nil
	case *purchasingv1.FulfillOrderRequest:
		resp, err := scratch.FulfillOrder(ctx, r)
		if err != nil {
			return nil, err
		}
		return map[string]any{
			"order_number":      resp.GetOrderNumber(),
			"status_after":      resp.GetStatus(),
			"inventory_updates": nonNil(resp.GetInventoryUpdates()),
			"plan":              "Stock changes: " + strings.Join(resp.GetInventoryUpdates(), ", "),
			"warnings":          nonNil(resp.GetWarnings()),
		}, nil
	}
	return nil, nil
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
