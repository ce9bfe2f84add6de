package impl

import (
	"reflect"
	"testing"
)

// The buf.validate checks report with the mcpwrite codes, every one of
// them, and pass the values the rule allows.
func TestDecoderBufValidateChecksReportExactErrors(t *testing.T) {
	d := NewDecoder(Limits{})
	tier := NewEnumTable("x.v1.Tier", []EnumValue{{Number: 1, Alias: "Gold"}, {Number: 2, Alias: "Silver"}, {Number: 3, Alias: "Blocked"}}, "")
	d.ExclusiveMinimum("discount", 0, 0)
	d.ExclusiveMinimum("discount", 0.1, 0)
	d.ExclusiveMaximum("discount", 1, 1)
	d.StringIn("country", "US", "DE", "FR")
	d.StringIn("country", "DE", "DE", "FR")
	d.StringNotIn("code", "ROOT", "ADMIN", "ROOT")
	d.StringNotIn("code", "ops", "ADMIN", "ROOT")
	d.NumberIn("priority", 4, 1, 2, 3)
	d.NumberIn("priority", 2, 1, 2, 3)
	d.NumberNotIn("amount", 0, 0)
	d.EnumIn("tier", 3, tier, 1, 2)
	d.EnumIn("tier", 1, tier, 1, 2)
	d.Format("id", "not-a-uuid", "uuid")
	d.Format("id", "3f0c5a5e-8a1f-4c7e-9b1d-2f6a7c9e0b12", "uuid")
	d.Format("email", "ada@", "email")
	d.Format("email", "Ada <ada@example.com>", "email")
	d.Format("email", "ada@example.com", "email")
	d.Format("site", "example.com/x", "uri")
	d.Format("site", "https://example.com/x", "uri")
	d.Format("host", "-bad-.example", "hostname")
	d.Format("host", "api.example.com", "hostname")
	d.Format("ip", "300.1.1.1", "ip")
	d.Format("ip", "::1", "ip")
	d.Format("v4", "::1", "ipv4")
	d.Format("v6", "10.0.0.1", "ipv6")
	d.Format("x", "y", "isbn")
	UniqueItems(d, "tags", []string{"a", "b", "a"})
	UniqueItems(d, "tags", []int32{1, 2, 3})
	want := []errLine{
		{CodeConstraintViolation, "must be greater than 0, got 0", "discount"},
		{CodeConstraintViolation, "must be less than 1, got 1", "discount"},
		{CodeConstraintViolation, `must be one of "DE", "FR"`, "country"},
		{CodeConstraintViolation, `must not be any of "ADMIN", "ROOT"`, "code"},
		{CodeConstraintViolation, "must be one of 1, 2, 3, got 4", "priority"},
		{CodeConstraintViolation, "must not be any of 0, got 0", "amount"},
		{CodeInvalidEnumValue, "Blocked is not accepted for tier; use one of Gold, Silver", "tier"},
		{CodeConstraintViolation, "must be a UUID such as 3f0c5a5e-8a1f-4c7e-9b1d-2f6a7c9e0b12 (got 10 characters that are not)", "id"},
		{CodeConstraintViolation, "must be an email address (got 4 characters that are not)", "email"},
		{CodeConstraintViolation, "must be an email address (got 21 characters that are not)", "email"},
		{CodeConstraintViolation, "must be an absolute URI such as https://example.com/x (got 13 characters that are not)", "site"},
		{CodeConstraintViolation, "must be a hostname such as api.example.com (got 13 characters that are not)", "host"},
		{CodeConstraintViolation, "must be an IPv4 or IPv6 address (got 9 characters that are not)", "ip"},
		{CodeConstraintViolation, "must be an IPv4 address (got 3 characters that are not)", "v4"},
		{CodeConstraintViolation, "must be an IPv6 address (got 8 characters that are not)", "v6"},
		{CodeInternal, "unknown format isbn for x", "x"},
		{CodeConstraintViolation, "items must be unique: item 2 repeats item 0", "tags"},
	}
	if got := linesOf(d.Errors()); !reflect.DeepEqual(got, want) {
		t.Errorf("errors:\n got %q\nwant %q", got, want)
	}
}

// string.prefix, suffix, contains and not_contains report what the value
// must look like and the value itself; a value that meets them passes.
func TestDecoderAffixChecksReportExactErrors(t *testing.T) {
	d := NewDecoder(Limits{})
	d.HasPrefix("ref", "PO-1", "REF-")
	d.HasPrefix("ref", "REF-1-X", "REF-")
	d.HasSuffix("ref", "REF-1", "-X")
	d.HasSuffix("ref", "REF-1-X", "-X")
	d.Contains("ref", "REF1", "-")
	d.Contains("ref", "REF-1", "-")
	d.NotContains("ref", "REF 1", " ")
	d.NotContains("ref", "REF-1", " ")
	want := []errLine{
		{CodeConstraintViolation, `must start with "REF-", got "PO…"`, "ref"},
		{CodeConstraintViolation, `must end with "-X", got "RE…"`, "ref"},
		{CodeConstraintViolation, `must contain "-", got "RE…"`, "ref"},
		{CodeConstraintViolation, `must not contain " ", got "RE…"`, "ref"},
	}
	var got []errLine
	for _, e := range d.Errors() {
		got = append(got, errLine{e.Code, e.Message, e.Field})
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("errors:\n got %q\nwant %q", got, want)
	}
}

// OneOf: none of a required set, two of any set, and null as not sent.
func TestDecoderOneOfReportsExactErrors(t *testing.T) {
	obj, _ := Parse([]byte(`{"person_id":"p1","org_id":"o1","org_name":null}`), Limits{})
	d := NewDecoder(Limits{})
	d.OneOf(obj, false, "person_id", "org_id")
	d.OneOf(obj, true, "org_name", "team_id")
	d.OneOf(obj, true, "contact")
	d.OneOf(obj, true, "org_id", "org_name")
	want := []errLine{
		{CodeValidation, "set only one of person_id, org_id, not person_id and org_id", "org_id"},
		{CodeMissingRequired, "set exactly one of org_name, team_id", "org_name"},
		{CodeMissingRequired, `missing required field "contact"`, "contact"},
	}
	var got []errLine
	for _, e := range d.Errors() {
		got = append(got, errLine{e.Code, e.Message, e.Field})
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("errors:\n got %q\nwant %q", got, want)
	}
}

// Whole numbers in a rule's message are written in digits, as an agent
// sends them (an int64 is a string of digits): 2000000, not 2e+06.
func TestRuleMessagesWriteWholeNumbersInDigits(t *testing.T) {
	d := NewDecoder(Limits{})
	d.NumberIn("budget", 5000000, 2000000, 3)
	d.Minimum("limit", 1234567, 10000000)
	d.ExclusiveMaximum("ratio", 0.5, 2.5e-7)
	var got []string
	for _, e := range d.Errors() {
		got = append(got, e.Field+": "+e.Message)
	}
	want := []string{
		"budget: must be one of 2000000, 3, got 5000000",
		"limit: must be at least 10000000, got 1234567",
		"ratio: must be less than 2.5e-07, got 0.5",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("messages:\n got %q\nwant %q", got, want)
	}
}
