// Package domain is an in-memory purchasing and production system
// implementing the generated PurchasingServiceHandler: a catalog of
// suppliers, locations and items shared by every tenant, and each tenant's
// own books (purchase orders, manufacturing orders, sales orders and stock).
package domain

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strings"
	"sync"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	purchasingv1 "github.com/mcpwrite/protoc-gen-mcpwrite/examples/purchasing/gen/purchasing/v1"
	"github.com/mcpwrite/protoc-gen-mcpwrite/examples/purchasing/gen/purchasing/v1/purchasingv1mcpwrite"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime"
)

// Supplier is a vendor orders are placed with.
type Supplier struct {
	ID       int32
	Name     string
	Currency purchasingv1.Currency
}

// Location is a warehouse or shop floor that receives goods.
type Location struct {
	ID   int32
	Name string
}

// CatalogItem is a material bought from suppliers or a product made from
// materials by its recipe.
type CatalogItem struct {
	SKU  string
	Name string
	Type purchasingv1.ItemType
	// PurchasePrice is what one unit of a material costs, in USD.
	PurchasePrice float64
	// Recipe is what one unit of a product is made of.
	Recipe []RecipeLine
}

// RecipeLine is one material of a product's recipe.
type RecipeLine struct {
	SKU      string
	Quantity int32
}

// Purchasing is the in-memory store. The zero value is not usable; call New.
type Purchasing struct {
	mu        sync.Mutex
	suppliers map[int32]Supplier
	locations map[int32]Location
	items     map[string]CatalogItem
	books     map[string]*books // tenant -> its books
}

// books are one tenant's records; nothing in them is visible to another
// tenant.
type books struct {
	orders  map[int32]*purchasingv1.PurchaseOrder
	numbers map[string]int32 // folded order number -> purchase order id
	nextID  int32
	stock   map[string]int32 // SKU -> units on hand
	mos     map[int32]*purchasingv1.ManufacturingOrder
	nextMO  int32
	sales   map[int32]*SalesOrder
	nextSO  int32
}

func newBooks() *books {
	return &books{
		orders: map[int32]*purchasingv1.PurchaseOrder{}, numbers: map[string]int32{}, stock: map[string]int32{},
		mos: map[int32]*purchasingv1.ManufacturingOrder{}, sales: map[int32]*SalesOrder{},
	}
}

// clone is a deep copy, for checking a write without making it.
func (b *books) clone() *books {
	c := newBooks()
	for id, o := range b.orders {
		c.orders[id] = proto.Clone(o).(*purchasingv1.PurchaseOrder)
	}
	for n, id := range b.numbers {
		c.numbers[n] = id
	}
	for sku, q := range b.stock {
		c.stock[sku] = q
	}
	for id, mo := range b.mos {
		c.mos[id] = proto.Clone(mo).(*purchasingv1.ManufacturingOrder)
	}
	for id, so := range b.sales {
		cp := *so
		cp.Lines = append([]SalesLine(nil), so.Lines...)
		c.sales[id] = &cp
	}
	c.nextID, c.nextMO, c.nextSO = b.nextID, b.nextMO, b.nextSO
	return c
}

var _ purchasingv1mcpwrite.PurchasingServiceHandler = (*Purchasing)(nil)

// New returns a store with the given catalog and empty books.
func New(suppliers []Supplier, locations []Location, items []CatalogItem) *Purchasing {
	p := &Purchasing{
		suppliers: map[int32]Supplier{}, locations: map[int32]Location{}, items: map[string]CatalogItem{},
		books: map[string]*books{},
	}
	for _, s := range suppliers {
		p.suppliers[s.ID] = s
	}
	for _, l := range locations {
		p.locations[l.ID] = l
	}
	for _, it := range items {
		p.items[it.SKU] = it
	}
	return p
}

// ResolveSupplierCurrency answers currency when the agent omits it: orders
// are placed in the supplier's invoicing currency.
func (p *Purchasing) ResolveSupplierCurrency(_ context.Context, in proto.Message) (purchasingv1.Currency, error) {
	req, ok := in.(*purchasingv1.CreatePurchaseOrderRequest)
	if !ok {
		return 0, status.Errorf(codes.Internal, "supplier_currency resolver called with %T", in)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	s, ok := p.suppliers[req.GetSupplierId()]
	if !ok {
		return 0, notFound("supplier", fmt.Sprint(req.GetSupplierId()))
	}
	return s.Currency, nil
}

// CreatePurchaseOrder stores a new order after checking it against the catalog.
func (p *Purchasing) CreatePurchaseOrder(_ context.Context, req *purchasingv1.CreatePurchaseOrderRequest) (*purchasingv1.CreatePurchaseOrderResponse, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	b := p.tenant(req.GetMeta().GetTenantId())
	supplier, ok := p.suppliers[req.GetSupplierId()]
	if !ok {
		return nil, notFound("supplier", fmt.Sprint(req.GetSupplierId()))
	}
	if _, ok := p.locations[req.GetLocationId()]; !ok {
		return nil, notFound("location", fmt.Sprint(req.GetLocationId()))
	}
	if id, dup := b.numbers[foldNumber(req.GetOrderNumber())]; dup {
		o := b.orders[id]
		return nil, status.Errorf(codes.AlreadyExists, "purchase order number %s is already used by purchase order %d", o.GetOrderNumber(), o.GetId())
	}
	rows, violations, warnings := p.orderRows(req.GetItems())
	now := req.GetMeta().GetRequestedAt().AsTime()
	if d := req.GetExpectedDeliveryDate(); d != "" {
		day, err := time.Parse(time.DateOnly, d)
		switch {
		case err != nil:
			violations = append(violations, &errdetails.BadRequest_FieldViolation{
				Field: "expected_delivery_date", Reason: "INVALID_DATE",
				Description: fmt.Sprintf("expected_delivery_date %s is not a calendar date", d),
			})
		case day.Before(now.Truncate(24 * time.Hour)):
			warnings = append(warnings, fmt.Sprintf("expected delivery date %s is in the past", d))
		}
	}
	if len(violations) > 0 {
		return nil, badRequest("the purchase order has invalid lines", violations)
	}
	if req.GetCurrency() != supplier.Currency {
		warnings = append(warnings, fmt.Sprintf("%s invoices in %s but the order is in %s", supplier.Name, currencyCode(supplier.Currency), currencyCode(req.GetCurrency())))
	}
	var total float64
	for _, r := range rows {
		r.LineTotal = cents(float64(r.GetQuantity()) * r.GetUnitPrice())
		total += r.GetLineTotal()
	}
	b.nextID++
	po := &purchasingv1.PurchaseOrder{
		Id:                   b.nextID,
		OrderNumber:          req.GetOrderNumber(),
		SupplierId:           supplier.ID,
		LocationId:           req.GetLocationId(),
		Status:               purchasingv1.PurchaseOrderStatus_PURCHASE_ORDER_STATUS_NOT_RECEIVED,
		Currency:             req.GetCurrency(),
		Items:                rows,
		TotalCost:            cents(total),
		ExpectedDeliveryDate: req.GetExpectedDeliveryDate(),
		Notes:                req.GetNotes(),
		CreatedBy:            req.GetMeta().GetPrincipalId(),
		CreatedAt:            req.GetMeta().GetRequestedAt(),
	}
	b.orders[po.Id] = po
	b.numbers[foldNumber(po.GetOrderNumber())] = po.Id
	arrival := "when the goods arrive"
	if d := po.GetExpectedDeliveryDate(); d != "" {
		arrival = "when the goods arrive (expected " + d + ")"
	}
	return &purchasingv1.CreatePurchaseOrderResponse{
		PurchaseOrder: answeredPO(po),
		Message:       fmt.Sprintf("Purchase order %s created: %d line(s), total %s %s", po.GetOrderNumber(), len(rows), money(po.GetTotalCost()), currencyCode(po.GetCurrency())),
		NextActions: []string{
			fmt.Sprintf("Send purchase order %s to %s", po.GetOrderNumber(), supplier.Name),
			fmt.Sprintf("Record the delivery with receive_purchase_order (purchase_order_id %d) %s", po.GetId(), arrival),
		},
		Warnings: warnings,
	}, nil
}

// orderRows checks the items of a new order against the catalog and merges
// repeated SKUs into one row: the rows, the violations and the warnings.
func (p *Purchasing) orderRows(items []*purchasingv1.PurchaseOrderItem) ([]*purchasingv1.PurchaseOrderRow, []*errdetails.BadRequest_FieldViolation, []string) {
	var violations []*errdetails.BadRequest_FieldViolation
	var warnings []string
	rows := []*purchasingv1.PurchaseOrderRow{}
	bySKU := map[string]*purchasingv1.PurchaseOrderRow{}
	for i, it := range items {
		if _, ok := p.items[it.GetSku()]; !ok {
			violations = append(violations, &errdetails.BadRequest_FieldViolation{
				Field: fmt.Sprintf("items[%d].sku", i), Reason: "UNKNOWN_SKU",
				Description: fmt.Sprintf("SKU %s is not in the catalog", it.GetSku()),
			})
			continue
		}
		if it.GetUnitPrice() == 0 {
			warnings = append(warnings, fmt.Sprintf("line %d (%s) has unit price 0", i+1, it.GetSku()))
		}
		if r, dup := bySKU[it.GetSku()]; dup {
			if r.GetUnitPrice() != it.GetUnitPrice() {
				violations = append(violations, &errdetails.BadRequest_FieldViolation{
					Field: fmt.Sprintf("items[%d].unit_price", i), Reason: "CONFLICTING_PRICE",
					Description: fmt.Sprintf("SKU %s is ordered twice at different prices (%s and %s)", it.GetSku(), money(r.GetUnitPrice()), money(it.GetUnitPrice())),
				})
				continue
			}
			r.Quantity += it.GetQuantity()
			warnings = append(warnings, fmt.Sprintf("SKU %s appears more than once; quantities were merged into one line", it.GetSku()))
			continue
		}
		r := &purchasingv1.PurchaseOrderRow{Sku: it.GetSku(), Quantity: it.GetQuantity(), UnitPrice: it.GetUnitPrice()}
		bySKU[it.GetSku()] = r
		rows = append(rows, r)
	}
	return rows, violations, warnings
}

// ReceivePurchaseOrder books delivered quantities against an order's lines.
func (p *Purchasing) ReceivePurchaseOrder(_ context.Context, req *purchasingv1.ReceivePurchaseOrderRequest) (*purchasingv1.ReceivePurchaseOrderResponse, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	b := p.tenant(req.GetMeta().GetTenantId())
	po, ok := b.orders[req.GetPurchaseOrderId()]
	if !ok {
		return nil, notFound("purchase order", fmt.Sprint(req.GetPurchaseOrderId()))
	}
	if po.GetStatus() == purchasingv1.PurchaseOrderStatus_PURCHASE_ORDER_STATUS_RECEIVED {
		return nil, precondition("ALREADY_RECEIVED", po.GetOrderNumber(), fmt.Sprintf("purchase order %s is already fully received", po.GetOrderNumber()))
	}
	lines := map[string]*purchasingv1.PurchaseOrderRow{}
	for _, r := range po.GetItems() {
		lines[r.GetSku()] = r
	}
	var violations []*errdetails.BadRequest_FieldViolation
	incoming := map[string]int32{}
	for i, it := range req.GetItems() {
		r, ok := lines[it.GetSku()]
		if !ok {
			violations = append(violations, &errdetails.BadRequest_FieldViolation{
				Field: fmt.Sprintf("items[%d].sku", i), Reason: "NOT_ON_ORDER",
				Description: fmt.Sprintf("SKU %s is not on purchase order %s (lines: %s)", it.GetSku(), po.GetOrderNumber(), strings.Join(skusOf(po), ", ")),
			})
			continue
		}
		incoming[it.GetSku()] += it.GetQuantity()
		if open := r.GetQuantity() - r.GetReceivedQuantity(); incoming[it.GetSku()] > open {
			violations = append(violations, &errdetails.BadRequest_FieldViolation{
				Field: fmt.Sprintf("items[%d].quantity", i), Reason: "OVER_RECEIPT",
				Description: fmt.Sprintf("only %d unit(s) of %s are outstanding", open, it.GetSku()),
			})
		}
	}
	if len(violations) > 0 {
		return nil, badRequest("the receipt does not match the order", violations)
	}
	var warnings []string
	if req.GetReceivedAt().AsTime().After(req.GetMeta().GetRequestedAt().AsTime()) {
		warnings = append(warnings, "received_at is in the future")
	}
	for sku, q := range incoming {
		lines[sku].ReceivedQuantity += q
		b.stock[sku] += q
	}
	var outstanding []string
	for _, r := range po.GetItems() {
		if open := r.GetQuantity() - r.GetReceivedQuantity(); open > 0 {
			outstanding = append(outstanding, fmt.Sprintf("%d %s", open, r.GetSku()))
		}
	}
	po.LastReceivedAt = req.GetReceivedAt()
	var next []string
	if len(outstanding) == 0 {
		po.Status = purchasingv1.PurchaseOrderStatus_PURCHASE_ORDER_STATUS_RECEIVED
		next = []string{fmt.Sprintf("Match the supplier invoice for %s against the received quantities", po.GetOrderNumber())}
	} else {
		po.Status = purchasingv1.PurchaseOrderStatus_PURCHASE_ORDER_STATUS_PARTIALLY_RECEIVED
		next = []string{fmt.Sprintf("Still outstanding: %s; receive them with receive_purchase_order when they arrive", strings.Join(outstanding, ", "))}
	}
	return &purchasingv1.ReceivePurchaseOrderResponse{
		PurchaseOrder: answeredPO(po),
		Message:       fmt.Sprintf("Received %d line(s) on purchase order %s", len(incoming), po.GetOrderNumber()),
		NextActions:   next,
		Warnings:      warnings,
	}, nil
}

// answeredPO is po as an answer shows it: created_by, the principal ID of
// whoever created the order, stays in the books (Order) and is left out,
// so no answer, preview or confirmation shows a principal's ID.
func answeredPO(po *purchasingv1.PurchaseOrder) *purchasingv1.PurchaseOrder {
	c := proto.Clone(po).(*purchasingv1.PurchaseOrder)
	c.CreatedBy = ""
	return c
}

// Order returns a copy of one of a tenant's orders, created_by included.
func (p *Purchasing) Order(tenant string, id int32) (*purchasingv1.PurchaseOrder, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	b, ok := p.books[tenant]
	if !ok {
		return nil, false
	}
	po, ok := b.orders[id]
	if !ok {
		return nil, false
	}
	return proto.Clone(po).(*purchasingv1.PurchaseOrder), true
}

// ErrorHook adds purchasing advice to error entries: an agent that sends
// "preview" (rather than leaving confirm false) is told how previews work.
func ErrorHook(_ context.Context, _ string, _ proto.Message, e *runtime.ErrorEntry) {
	if e.Code == runtime.CodeUnknownField && e.Field == "preview" {
		if e.Suggestions == nil {
			e.Suggestions = &runtime.Suggestions{}
		}
		e.Suggestions.Hint = "Leave out preview: without confirm the answer is a preview; send confirm: true to make the change (the user is asked first)."
	}
}

// foldNumber is the key order numbers are unique by: case-insensitive, so
// the index finds what strings.EqualFold would.
func foldNumber(n string) string { return strings.ToLower(strings.ToUpper(n)) }

// tenant returns one tenant's books, empty at first; callers hold p.mu.
func (p *Purchasing) tenant(tenant string) *books {
	b, ok := p.books[tenant]
	if !ok {
		b = newBooks()
		p.books[tenant] = b
	}
	return b
}

func skusOf(po *purchasingv1.PurchaseOrder) []string {
	var out []string
	for _, r := range po.GetItems() {
		out = append(out, r.GetSku())
	}
	sort.Strings(out)
	return out
}

// currencyCode is the ISO 4217 code of a currency.
func currencyCode(c purchasingv1.Currency) string {
	return strings.TrimPrefix(c.String(), "CURRENCY_")
}

func cents(x float64) float64 { return math.Round(x*100) / 100 }

func money(x float64) string { return fmt.Sprintf("%.2f", x) }

func notFound(kind, id string) error {
	st := status.New(codes.NotFound, fmt.Sprintf("%s %s not found", kind, id))
	if d, err := st.WithDetails(&errdetails.ResourceInfo{ResourceType: kind, ResourceName: id}); err == nil {
		st = d
	}
	return st.Err()
}

func badRequest(msg string, vs []*errdetails.BadRequest_FieldViolation) error {
	st := status.New(codes.InvalidArgument, msg)
	if d, err := st.WithDetails(&errdetails.BadRequest{FieldViolations: vs}); err == nil {
		st = d
	}
	return st.Err()
}

func precondition(kind, subject, desc string) error {
	st := status.New(codes.FailedPrecondition, desc)
	if d, err := st.WithDetails(&errdetails.PreconditionFailure{Violations: []*errdetails.PreconditionFailure_Violation{{Type: kind, Subject: subject, Description: desc}}}); err == nil {
		st = d
	}
	return st.Err()
}

// NewDemo returns a store with a small catalog: two suppliers invoicing in
// USD and SEK, one warehouse, fastener and sheet-metal materials and two
// brackets made from them.
func NewDemo() *Purchasing {
	material, product := purchasingv1.ItemType_ITEM_TYPE_MATERIAL, purchasingv1.ItemType_ITEM_TYPE_PRODUCT
	return New(
		[]Supplier{
			{ID: 4001, Name: "Acme Fasteners", Currency: purchasingv1.Currency_CURRENCY_USD},
			{ID: 4002, Name: "Nordic Steel AB", Currency: purchasingv1.Currency_CURRENCY_SEK},
		},
		[]Location{{ID: 1, Name: "Main warehouse"}},
		[]CatalogItem{
			{SKU: "BOLT-M8", Name: "Hex bolt M8x30", Type: material, PurchasePrice: 0.12},
			{SKU: "NUT-M8", Name: "Hex nut M8", Type: material, PurchasePrice: 0.05},
			{SKU: "WASHER-M8", Name: "Flat washer M8", Type: material, PurchasePrice: 0.02},
			{SKU: "SHEET-2MM", Name: "Steel sheet 2 mm, 500x500", Type: material, PurchasePrice: 12.40},
			{SKU: "BRACKET-WALL", Name: "Wall bracket, galvanised", Type: product, Recipe: []RecipeLine{
				{SKU: "SHEET-2MM", Quantity: 1}, {SKU: "BOLT-M8", Quantity: 2}, {SKU: "NUT-M8", Quantity: 2}, {SKU: "WASHER-M8", Quantity: 2},
			}},
			{SKU: "BRACKET-CORNER", Name: "Corner bracket", Type: product, Recipe: []RecipeLine{
				{SKU: "SHEET-2MM", Quantity: 1}, {SKU: "BOLT-M8", Quantity: 4}, {SKU: "NUT-M8", Quantity: 4},
			}},
		},
	)
}

// SalesOrder is a customer's order for products. Sales orders come from the
// shop, not from agents: they enter the books through PlaceSalesOrder, and
// agents ship them with fulfill_order.
type SalesOrder struct {
	ID          int32
	OrderNumber string
	Customer    string
	Lines       []SalesLine
	Shipped     bool
	ShippedAt   time.Time
}

// SalesLine is one product line of a sales order.
type SalesLine struct {
	SKU      string
	Quantity int32
}
