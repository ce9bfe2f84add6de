package naming

import (
	"reflect"
	"testing"
)

func TestVocabulary(t *testing.T) {
	if got, want := Words("HTTPServer2Config_v2-x.y"), []string{"http", "server2", "config", "v2", "x", "y"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Words = %q, want %q", got, want)
	}
	for in, want := range map[string]string{"ElementType": "ELEMENT_TYPE_", "HTTPMethod": "HTTP_METHOD_", "OAuth2Flow": "O_AUTH2_FLOW_"} {
		if got := EnumPrefix(in); got != want {
			t.Errorf("EnumPrefix(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]string{"APPLICATION_COMPONENT": "ApplicationComponent", "red": "Red", "fooBar": "FooBar"} {
		if got := PascalOf(in); got != want {
			t.Errorf("PascalOf(%q) = %q, want %q", in, got, want)
		}
	}
	ws := []string{"create", "element"}
	if got := []string{Pascal(ws), Camel(ws), Snake(ws), Kebab(ws)}; !reflect.DeepEqual(got, []string{"CreateElement", "createElement", "create_element", "create-element"}) {
		t.Errorf("casings = %q", got)
	}
	if got := Normalize("Application-Component_2 é"); got != "applicationcomponent2é" {
		t.Errorf("Normalize = %q", got)
	}
}
