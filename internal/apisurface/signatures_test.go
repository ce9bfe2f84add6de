package apisurface

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// signaturesOf writes src as the only file of a package and lists it.
func signaturesOf(t *testing.T, src string) []string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "p.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := Signatures(dir)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

const sigBase = `package p

import "io"

const (
	A     = 1
	B int = 2
	c     = 3
)

var V, w io.Reader

type T struct {
	X, y int
	io.Reader
	Z func(string) error
}

func NewT(n int) *T { return nil }

func (T) M(a, b string) int { return 0 }
func (*T) P()               {}
func (T) hidden()           {}

type Alias = T

type Fn func(*T)

type Set[K comparable] struct{ Items []K }

type I interface {
	Call(x int) error
	private()
}

type hidden struct{ Visible int }
`

func TestSignaturesListFieldsAndSignatures(t *testing.T) {
	want := []string{
		"A const = 1",
		"Alias = T",
		"B const int = 2",
		"Fn func(*T)",
		"I interface (has unexported methods)",
		"I.Call func(x int) error",
		"NewT func(n int) *T",
		"Set[K comparable] struct",
		"Set.Items []K",
		"T struct (has unexported fields)",
		"T.M func(a, b string) int",
		"(*T).P func()",
		"T.io.Reader embedded",
		"T.X int",
		"T.Z func(string) error",
		"V var io.Reader",
	}
	got := signaturesOf(t, sigBase)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("Signatures =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// A pinned Signatures list fails on what a pinned name list misses: a new
// exported field, a changed function or method signature, a changed
// constant value.
func TestSignaturesDetectFieldAndSignatureChanges(t *testing.T) {
	base := signaturesOf(t, sigBase)
	cases := []struct {
		name, old, new, diff string
	}{
		{"new exported field", "X, y int", "X, y int\n\tW bool",
			"  + T.W bool (added)\n"},
		{"changed function signature", "func NewT(n int) *T", "func NewT(n int64) *T",
			"  - NewT func(n int) *T (removed)\n  + NewT func(n int64) *T (added)\n"},
		{"changed method result", "func (T) M(a, b string) int", "func (T) M(a, b string) (int, error)",
			"  - T.M func(a, b string) int (removed)\n  + T.M func(a, b string) (int, error) (added)\n"},
		{"value receiver made pointer", "func (T) M(", "func (*T) M(",
			"  - T.M func(a, b string) int (removed)\n  + (*T).M func(a, b string) int (added)\n"},
		{"changed field type", "Z func(string) error", "Z func(string)",
			"  - T.Z func(string) error (removed)\n  + T.Z func(string) (added)\n"},
		{"changed constant value", "A     = 1", "A     = 4",
			"  - A const = 1 (removed)\n  + A const = 4 (added)\n"},
		{"interface sealed", "Call(x int) error\n\tprivate()", "Call(x int) error",
			"  - I interface (has unexported methods) (removed)\n  + I interface (added)\n"},
		{"changed interface method", "Call(x int) error", "Call(x int, y int) error",
			"  - I.Call func(x int) error (removed)\n  + I.Call func(x int, y int) error (added)\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := strings.Replace(sigBase, c.old, c.new, 1)
			if src == sigBase {
				t.Fatalf("%q not in the base source", c.old)
			}
			got := signaturesOf(t, src)
			if d := Diff(got, base); d != c.diff {
				t.Fatalf("Diff = %q, want %q", d, c.diff)
			}
			// The name list alone sees none of these changes.
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "p.go"), []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			names, err := Exported(dir)
			if err != nil {
				t.Fatal(err)
			}
			want := "A Alias B Fn I NewT Set T T.M T.P V"
			if strings.Join(names, " ") != want {
				t.Fatalf("Exported = %q, want %q", strings.Join(names, " "), want)
			}
		})
	}
}

// An alias of a type of another package of the same module (as
// runtime.ErrorEntry = impl.ErrorEntry) lists the target's fields and
// methods under the alias, and a re-exported constant its value there: a
// field added to the target, or a value changed, changes the alias's lines.
func TestSignaturesFollowAliasesIntoTheModule(t *testing.T) {
	const inner = "package impl\n\nconst Code = \"NOT_FOUND\"\n\ntype Entry struct {\n\tCode string\n\tn    int\n}\n\nfunc (*Entry) Error() string { return \"\" }\n"
	const outer = "package p\n\nimport \"example.com/m/internal/impl\"\n\ntype Entry = impl.Entry\n\nconst Code = impl.Code\n"
	write := func(t *testing.T, innerSrc string) []string {
		t.Helper()
		root := t.TempDir()
		for name, src := range map[string]string{
			"go.mod":                "module example.com/m\n\ngo 1.22\n",
			"p/p.go":                outer,
			"internal/impl/impl.go": innerSrc,
		} {
			path := filepath.Join(root, filepath.FromSlash(name))
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		got, err := Signatures(filepath.Join(root, "p"))
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	base := write(t, inner)
	want := []string{
		`Code const = impl.Code ("NOT_FOUND")`,
		"Entry = impl.Entry struct (has unexported fields)",
		"Entry.Code string",
		"(*Entry).Error func() string",
	}
	if strings.Join(base, "\n") != strings.Join(want, "\n") {
		t.Fatalf("Signatures =\n%s\nwant\n%s", strings.Join(base, "\n"), strings.Join(want, "\n"))
	}
	changed := write(t, strings.Replace(strings.Replace(inner, "\tn    int", "\tN    int", 1), `"NOT_FOUND"`, `"MISSING"`, 1))
	wantDiff := "  - Code const = impl.Code (\"NOT_FOUND\") (removed)\n  - Entry = impl.Entry struct (has unexported fields) (removed)\n" +
		"  + Code const = impl.Code (\"MISSING\") (added)\n  + Entry = impl.Entry struct (added)\n  + Entry.N int (added)\n"
	if d := Diff(changed, base); d != wantDiff {
		t.Fatalf("Diff =\n%s\nwant\n%s", d, wantDiff)
	}
}
