package gen

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
)

// portableName answers as portableNameExp does, on the edges (empty, 64
// and 65 characters, non-ASCII letters) and on random strings.
func TestPortableNameMatchesItsExpression(t *testing.T) {
	re := regexp.MustCompile(portableNameExp)
	cases := []string{"", "a", "A-z_0", strings.Repeat("x", 64), strings.Repeat("x", 65), "é", "a.b", "a b", "a\n", "\na", "名前", strings.Repeat("é", 32)}
	r := rand.New(rand.NewPCG(1, 2))
	alphabet := []rune("aZ09_-. é\n/")
	for range 5000 {
		n := r.IntN(70)
		var b strings.Builder
		for range n {
			b.WriteRune(alphabet[r.IntN(len(alphabet))])
		}
		cases = append(cases, b.String())
	}
	matched := 0
	for _, s := range cases {
		want := re.MatchString(s)
		if got := portableName(s); got != want {
			t.Errorf("portableName(%q) = %v, the expression says %v", s, got, want)
		}
		if want {
			matched++
		}
	}
	if matched < 10 {
		t.Errorf("only %d strings match: the check tested too few names", matched)
	}
}
