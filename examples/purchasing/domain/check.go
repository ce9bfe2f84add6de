package domain

import (
	"context"
	"fmt"

	"google.golang.org/protobuf/proto"

	purchasingv1 "github.com/mcpwrite/protoc-gen-mcpwrite/examples/purchasing/gen/purchasing/v1"
)

// Check is the domain's answer to a write without making it (pass it as
// runtime.WithDomainCheck(p.Check)): it runs the write against a scratch
// copy of the tenant's orders, so a preview, dry_run and validate_write
// refuse exactly what the write would refuse, and a preview shows the
// figures the write would compute (total cost, what stays outstanding).
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
			"warnings":     nonNil(resp.GetOrderWarnings()),
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
			"warnings":     nonNil(resp.GetOrderWarnings()),
		}, nil
	}
	return nil, nil
}

// scratch is a copy of the store holding deep copies of the calling
// tenant's orders and the shared catalog.
func (p *Purchasing) scratch(req proto.Message) *Purchasing {
	tenant := ""
	switch r := req.(type) {
	case *purchasingv1.CreatePurchaseOrderRequest:
		tenant = r.GetMeta().GetTenantId()
	case *purchasingv1.ReceivePurchaseOrderRequest:
		tenant = r.GetMeta().GetTenantId()
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	s := &Purchasing{
		suppliers: p.suppliers, locations: p.locations, skus: p.skus,
		orders: map[string]map[int32]*purchasingv1.PurchaseOrder{}, numbers: map[string]map[string]int32{}, nextID: map[string]int32{},
	}
	orders := map[int32]*purchasingv1.PurchaseOrder{}
	for id, o := range p.orders[tenant] {
		orders[id] = proto.Clone(o).(*purchasingv1.PurchaseOrder)
	}
	s.orders[tenant] = orders
	numbers := map[string]int32{}
	for n, id := range p.numbers[tenant] {
		numbers[n] = id
	}
	s.numbers[tenant] = numbers
	s.nextID[tenant] = p.nextID[tenant]
	return s
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
