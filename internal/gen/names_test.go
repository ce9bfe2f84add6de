package gen

import (
	"reflect"
	"testing"

	"github.com/mcpwrite/protoc-gen-mcpwrite/internal/naming"
)

func TestWordsSplitsEveryNamingStyle(t *testing.T) {
	cases := []struct {
		in   string
		want []string
	}{
		{"CreateElement", []string{"create", "element"}},
		{"createElement", []string{"create", "element"}},
		{"create_element", []string{"create", "element"}},
		{"create-element", []string{"create", "element"}},
		{"APPLICATION_COMPONENT", []string{"application", "component"}},
		{"HTTPServer", []string{"http", "server"}},
		{"GetHTTPServerURL", []string{"get", "http", "server", "url"}},
		{"Base64Encode", []string{"base64", "encode"}},
		{"v2Api", []string{"v2", "api"}},
		{"archimate.v1.Layer", []string{"archimate", "v1", "layer"}},
		{"two  spaces", []string{"two", "spaces"}},
		{"__leading_and_trailing__", []string{"leading", "and", "trailing"}},
		{"A", []string{"a"}},
		{"", nil},
	}
	for _, tc := range cases {
		if got := naming.Words(tc.in); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("naming.Words(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestToolNameAppliesTheServiceNaming(t *testing.T) {
	cases := []struct {
		naming       toolNaming
		prefix, name string
		want         string
	}{
		{namingSnake, "", "CreateElement", "create_element"},
		{namingUnset, "", "CreateElement", "create_element"},
		{namingSnake, "crm_", "AddContact", "crm_add_contact"},
		{namingSnake, "", "validate_write", "validate_write"},
		{namingSnake, "", "ImportCSVFile", "import_csv_file"},
		{namingCamel, "", "CreateElement", "createElement"},
		{namingCamel, "", "get_write_schema", "getWriteSchema"},
		{namingCamel, "crm", "AddContact", "crmaddContact"},
		{namingCamel, "", "ImportCSVFile", "importCsvFile"},
		{namingAsIs, "", "CreateElement", "CreateElement"},
		{namingAsIs, "crm_", "validate_write", "crm_validate_write"},
	}
	for _, tc := range cases {
		if got := toolName(tc.naming, tc.prefix, tc.name); got != tc.want {
			t.Errorf("toolName(%s, %q, %q) = %q, want %q", tc.naming, tc.prefix, tc.name, got, tc.want)
		}
	}
}

func TestAliasForRendersStrippedValueNames(t *testing.T) {
	cases := []struct {
		style    aliasStyle
		stripped string
		want     string
	}{
		{stylePascal, "APPLICATION_COMPONENT", "ApplicationComponent"},
		{styleUnset, "APPLICATION_COMPONENT", "ApplicationComponent"},
		{styleSnake, "APPLICATION_COMPONENT", "application_component"},
		{styleKebab, "APPLICATION_COMPONENT", "application-component"},
		{stylePascal, "NODE", "Node"},
		{styleSnake, "NODE", "node"},
		{stylePascal, "TIER_2", "Tier2"},
		{styleKebab, "TIER_2", "tier-2"},
		{stylePascal, "IPV6_ADDRESS", "Ipv6Address"},
	}
	for _, tc := range cases {
		if got := aliasFor(tc.style, tc.stripped); got != tc.want {
			t.Errorf("aliasFor(%s, %q) = %q, want %q", tc.style, tc.stripped, got, tc.want)
		}
	}
}

func TestPluralMakesDiscoveryNounsPlural(t *testing.T) {
	cases := map[string]string{
		"ElementType":  "ElementTypes",
		"Category":     "Categories",
		"Priority":     "Priorities",
		"Key":          "Keys",
		"Day":          "Days",
		"Status":       "Statuses",
		"Box":          "Boxes",
		"Match":        "Matches",
		"Wish":         "Wishes",
		"Relationship": "Relationships",
		"Layer":        "Layers",
	}
	for in, want := range cases {
		if got := plural(in); got != want {
			t.Errorf("plural(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestEnumPrefixIsTheConventionalValuePrefix(t *testing.T) {
	cases := map[string]string{
		"ElementType":      "ELEMENT_TYPE_",
		"Layer":            "LAYER_",
		"HTTPMethod":       "HTTP_METHOD_",
		"RelationshipType": "RELATIONSHIP_TYPE_",
		"V2Status":         "V2_STATUS_",
	}
	for in, want := range cases {
		if got := naming.EnumPrefix(in); got != want {
			t.Errorf("naming.EnumPrefix(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestResolverMethodIsResolvePlusPascalName(t *testing.T) {
	cases := map[string]string{
		"active_model":    "ResolveActiveModel",
		"oncall_team":     "ResolveOncallTeam",
		"current_version": "ResolveCurrentVersion",
		"v2_index":        "ResolveV2Index",
	}
	for in, want := range cases {
		if got := resolverMethod(in); got != want {
			t.Errorf("resolverMethod(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestNameCheckers(t *testing.T) {
	snake := map[string]bool{
		"active_model": true, "a": true, "model2": true, "v2_index": true,
		"": false, "ActiveModel": false, "active__model": false, "active_model_": false,
		"_active": false, "2model": false, "active-model": false,
	}
	for in, want := range snake {
		if got := isSnakeName(in); got != want {
			t.Errorf("isSnakeName(%q) = %v, want %v", in, got, want)
		}
	}
	long := "a123456789012345678901234567890123456789012345678901234567890123"
	tool := map[string]bool{
		"create_element": true, "createElement": true, "crm-add": true, long[:64]: true,
		"": false, long + "4": false, "create element": false, "crm.add": false, "créer": false,
	}
	for in, want := range tool {
		if got := isToolName(in); got != want {
			t.Errorf("isToolName(%q) = %v, want %v", in, got, want)
		}
	}
}
