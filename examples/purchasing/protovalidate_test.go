package purchasing_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"google.golang.org/protobuf/types/known/timestamppb"

	purchasingv1 "github.com/mcpwrite/protoc-gen-mcpwrite/examples/purchasing/gen/purchasing/v1"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/pvcheck"
)

// A CEL rule of the proto (a line may total at most 1,000,000) runs on the
// complete request after enrichment: the agent gets it in the envelope,
// at the line it broke, with the rule's message and id, and nothing is
// written or asked; the same request passes validate_write only when the
// line is split.
func TestLineTotalLimitFromTheProtoAnswersTheAgent(t *testing.T) {
	s := newSession(t, userAccepts)
	big := `{"supplier_id":4001,"location_id":1,"order_number":"PO-2",
		"items":[{"sku":"BOLT-M8","quantity":10,"unit_price":0.12},{"sku":"NUT-M8","quantity":100000,"unit_price":20.5}]}`
	r := s.call("create_purchase_order", big)
	want := compact(`{"success":false,"error":{"code":"CONSTRAINT_VIOLATION",
		"message":"a line may total at most 1000000 in the order currency; split it over several orders",
		"field":"items[1]","details":{"rule_id":"item.line_total_limit"}},
		"errors":[{"code":"CONSTRAINT_VIOLATION",
		"message":"a line may total at most 1000000 in the order currency; split it over several orders",
		"field":"items[1]","details":{"rule_id":"item.line_total_limit"}}]}`)
	if !r.isError || r.text != want {
		t.Fatalf("got %s\nwant %s", r.text, want)
	}
	if len(s.asked) != 0 {
		t.Fatalf("the user was asked about a request the rules refuse: %q", s.asked)
	}
	v := s.call("validate_write", `{"operation":"create_purchase_order","payload":`+compact(big)+`}`)
	if e := errorsOf(t, v.text); e != "CONSTRAINT_VIOLATION items[1] item.line_total_limit" {
		t.Fatalf("validate_write: %s", v.text)
	}
	split := `{"supplier_id":4001,"location_id":1,"order_number":"PO-2",
		"items":[{"sku":"NUT-M8","quantity":40000,"unit_price":20.5}]}`
	if v := s.call("validate_write", `{"operation":"create_purchase_order","payload":`+compact(split)+`}`); valueOf(t, v.text, "valid") != true {
		t.Fatalf("validate_write of a split line: %s", v.text)
	}
}

// The checker reports every broken rule of a request with its proto path,
// the server-filled ones included (which the runtime answers INTERNAL, see
// runtime's TestRequestCheckAnswersViolationsInTheEnvelope).
func TestCheckerReportsEveryViolationWithItsProtoPath(t *testing.T) {
	c, err := pvcheck.New(new(purchasingv1.CreatePurchaseOrderRequest))
	if err != nil {
		t.Fatal(err)
	}
	req := &purchasingv1.CreatePurchaseOrderRequest{
		Meta:        &purchasingv1.RequestMeta{PrincipalId: "alice", RequestedAt: timestamppb.New(now)},
		SupplierId:  4001,
		LocationId:  1,
		OrderNumber: "PO-3",
		Items:       []*purchasingv1.PurchaseOrderItem{{Sku: "BOLT-M8", Quantity: 0, UnitPrice: 1}},
	}
	vs, err := c.Check(req)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, v := range vs {
		var path []string
		for _, s := range v.Path {
			path = append(path, s.Field+s.Subscript)
		}
		got = append(got, strings.Join(path, ".")+" "+v.RuleID+": "+v.Message)
	}
	want := []string{
		"meta.tenant_id string.min_len: must be at least 1 characters",
		"items[0].quantity int32.gte: must be greater than or equal to 1",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("violations:\n got %q\nwant %q", got, want)
	}
	if vs, err := c.Check(&purchasingv1.CreatePurchaseOrderRequest{Meta: req.Meta}); err != nil || len(vs) == 0 {
		t.Fatalf("an empty order passes: %v %v", vs, err)
	}
}

// errorsOf renders the errors of a validate_write answer as
// "CODE field rule_id" lines.
func errorsOf(t *testing.T, text string) string {
	t.Helper()
	var v struct {
		Errors []struct {
			Code    string         `json:"code"`
			Field   string         `json:"field"`
			Details map[string]any `json:"details"`
		} `json:"errors"`
	}
	if err := json.Unmarshal([]byte(text), &v); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, text)
	}
	var lines []string
	for _, e := range v.Errors {
		lines = append(lines, fmt.Sprintf("%s %s %v", e.Code, e.Field, e.Details["rule_id"]))
	}
	return strings.Join(lines, "\n")
}

// valueOf reads a top-level key of a JSON answer.
func valueOf(t *testing.T, text, key string) any {
	t.Helper()
	var v map[string]any
	if err := json.Unmarshal([]byte(text), &v); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, text)
	}
	return v[key]
}

// The buf.validate rules of the agent's fields are checked by the decoder,
// every broken one reported in one answer with the mcpwrite codes, before
// the server fills or asks anything.
func TestBufValidateRulesAreReportedTogetherByTheDecoder(t *testing.T) {
	s := newSession(t, userAccepts)
	r := s.call("create_purchase_order", `{"supplier_id":0,"location_id":1,"order_number":"`+strings.Repeat("9", 65)+`",
		"items":[{"sku":"","quantity":0,"unit_price":-1}],"expected_delivery_date":"soon"}`)
	want := "CONSTRAINT_VIOLATION supplier_id must be at least 1, got 0\n" +
		"CONSTRAINT_VIOLATION order_number must be at most 64 characters, got 65\n" +
		"CONSTRAINT_VIOLATION items[0].sku must be at least 1 character, got 0\n" +
		"CONSTRAINT_VIOLATION items[0].quantity must be at least 1, got 0\n" +
		"CONSTRAINT_VIOLATION items[0].unit_price must be at least 0, got -1\n" +
		`CONSTRAINT_VIOLATION expected_delivery_date must match the pattern ^\d{4}-\d{2}-\d{2}$ (got 4 characters that do not)`
	if got := messagesOf(t, r.text); !r.isError || got != want {
		t.Fatalf("got\n%s\nwant\n%s\n%s", got, want, r.text)
	}
	if len(s.asked) != 0 {
		t.Fatalf("the user was asked: %q", s.asked)
	}
}

// messagesOf renders the errors of an answer as "CODE field message" lines.
func messagesOf(t *testing.T, text string) string {
	t.Helper()
	var v struct {
		Errors []struct{ Code, Field, Message string } `json:"errors"`
	}
	if err := json.Unmarshal([]byte(text), &v); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, text)
	}
	var lines []string
	for _, e := range v.Errors {
		lines = append(lines, e.Code+" "+e.Field+" "+e.Message)
	}
	return strings.Join(lines, "\n")
}

// get_write_schema lists the proto's rules per field, CEL rules by id and
// message, and says which step checks each.
func TestGetWriteSchemaListsTheRules(t *testing.T) {
	s := newSession(t, userAccepts)
	r := s.call("get_write_schema", `{"operation":"create_purchase_order"}`)
	var doc struct {
		Rules []struct {
			Field      string `json:"field"`
			ProtoField string `json:"proto_field"`
			FilledBy   string `json:"filled_by"`
			Rules      []struct {
				Rule, Value, ID, Message string
				CheckedBy                string `json:"checked_by"`
			} `json:"rules"`
		} `json:"rules"`
	}
	if err := json.Unmarshal([]byte(r.text), &doc); err != nil || r.isError || len(doc.Rules) == 0 {
		t.Fatalf("get_write_schema: %v\n%s", err, r.text)
	}
	var got []string
	for _, f := range doc.Rules {
		for _, x := range f.Rules {
			got = append(got, fmt.Sprintf("%s|%s|%s: %s %s %s %q (%s)", f.Field, f.ProtoField, f.FilledBy, x.Rule, x.Value, x.ID, x.Message, x.CheckedBy))
		}
	}
	want := []string{
		`|meta.tenant_id|server: string.min_len 1  "" (protovalidate)`,
		`|meta.principal_id|server: string.min_len 1  "" (protovalidate)`,
		`|meta.requested_at|server: required true  "" (protovalidate)`,
		`supplier_id|supplier_id|agent: int32.gte 1  "" (decoder)`,
		`location_id|location_id|agent: int32.gte 1  "" (decoder)`,
		`order_number|order_number|agent: string.min_len 1  "" (decoder)`,
		`order_number|order_number|agent: string.max_len 64  "" (decoder)`,
		`items|items|agent: repeated.min_items 1  "" (decoder)`,
		`items|items|agent: repeated.max_items 100  "" (decoder)`,
		`items[]|items|message: cel double(this.quantity) * this.unit_price <= 1000000.0 item.line_total_limit "a line may total at most 1000000 in the order currency; split it over several orders" (protovalidate)`,
		`items[].sku|items.sku|agent: string.min_len 1  "" (decoder)`,
		`items[].sku|items.sku|agent: string.max_len 64  "" (decoder)`,
		`items[].quantity|items.quantity|agent: int32.gte 1  "" (decoder)`,
		`items[].unit_price|items.unit_price|agent: double.gte 0  "" (decoder)`,
		`expected_delivery_date|expected_delivery_date|agent: string.pattern "^\\d{4}-\\d{2}-\\d{2}$"  "" (decoder)`,
		`notes|notes|agent: string.max_len 2000  "" (decoder)`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("rules:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
