package domain

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/protobuf/proto"

	purchasingv1 "github.com/mcpwrite/protoc-gen-mcpwrite/examples/purchasing/gen/purchasing/v1"
)

// VerifyOrderDocument compares a supplier document's lines with a purchase
// order of the caller's tenant: a line matches when its SKU is on the order
// with the same quantity and (when the document shows one) the same price.
// It reads only.
func (p *Purchasing) VerifyOrderDocument(_ context.Context, req *purchasingv1.VerifyOrderDocumentRequest) (*purchasingv1.VerifyOrderDocumentResponse, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	var po *purchasingv1.PurchaseOrder
	if b, ok := p.books[req.GetMeta().GetTenantId()]; ok {
		po = b.orders[req.GetPurchaseOrderId()]
	}
	if po == nil {
		return nil, notFound("purchase order", fmt.Sprint(req.GetPurchaseOrderId()))
	}
	rows := map[string]*purchasingv1.PurchaseOrderRow{}
	for _, r := range po.GetItems() {
		rows[r.GetSku()] = r
	}
	resp := &purchasingv1.VerifyOrderDocumentResponse{PurchaseOrderId: po.GetId(), OrderNumber: po.GetOrderNumber()}
	onDocument := map[string]bool{}
	for _, it := range req.GetDocumentItems() {
		sku := it.GetSku()
		onDocument[sku] = true
		r, ok := rows[sku]
		if !ok {
			resp.Discrepancies = append(resp.Discrepancies, &purchasingv1.Discrepancy{
				Sku: sku, Type: purchasingv1.DiscrepancyType_DISCREPANCY_TYPE_MISSING_IN_PO, Actual: proto.Float64(float64(it.GetQuantity())),
				Message: fmt.Sprintf("%s is not on purchase order %s", sku, po.GetOrderNumber()),
			})
			resp.SuggestedActions = append(resp.SuggestedActions, fmt.Sprintf("Ask %s why %s was sent, or order it with create_purchase_order", p.supplierName(po), sku))
			continue
		}
		matched := true
		if it.GetQuantity() != r.GetQuantity() {
			matched = false
			resp.Discrepancies = append(resp.Discrepancies, &purchasingv1.Discrepancy{
				Sku: sku, Type: purchasingv1.DiscrepancyType_DISCREPANCY_TYPE_QUANTITY_MISMATCH,
				Expected: proto.Float64(float64(r.GetQuantity())), Actual: proto.Float64(float64(it.GetQuantity())),
				Message: fmt.Sprintf("%s: the document says %d, the order %d", sku, it.GetQuantity(), r.GetQuantity()),
			})
			if it.GetQuantity() < r.GetQuantity() {
				resp.SuggestedActions = append(resp.SuggestedActions, fmt.Sprintf("Receive the %d %s on the document with receive_purchase_order and ask %s when the other %d follow", it.GetQuantity(), sku, p.supplierName(po), r.GetQuantity()-it.GetQuantity()))
			} else {
				resp.SuggestedActions = append(resp.SuggestedActions, fmt.Sprintf("Receive no more than the %d %s ordered and ask %s about the %d extra", r.GetQuantity(), sku, p.supplierName(po), it.GetQuantity()-r.GetQuantity()))
			}
		}
		if it.UnitPrice != nil && cents(it.GetUnitPrice()) != cents(r.GetUnitPrice()) {
			matched = false
			resp.Discrepancies = append(resp.Discrepancies, &purchasingv1.Discrepancy{
				Sku: sku, Type: purchasingv1.DiscrepancyType_DISCREPANCY_TYPE_PRICE_MISMATCH,
				Expected: proto.Float64(r.GetUnitPrice()), Actual: proto.Float64(it.GetUnitPrice()),
				Message: fmt.Sprintf("%s: the document's price is %s, the order's %s %s", sku, money(it.GetUnitPrice()), money(r.GetUnitPrice()), currencyCode(po.GetCurrency())),
			})
			resp.SuggestedActions = append(resp.SuggestedActions, fmt.Sprintf("Ask %s to correct the price of %s to %s %s before paying", p.supplierName(po), sku, money(r.GetUnitPrice()), currencyCode(po.GetCurrency())))
		}
		if matched {
			resp.Matches = append(resp.Matches, &purchasingv1.MatchedLine{Sku: sku, Quantity: r.GetQuantity(), UnitPrice: r.GetUnitPrice()})
		}
	}
	var missing []string
	for _, r := range po.GetItems() {
		if !onDocument[r.GetSku()] {
			missing = append(missing, r.GetSku())
		}
	}
	if len(missing) > 0 {
		resp.SuggestedActions = append(resp.SuggestedActions, fmt.Sprintf("The document does not list %s of purchase order %s; check whether it is still to come", strings.Join(missing, ", "), po.GetOrderNumber()))
	}
	n, m := len(req.GetDocumentItems()), len(resp.GetMatches())
	switch {
	case m == n:
		resp.OverallStatus = purchasingv1.VerificationStatus_VERIFICATION_STATUS_MATCH
		resp.SuggestedActions = append(resp.SuggestedActions, fmt.Sprintf("Receive the delivered items with receive_purchase_order (purchase_order_id %d)", po.GetId()))
	case m > 0:
		resp.OverallStatus = purchasingv1.VerificationStatus_VERIFICATION_STATUS_PARTIAL_MATCH
	default:
		resp.OverallStatus = purchasingv1.VerificationStatus_VERIFICATION_STATUS_NO_MATCH
	}
	resp.Message = fmt.Sprintf("%d of %d document line(s) match purchase order %s", m, n, po.GetOrderNumber())
	return resp, nil
}

// SearchItems finds catalog items whose SKU or name contains the query,
// ignoring case, ordered by SKU, with the caller's stock of each.
func (p *Purchasing) SearchItems(_ context.Context, req *purchasingv1.SearchItemsRequest) (*purchasingv1.SearchItemsResponse, error) {
	q := strings.ToLower(strings.TrimSpace(req.GetQuery()))
	if q == "" {
		return nil, badRequest("nothing to search for", []*errdetails.BadRequest_FieldViolation{{
			Field: "query", Reason: "BLANK_QUERY", Description: "query is blank; give part of a SKU or name, e.g. bolt",
		}})
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	var stock map[string]int32
	if b, ok := p.books[req.GetMeta().GetTenantId()]; ok {
		stock = b.stock
	}
	var found []*purchasingv1.Item
	for _, it := range p.items {
		if strings.Contains(strings.ToLower(it.SKU), q) || strings.Contains(strings.ToLower(it.Name), q) {
			found = append(found, &purchasingv1.Item{Sku: it.SKU, Name: it.Name, Type: it.Type, PurchasePrice: it.PurchasePrice, InStock: stock[it.SKU]})
		}
	}
	sort.Slice(found, func(i, j int) bool { return found[i].GetSku() < found[j].GetSku() })
	total := int32(len(found))
	if limit := int(req.GetLimit()); limit > 0 && len(found) > limit {
		found = found[:limit]
	}
	return &purchasingv1.SearchItemsResponse{Items: found, TotalCount: &total}, nil
}

// supplierName is the name of an order's supplier; callers hold p.mu.
func (p *Purchasing) supplierName(po *purchasingv1.PurchaseOrder) string {
	if s, ok := p.suppliers[po.GetSupplierId()]; ok {
		return s.Name
	}
	return fmt.Sprintf("supplier %d", po.GetSupplierId())
}
