package impl

import (
	"reflect"
	"testing"
)

// An integer map key is read in its one decimal form: "07", "+7" and "-0"
// would be the same key as "7" and "0", so two entries of one map could
// land on one key and one of them be lost without a word.
func TestIntegerMapKeysAreRefusedInAnotherForm(t *testing.T) {
	d := NewDecoder(Limits{})
	d.Enter("tiers")
	d.KeyInt32("07")
	d.KeyInt64("+7")
	d.KeyInt64("-0")
	d.KeyUint32("007")
	d.KeyUint64("01")
	if n, ok := d.KeyInt32("0"); n != 0 || !ok {
		t.Errorf(`KeyInt32("0") = %v, %v`, n, ok)
	}
	want := []errLine{
		{CodeInvalidType, `map key "07" is not a valid int32: write the number as 7`, "tiers.07"},
		{CodeInvalidType, `map key "+7" is not a valid int64: write the number as 7`, "tiers.+7"},
		{CodeInvalidType, `map key "-0" is not a valid int64: write the number as 0`, "tiers.-0"},
		{CodeInvalidType, `map key "007" is not a valid uint32: write the number as 7`, "tiers.007"},
		{CodeInvalidType, `map key "01" is not a valid uint64: write the number as 1`, "tiers.01"},
	}
	if got := linesOf(d.Errors()); !reflect.DeepEqual(got, want) {
		t.Errorf("errors:\n got %q\nwant %q", got, want)
	}
}
