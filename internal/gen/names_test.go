package gen

import (
	"reflect"
	"testing"

	mcpwritev1 "github.com/mcpwrite/protoc-gen-mcpwrite/annotations/mcpwrite/v1"
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
		naming       mcpwritev1.ServiceRules_ToolNaming
		prefix, name string
		want         string
	}{
		{mcpwritev1.ServiceRules_SNAKE_CASE, "", "CreateElement", "create_element"},
		{mcpwritev1.ServiceRules_TOOL_NAMING_UNSPECIFIED, "", "CreateElement", "create_element"},
		{mcpwritev1.ServiceRules_SNAKE_CASE, "crm_", "AddContact", "crm_add_contact"},
		{mcpwritev1.ServiceRules_SNAKE_CASE, "", "validate_write", "validate_write"},
		{mcpwritev1.ServiceRules_SNAKE_CASE, "", "ImportCSVFile", "import_csv_file"},
		{mcpwritev1.ServiceRules_CAMEL_CASE, "", "CreateElement", "createElement"},
		{mcpwritev1.ServiceRules_CAMEL_CASE, "", "get_write_schema", "getWriteSchema"},
		{mcpwritev1.ServiceRules_CAMEL_CASE, "crm", "AddContact", "crmaddContact"},
		{mcpwritev1.ServiceRules_CAMEL_CASE, "", "ImportCSVFile", "importCsvFile"},
		{mcpwritev1.ServiceRules_AS_IS, "", "CreateElement", "CreateElement"},
		{mcpwritev1.ServiceRules_AS_IS, "crm_", "validate_write", "crm_validate_write"},
	}
	for _, tc := range cases {
		if got := toolName(tc.naming, tc.prefix, tc.name); got != tc.want {
			t.Errorf("toolName(%s, %q, %q) = %q, want %q", tc.naming, tc.prefix, tc.name, got, tc.want)
		}
	}
}

func TestAliasForRendersStrippedValueNames(t *testing.T) {
	cases := []struct {
		style    mcpwritev1.EnumAlias_Style
		stripped string
		want     string
	}{
		{mcpwritev1.EnumAlias_PASCAL, "APPLICATION_COMPONENT", "ApplicationComponent"},
		{mcpwritev1.EnumAlias_STYLE_UNSPECIFIED, "APPLICATION_COMPONENT", "ApplicationComponent"},
		{mcpwritev1.EnumAlias_SNAKE, "APPLICATION_COMPONENT", "application_component"},
		{mcpwritev1.EnumAlias_KEBAB, "APPLICATION_COMPONENT", "application-component"},
		{mcpwritev1.EnumAlias_PASCAL, "NODE", "Node"},
		{mcpwritev1.EnumAlias_SNAKE, "NODE", "node"},
		{mcpwritev1.EnumAlias_PASCAL, "TIER_2", "Tier2"},
		{mcpwritev1.EnumAlias_KEBAB, "TIER_2", "tier-2"},
		{mcpwritev1.EnumAlias_PASCAL, "IPV6_ADDRESS", "Ipv6Address"},
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
