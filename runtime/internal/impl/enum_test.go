package impl

import (
	"reflect"
	"testing"
)

// archimateTable is the ArchiMate element types as a generated service
// would declare them.
func archimateTable() *EnumTable {
	return NewEnumTable("archimate.v1.ElementType", []EnumValue{
		{Number: 0, Name: "ELEMENT_TYPE_UNSPECIFIED"},
		{Number: 1, Name: "ELEMENT_TYPE_BUSINESS_ACTOR", Alias: "BusinessActor", Synonyms: []string{"Actor"}},
		{Number: 2, Name: "ELEMENT_TYPE_BUSINESS_ROLE", Alias: "BusinessRole"},
		{Number: 3, Name: "ELEMENT_TYPE_BUSINESS_PROCESS", Alias: "BusinessProcess", Synonyms: []string{"Process", "Workflow"}},
		{Number: 4, Name: "ELEMENT_TYPE_BUSINESS_SERVICE", Alias: "BusinessService"},
		{Number: 5, Name: "ELEMENT_TYPE_APPLICATION_COMPONENT", Alias: "ApplicationComponent", Synonyms: []string{"Microservice"}},
		{Number: 6, Name: "ELEMENT_TYPE_APPLICATION_SERVICE", Alias: "ApplicationService"},
		{Number: 7, Name: "ELEMENT_TYPE_APPLICATION_INTERFACE", Alias: "ApplicationInterface"},
		{Number: 8, Name: "ELEMENT_TYPE_DATA_OBJECT", Alias: "DataObject"},
		{Number: 9, Name: "ELEMENT_TYPE_NODE", Alias: "Node"},
		{Number: 10, Name: "ELEMENT_TYPE_CAPABILITY", Alias: "Capability"},
		{Number: 11, Name: "ELEMENT_TYPE_TECHNOLOGY_SERVICE"}, // alias from the name
	}, "Call list_element_types for descriptions.")
}

func TestEnumLookupAcceptsWhatAgentsType(t *testing.T) {
	table := archimateTable()
	tests := []struct {
		in     string
		want   int32
		wantOK bool
	}{
		{"ApplicationComponent", 5, true},
		{"APPLICATION_COMPONENT", 5, true},
		{"ELEMENT_TYPE_APPLICATION_COMPONENT", 5, true},
		{"application-component", 5, true},
		{"application component", 5, true},
		{"applicationcomponent", 5, true},
		{"Microservice", 5, true},
		{"microservice", 5, true},
		{"Workflow", 3, true},
		{"TechnologyService", 11, true},
		{"TECHNOLOGY_SERVICE", 11, true},
		{"ELEMENT_TYPE_UNSPECIFIED", 0, false},
		{"Unspecified", 0, false},
		{"AppComponent", 0, false},
		{"", 0, false},
		{"5", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, ok := table.Lookup(tt.in)
			if got != tt.want || ok != tt.wantOK {
				t.Errorf("Lookup(%q) = (%d, %v), want (%d, %v)", tt.in, got, ok, tt.want, tt.wantOK)
			}
		})
	}
}

func TestEnumTableOffersAliasesOnly(t *testing.T) {
	table := archimateTable()
	want := []string{"BusinessActor", "BusinessRole", "BusinessProcess", "BusinessService", "ApplicationComponent",
		"ApplicationService", "ApplicationInterface", "DataObject", "Node", "Capability", "TechnologyService"}
	if got := table.Aliases(); !reflect.DeepEqual(got, want) {
		t.Errorf("Aliases = %q", got)
	}
	table.Aliases()[0] = "mutated"
	if table.Alias(1) != "BusinessActor" || table.Alias(11) != "TechnologyService" || table.Alias(0) != "" || table.Alias(99) != "" {
		t.Errorf("Alias: %q %q %q", table.Alias(1), table.Alias(11), table.Alias(0))
	}
	if len(table.Values) != 11 || table.Values[10].Alias != "TechnologyService" {
		t.Errorf("Values = %+v", table.Values)
	}
}

func TestEnumLookupOrderResolvesCollisions(t *testing.T) {
	table := NewEnumTable("x.v1.Step", []EnumValue{
		{Number: 1, Name: "STEP_PROCESS", Alias: "Run"},
		{Number: 2, Name: "STEP_OTHER", Alias: "Other", Synonyms: []string{"Process", "RUN"}},
	}, "")
	tests := []struct {
		in   string
		want int32
	}{
		{"RUN", 2},          // exact synonym beats normalised alias
		{"run", 1},          // normalised alias beats normalised synonym
		{"process", 2},      // normalised synonym beats normalised name
		{"STEP_PROCESS", 1}, // proto name
	}
	for _, tt := range tests {
		if n, ok := table.Lookup(tt.in); !ok || n != tt.want {
			t.Errorf("Lookup(%q) = %d, want %d", tt.in, n, tt.want)
		}
	}
}

func TestEnumPrefixFallsBackToCommonPrefix(t *testing.T) {
	table := NewEnumTable("legacy.Color", []EnumValue{
		{Number: 0, Name: "CLR_UNSPECIFIED"},
		{Number: 1, Name: "CLR_DARK_RED"},
		{Number: 2, Name: "CLR_BLUE"},
	}, "")
	if got := table.Aliases(); !reflect.DeepEqual(got, []string{"DarkRed", "Blue"}) {
		t.Errorf("Aliases = %q", got)
	}
	if n, ok := table.Lookup("dark_red"); !ok || n != 1 {
		t.Errorf("Lookup(dark_red) = %d %v", n, ok)
	}
}

func TestDecoderEnumSuggestsAliases(t *testing.T) {
	table := archimateTable()
	d := NewDecoder(Limits{})
	if n, ok := d.Enum(valueOf(t, `"application_component"`), "type", table); !ok || n != 5 {
		t.Fatalf("Enum = %d %v", n, ok)
	}
	d.Enum(valueOf(t, `"AppComponent"`), "type", table)
	d.Enum(valueOf(t, `5`), "type", table)
	d.Enum(valueOf(t, `"ELEMENT_TYPE_UNSPECIFIED"`), "kind", table)
	if n, ok := d.Enum(valueOf(t, `null`), "type", table); ok || n != 0 {
		t.Errorf("null read as %d", n)
	}
	es := d.Errors()
	if len(es) != 3 {
		t.Fatalf("errors = %q", linesOf(es))
	}
	first := es[0]
	if first.Code != CodeInvalidEnumValue || first.Field != "type" ||
		first.Message != `invalid value "AppCom…" for type; did you mean "ApplicationComponent"?` {
		t.Errorf("entry = %+v", first)
	}
	if dym := first.Suggestions.DidYouMean; len(dym) < 2 || dym[0] != "ApplicationComponent" || dym[1] != "ApplicationService" {
		t.Errorf("did_you_mean = %q", dym)
	}
	if !reflect.DeepEqual(first.Suggestions.ValidValues, table.Aliases()) || first.Suggestions.Hint != "Call list_element_types for descriptions." {
		t.Errorf("suggestions = %+v", first.Suggestions)
	}
	if es[1].Code != CodeInvalidType || es[1].Message != "expected string, got number" || !reflect.DeepEqual(es[1].Suggestions.ValidValues, table.Aliases()) {
		t.Errorf("number entry = %+v", es[1])
	}
	if es[2].Code != CodeInvalidEnumValue || es[2].Field != "kind" {
		t.Errorf("unspecified entry = %+v", es[2])
	}
}

func TestEnumValidValuesAreBounded(t *testing.T) {
	var vals []EnumValue
	for i := 1; i <= 30; i++ {
		vals = append(vals, EnumValue{Number: int32(i), Name: "SIZE_" + string(rune('A'+i%26)) + string(rune('A'+i/26))})
	}
	table := NewEnumTable("x.Size", vals, "")
	d := NewDecoder(Limits{})
	d.Enum(valueOf(t, `"zzzzzzzz"`), "size", table)
	s := d.Errors()[0].Suggestions
	if len(s.ValidValues) != 25 || s.Hint != "showing 25 of 30 values" {
		t.Errorf("suggestions = %d values, hint %q", len(s.ValidValues), s.Hint)
	}
}

func TestNilEnumTableIsSafe(t *testing.T) {
	var table *EnumTable
	if _, ok := table.Lookup("x"); ok || table.Alias(1) != "" || table.Aliases() != nil {
		t.Error("nil table matched")
	}
	d := NewDecoder(Limits{})
	d.Enum(valueOf(t, `"x"`), "type", nil)
	if got := linesOf(d.Errors()); !reflect.DeepEqual(got, []errLine{{CodeInternal, "no enum table for type", "type"}}) {
		t.Errorf("errors = %q", got)
	}
}

func TestDecoderEnumInAListNamesTheElement(t *testing.T) {
	table := archimateTable()
	d := NewDecoder(Limits{})
	d.Enter("types")
	d.EnterIndex(2)
	d.Enum(valueOf(t, `"AppComponent"`), "", table)
	d.Leave()
	d.Leave()
	es := d.Errors()
	if len(es) != 1 {
		t.Fatalf("errors = %q", linesOf(es))
	}
	if es[0].Field != "types[2]" || es[0].Message != `invalid value "AppCom…" for types[2]; did you mean "ApplicationComponent"?` {
		t.Errorf("entry = %+v", es[0])
	}
}
