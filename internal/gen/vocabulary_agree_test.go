package gen

import (
	"reflect"
	"testing"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcpwriteimpl"
)

// The plugin writes an alias for every enum value into the generated
// table; the runtime derives one for a table built without them. Both come
// from internal/naming, so they agree.
func TestPluginAndRuntimeDeriveTheSameAliases(t *testing.T) {
	for _, tc := range []struct {
		enum   string
		values []string
		want   []string
	}{
		{"ElementType", []string{"ELEMENT_TYPE_UNSPECIFIED", "ELEMENT_TYPE_APPLICATION_COMPONENT", "ELEMENT_TYPE_NODE", "ELEMENT_TYPE_BUSINESS_PROCESS"},
			[]string{"ApplicationComponent", "Node", "BusinessProcess"}},
		{"HTTPMethod", []string{"HTTP_METHOD_GET", "HTTP_METHOD_POST", "HTTP_METHOD_PATCH"}, []string{"Get", "Post", "Patch"}},
		{"Severity", []string{"SEVERITY_SEV1", "SEVERITY_SEV2", "SEVERITY_HTTP2_ERROR"}, []string{"Sev1", "Sev2", "Http2Error"}},
		{"OAuth2Flow", []string{"O_AUTH2_FLOW_CLIENT_CREDENTIALS", "O_AUTH2_FLOW_DEVICE_CODE"}, []string{"ClientCredentials", "DeviceCode"}},
		{"Status", []string{"STATUS_IN_PROGRESS", "STATUS_DONE"}, []string{"InProgress", "Done"}},
		{"Color", []string{"RED", "GREEN", "DARK_BLUE"}, []string{"Red", "Green", "DarkBlue"}},
		{"Shade", []string{"light", "darkBlue"}, []string{"Light", "DarkBlue"}},
		{"Phase", []string{"PHASE_ALPHA"}, []string{"Alpha"}},
	} {
		var plugin []string
		values := make([]mcpwriteimpl.EnumValue, 0, len(tc.values))
		for i, v := range tc.values {
			values = append(values, mcpwriteimpl.EnumValue{Number: int32(i), Name: v})
			if v == "UNSPECIFIED" || len(v) > 12 && v[len(v)-12:] == "_UNSPECIFIED" {
				continue
			}
			plugin = append(plugin, valueAlias(stylePascal, tc.enum, v))
		}
		got := mcpwriteimpl.NewEnumTable("pkg.v1."+tc.enum, values, "").Aliases()
		if !reflect.DeepEqual(got, plugin) {
			t.Errorf("%s: runtime aliases %q, plugin aliases %q", tc.enum, got, plugin)
		}
		if !reflect.DeepEqual(plugin, tc.want) {
			t.Errorf("%s: aliases %q, want %q", tc.enum, plugin, tc.want)
		}
	}
}
