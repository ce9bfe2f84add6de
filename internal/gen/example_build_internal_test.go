package gen

import (
	"maps"
	"slices"
	"testing"
)

// The example check reads the wrappers and well-known types the generated
// decoder reads, each by the same reader.
func TestExampleBuildReadsTheTypesTheDecoderReads(t *testing.T) {
	var wrappers []string
	for name, ctor := range wrapperCtor {
		if ctor[0] != "" {
			wrappers = append(wrappers, string(name))
		}
	}
	var mine []string
	for name := range wrapperTypes {
		mine = append(mine, string(name))
	}
	slices.Sort(wrappers)
	slices.Sort(mine)
	if !slices.Equal(wrappers, mine) {
		t.Errorf("wrappers: decoder %v, example check %v", wrappers, mine)
	}
	if !maps.Equal(wktReader, textTypes) {
		t.Errorf("well-known types: decoder %v, example check %v", wktReader, textTypes)
	}
}
