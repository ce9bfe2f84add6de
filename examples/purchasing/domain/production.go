package domain

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	purchasingv1 "github.com/mcpwrite/protoc-gen-mcpwrite/examples/purchasing/gen/purchasing/v1"
)

// PlaceSalesOrder enters a customer's order in a tenant's books and returns
// its id. Every line must name a product of the catalog.
func (p *Purchasing) PlaceSalesOrder(tenant, customer string, lines ...SalesLine) (int32, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(lines) == 0 {
		return 0, status.Error(codes.InvalidArgument, "a sales order needs at least one line")
	}
	for _, l := range lines {
		it, ok := p.items[l.SKU]
		if !ok || it.Type != purchasingv1.ItemType_ITEM_TYPE_PRODUCT || l.Quantity < 1 {
			return 0, status.Errorf(codes.InvalidArgument, "sales order line %d x %s: want a positive quantity of a product", l.Quantity, l.SKU)
		}
	}
	b := p.tenant(tenant)
	b.nextSO++
	b.sales[b.nextSO] = &SalesOrder{ID: b.nextSO, OrderNumber: fmt.Sprintf("SO-%d", b.nextSO), Customer: customer, Lines: append([]SalesLine(nil), lines...)}
	return b.nextSO, nil
}

// Stock is what a tenant holds of a SKU.
func (p *Purchasing) Stock(tenant, sku string) int32 {
	p.mu.Lock()
	defer p.mu.Unlock()
	if b, ok := p.books[tenant]; ok {
		return b.stock[sku]
	}
	return 0
}

// ManufacturingOrder returns a copy of one of a tenant's manufacturing orders.
func (p *Purchasing) ManufacturingOrder(tenant string, id int32) (*purchasingv1.ManufacturingOrder, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	b, ok := p.books[tenant]
	if !ok {
		return nil, false
	}
	mo, ok := b.mos[id]
	if !ok {
		return nil, false
	}
	return proto.Clone(mo).(*purchasingv1.ManufacturingOrder), true
}

// answeredMO is mo as an answer shows it, without created_by (answeredPO).
func answeredMO(mo *purchasingv1.ManufacturingOrder) *purchasingv1.ManufacturingOrder {
	c := proto.Clone(mo).(*purchasingv1.ManufacturingOrder)
	c.CreatedBy = ""
	return c
}

// CreateManufacturingOrder plans production of a product: the materials of
// its recipe, their cost and what the tenant's stock is short of.
func (p *Purchasing) CreateManufacturingOrder(_ context.Context, req *purchasingv1.CreateManufacturingOrderRequest) (*purchasingv1.CreateManufacturingOrderResponse, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	b := p.tenant(req.GetMeta().GetTenantId())
	if _, ok := p.locations[req.GetLocationId()]; !ok {
		return nil, notFound("location", fmt.Sprint(req.GetLocationId()))
	}
	var violations []*errdetails.BadRequest_FieldViolation
	item, ok := p.items[req.GetSku()]
	switch {
	case !ok:
		violations = append(violations, &errdetails.BadRequest_FieldViolation{
			Field: "sku", Reason: "UNKNOWN_SKU",
			Description: fmt.Sprintf("SKU %s is not in the catalog; find products with search_items", req.GetSku()),
		})
	case item.Type != purchasingv1.ItemType_ITEM_TYPE_PRODUCT:
		violations = append(violations, &errdetails.BadRequest_FieldViolation{
			Field: "sku", Reason: "NOT_A_PRODUCT",
			Description: fmt.Sprintf("SKU %s is a material, bought with create_purchase_order; manufacturing orders make products (%s)", req.GetSku(), strings.Join(p.products(), ", ")),
		})
	}
	now := req.GetMeta().GetRequestedAt().AsTime()
	var warnings []string
	if d := req.GetProductionDeadlineDate(); d != "" {
		day, err := time.Parse(time.DateOnly, d)
		switch {
		case err != nil:
			violations = append(violations, &errdetails.BadRequest_FieldViolation{
				Field: "production_deadline_date", Reason: "INVALID_DATE",
				Description: fmt.Sprintf("production_deadline_date %s is not a calendar date", d),
			})
		case day.Before(now.Truncate(24 * time.Hour)):
			warnings = append(warnings, fmt.Sprintf("production deadline %s is in the past", d))
		}
	}
	if len(violations) > 0 {
		return nil, badRequest("the manufacturing order cannot be planned", violations)
	}
	var ingredients []*purchasingv1.Ingredient
	var total float64
	var short []string
	for _, r := range item.Recipe {
		need := r.Quantity * req.GetPlannedQuantity()
		have := b.stock[r.SKU]
		cost := cents(float64(need) * p.items[r.SKU].PurchasePrice)
		total += cost
		ingredients = append(ingredients, &purchasingv1.Ingredient{Sku: r.SKU, QuantityRequired: need, InStock: have, Cost: cost})
		if have < need {
			warnings = append(warnings, fmt.Sprintf("short %d %s: %d needed, %d in stock", need-have, r.SKU, need, have))
			short = append(short, fmt.Sprintf("%d %s", need-have, r.SKU))
		}
	}
	b.nextMO++
	mo := &purchasingv1.ManufacturingOrder{
		Id:                     b.nextMO,
		OrderNumber:            fmt.Sprintf("MO-%d", b.nextMO),
		Sku:                    item.SKU,
		PlannedQuantity:        req.GetPlannedQuantity(),
		LocationId:             req.GetLocationId(),
		Status:                 purchasingv1.ManufacturingOrderStatus_MANUFACTURING_ORDER_STATUS_NOT_STARTED,
		Ingredients:            ingredients,
		TotalCost:              cents(total),
		ProductionDeadlineDate: req.GetProductionDeadlineDate(),
		AdditionalInfo:         req.GetAdditionalInfo(),
		CreatedBy:              req.GetMeta().GetPrincipalId(),
		CreatedAt:              req.GetMeta().GetRequestedAt(),
	}
	b.mos[mo.Id] = mo
	var next []string
	if len(short) > 0 {
		next = append(next, "Buy the missing materials with create_purchase_order: "+strings.Join(short, ", "))
	}
	next = append(next, fmt.Sprintf("When production is done, complete it with fulfill_order (order_id %d, order_type manufacturing)", mo.GetId()))
	return &purchasingv1.CreateManufacturingOrderResponse{
		ManufacturingOrder: answeredMO(mo),
		Message:            fmt.Sprintf("Manufacturing order %s created: %d x %s, materials %s USD", mo.GetOrderNumber(), mo.GetPlannedQuantity(), mo.GetSku(), money(mo.GetTotalCost())),
		NextActions:        next,
		Warnings:           warnings,
	}, nil
}

// FulfillOrder completes a manufacturing order (its materials leave stock,
// its products enter it) or ships a sales order from stock. An order is
// fulfilled once; stock never goes below zero.
func (p *Purchasing) FulfillOrder(_ context.Context, req *purchasingv1.FulfillOrderRequest) (*purchasingv1.FulfillOrderResponse, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	b := p.tenant(req.GetMeta().GetTenantId())
	switch req.GetOrderType() {
	case purchasingv1.OrderType_ORDER_TYPE_MANUFACTURING:
		return p.completeManufacturing(b, req)
	case purchasingv1.OrderType_ORDER_TYPE_SALES:
		return p.shipSales(b, req)
	}
	return nil, status.Errorf(codes.InvalidArgument, "order_type %s: want manufacturing or sales", req.GetOrderType())
}

// plan is a fulfillment's stock changes: what leaves stock and what
// enters it, checked against what is on hand.
type plan struct {
	out, in []SalesLine
}

// shortages names what stock cannot cover, one "short 4 BOLT-M8 (24
// needed, 20 in stock)" per SKU.
func (pl plan) shortages(b *books) []*errdetails.PreconditionFailure_Violation {
	var vs []*errdetails.PreconditionFailure_Violation
	for _, l := range pl.out {
		if have := b.stock[l.SKU]; have < l.Quantity {
			vs = append(vs, &errdetails.PreconditionFailure_Violation{
				Type: "INSUFFICIENT_STOCK", Subject: l.SKU,
				Description: fmt.Sprintf("short %d %s (%d needed, %d in stock)", l.Quantity-have, l.SKU, l.Quantity, have),
			})
		}
	}
	return vs
}

// apply books the plan and answers the inventory updates, products first.
func (pl plan) apply(b *books) []string {
	var out []string
	for _, l := range pl.in {
		b.stock[l.SKU] += l.Quantity
		out = append(out, fmt.Sprintf("+%d %s", l.Quantity, l.SKU))
	}
	for _, l := range pl.out {
		b.stock[l.SKU] -= l.Quantity
		out = append(out, fmt.Sprintf("-%d %s", l.Quantity, l.SKU))
	}
	return out
}

func (p *Purchasing) completeManufacturing(b *books, req *purchasingv1.FulfillOrderRequest) (*purchasingv1.FulfillOrderResponse, error) {
	mo, ok := b.mos[req.GetOrderId()]
	if !ok {
		return nil, notFound("manufacturing order", fmt.Sprint(req.GetOrderId()))
	}
	if mo.GetStatus() == purchasingv1.ManufacturingOrderStatus_MANUFACTURING_ORDER_STATUS_DONE {
		return nil, precondition("ALREADY_DONE", mo.GetOrderNumber(), fmt.Sprintf("manufacturing order %s is already done", mo.GetOrderNumber()))
	}
	pl := plan{in: []SalesLine{{SKU: mo.GetSku(), Quantity: mo.GetPlannedQuantity()}}}
	for _, ing := range mo.GetIngredients() {
		pl.out = append(pl.out, SalesLine{SKU: ing.GetSku(), Quantity: ing.GetQuantityRequired()})
	}
	if vs := pl.shortages(b); len(vs) > 0 {
		return nil, insufficient(fmt.Sprintf("manufacturing order %s cannot be completed", mo.GetOrderNumber()), "buy the materials with create_purchase_order and receive them first", vs)
	}
	now := req.GetMeta().GetRequestedAt()
	var warnings []string
	if d := mo.GetProductionDeadlineDate(); d != "" {
		if day, err := time.Parse(time.DateOnly, d); err == nil && now.AsTime().After(day.Add(24*time.Hour)) {
			warnings = append(warnings, fmt.Sprintf("completed after the production deadline %s", d))
		}
	}
	updates := pl.apply(b)
	mo.Status = purchasingv1.ManufacturingOrderStatus_MANUFACTURING_ORDER_STATUS_DONE
	mo.DoneAt = timestamppb.New(now.AsTime())
	return &purchasingv1.FulfillOrderResponse{
		OrderId:          mo.GetId(),
		OrderType:        purchasingv1.OrderType_ORDER_TYPE_MANUFACTURING,
		OrderNumber:      mo.GetOrderNumber(),
		Status:           "Done",
		InventoryUpdates: updates,
		Warnings:         warnings,
		NextActions:      []string{fmt.Sprintf("Ship sales orders waiting for %s with fulfill_order (order_type sales)", mo.GetSku())},
		Message:          fmt.Sprintf("Manufacturing order %s done: %d %s added to stock", mo.GetOrderNumber(), mo.GetPlannedQuantity(), mo.GetSku()),
	}, nil
}

func (p *Purchasing) shipSales(b *books, req *purchasingv1.FulfillOrderRequest) (*purchasingv1.FulfillOrderResponse, error) {
	so, ok := b.sales[req.GetOrderId()]
	if !ok {
		return nil, notFound("sales order", fmt.Sprint(req.GetOrderId()))
	}
	if so.Shipped {
		return nil, precondition("ALREADY_FULFILLED", so.OrderNumber, fmt.Sprintf("sales order %s is already shipped", so.OrderNumber))
	}
	need := map[string]int32{}
	var pl plan
	for _, l := range so.Lines {
		if need[l.SKU] == 0 {
			pl.out = append(pl.out, SalesLine{SKU: l.SKU})
		}
		need[l.SKU] += l.Quantity
	}
	for i := range pl.out {
		pl.out[i].Quantity = need[pl.out[i].SKU]
	}
	if vs := pl.shortages(b); len(vs) > 0 {
		return nil, insufficient(fmt.Sprintf("sales order %s cannot be shipped", so.OrderNumber), "make the products with create_manufacturing_order and fulfill it first", vs)
	}
	updates := pl.apply(b)
	var warnings []string
	for _, l := range pl.out {
		if b.stock[l.SKU] == 0 {
			warnings = append(warnings, fmt.Sprintf("%s is now out of stock", l.SKU))
		}
	}
	so.Shipped, so.ShippedAt = true, req.GetMeta().GetRequestedAt().AsTime()
	return &purchasingv1.FulfillOrderResponse{
		OrderId:          so.ID,
		OrderType:        purchasingv1.OrderType_ORDER_TYPE_SALES,
		OrderNumber:      so.OrderNumber,
		Status:           "Shipped",
		InventoryUpdates: updates,
		Warnings:         warnings,
		NextActions:      []string{fmt.Sprintf("Invoice %s for sales order %s", so.Customer, so.OrderNumber)},
		Message:          fmt.Sprintf("Sales order %s for %s shipped: %d line(s)", so.OrderNumber, so.Customer, len(so.Lines)),
	}, nil
}

// products lists the catalog's products by SKU.
func (p *Purchasing) products() []string {
	var out []string
	for sku, it := range p.items {
		if it.Type == purchasingv1.ItemType_ITEM_TYPE_PRODUCT {
			out = append(out, sku)
		}
	}
	sort.Strings(out)
	return out
}

// insufficient is the FAILED_PRECONDITION of a fulfillment stock cannot
// cover: every shortage in the message and as a violation, and the way out.
func insufficient(what, fix string, vs []*errdetails.PreconditionFailure_Violation) error {
	var parts []string
	for _, v := range vs {
		parts = append(parts, v.GetDescription())
	}
	st := status.New(codes.FailedPrecondition, fmt.Sprintf("%s: %s; %s", what, strings.Join(parts, ", "), fix))
	if d, err := st.WithDetails(&errdetails.PreconditionFailure{Violations: vs}); err == nil {
		st = d
	}
	return st.Err()
}
