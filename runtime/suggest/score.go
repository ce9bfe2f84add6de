package suggest

import (
	"sort"
	"strings"
)

// score is the best of the rules below for one input/candidate spelling pair.
func score(in, c *form) float64 {
	if c.norm == "" {
		return 0
	}
	if in.norm == c.norm {
		return scoreExact
	}
	if pluralEqual(in.norm, c.norm) {
		return scorePluralExact
	}
	best := tokenScore(in, c)
	if s := humpScore(in.normR, c); s > best {
		best = s
	}
	if s := containScore(in, c); s > best {
		best = s
	}
	if s := editScore(in.normR, c.normR); s > best {
		best = s
	}
	return best
}

// tokenScore aligns input words with candidate words (best pairs first) and returns a weighted
// Dice coefficient: matched weight on both sides over the total weight of both sides.
func tokenScore(in, c *form) float64 {
	n, m := len(in.toks), len(c.toks)
	if n == 0 || m == 0 {
		return 0
	}
	type pair struct {
		i, j int
		w    float64
	}
	pairs := make([]pair, 0, n*m)
	for i := range in.toks {
		for j := range c.toks {
			if w := tokenSim(&in.toks[i], &c.toks[j]); w > 0 {
				pairs = append(pairs, pair{i, j, w})
			}
		}
	}
	if len(pairs) == 0 {
		return 0
	}
	sort.SliceStable(pairs, func(a, b int) bool { return pairs[a].w > pairs[b].w })
	var usedI, usedJ uint64
	var sum float64
	lastJ, inOrder := -1, true
	matchedJ := make([]int, n)
	for i := range matchedJ {
		matchedJ[i] = -1
	}
	for _, p := range pairs {
		if p.i >= 64 || p.j >= 64 || usedI&(1<<p.i) != 0 || usedJ&(1<<p.j) != 0 {
			continue
		}
		usedI |= 1 << p.i
		usedJ |= 1 << p.j
		matchedJ[p.i] = p.j
		sum += p.w * (in.toks[p.i].w + c.toks[p.j].w)
	}
	for _, j := range matchedJ {
		if j < 0 {
			continue
		}
		if j < lastJ {
			inOrder = false
		}
		lastJ = j
	}
	s := sum / (in.totalW + c.totalW)
	if !inOrder {
		s *= orderPenalty
	}
	return s
}

// tokenSim rates how plausibly input word a stands for candidate word b, 0 when it does not.
func tokenSim(a, b *token) float64 {
	if a.s == b.s {
		return tokExact
	}
	if pluralEqual(a.s, b.s) || (len(a.s) > 3 && singular(a.s) == singular(b.s)) {
		// A regular plural of an irregular noun ("entitys") is still it.
		return tokPlural
	}
	best := 0.0
	up := func(v float64) {
		if v > best {
			best = v
		}
	}
	if synonyms(a.s, b.s) {
		up(tokSynonym)
	}
	if sameStem(a.stems, b.stems) {
		up(tokStem)
	}
	la, lb := len(a.r), len(b.r)
	if la >= 2 && la < lb && (hasPrefixRunes(b.r, a.r) || hasPrefixRunes(b.r, a.sing)) {
		up(tokPrefix)
	}
	if lb >= 2 && lb < la && hasPrefixRunes(a.r, b.r) {
		up(tokRevPrefix)
	}
	if la >= 3 && la < lb && isAbbrev(a.r, b.r) {
		up(tokSubseq)
	}
	if lb >= 3 && lb < la && isAbbrev(b.r, a.r) {
		up(tokSubseq)
	}
	if best < tokPrefix {
		minL := min(la, lb)
		if d := osa(a.r, b.r, allowance(minL)); d > 0 && d <= allowance(minL) {
			up(0.95 - 0.5*float64(d)/float64(max(la, lb)))
		}
	}
	return best
}

// humpScore matches the glued input against prefixes of the candidate words in order, as IDEs
// match camel humps: "appcomp" and "po" (PurchaseOrder) match. It takes the reading with the fewest
// pieces (so "create" is not split into "creat"+"e" to claim two words); skipped words lower the
// score by their weight, so skipping "of" in CourseOfAction costs little.
func humpScore(s []rune, c *form) float64 {
	m := len(c.toks)
	if len(s) < 2 || m == 0 || m > 16 || len(s) > 64 || c.totalW == 0 {
		return 0
	}
	type reading struct {
		pieces int8    // -1: impossible
		weight float64 // weight of the words used
	}
	better := func(a, b reading) bool {
		if a.pieces < 0 || b.pieces < 0 {
			return a.pieces >= 0
		}
		return a.pieces < b.pieces || (a.pieces == b.pieces && a.weight > b.weight)
	}
	memo := make([]reading, (len(s)+1)*(m+1))
	done := make([]bool, len(memo))
	var solve func(i, j int) reading
	solve = func(i, j int) reading {
		if i == len(s) {
			return reading{}
		}
		if j == m {
			return reading{pieces: -1}
		}
		k := i*(m+1) + j
		if done[k] {
			return memo[k]
		}
		best := solve(i, j+1)
		t := c.toks[j].r
		for l := 1; l <= len(t) && i+l <= len(s) && t[l-1] == s[i+l-1]; l++ {
			if r := solve(i+l, j+1); r.pieces >= 0 {
				if cand := (reading{r.pieces + 1, r.weight + c.toks[j].w}); better(cand, best) {
					best = cand
				}
			}
		}
		memo[k], done[k] = best, true
		return best
	}
	r := solve(0, 0)
	if r.pieces <= 0 {
		return 0
	}
	return 0.8*r.weight/c.totalW + 0.1*float64(len(s))/float64(len(c.normR))
}

// containScore handles glued inputs that embed the whole candidate: "elementtypenode" holds "node".
func containScore(in, c *form) float64 {
	if len(c.normR) < 4 || len(in.normR) <= len(c.normR) || !strings.Contains(in.norm, c.norm) {
		return 0
	}
	return 0.6 + 0.3*float64(len(c.normR))/float64(len(in.normR))
}

// editScore is 1 - d/len for the Damerau-Levenshtein distance d of the normalised strings, when d
// stays within the allowance for the shorter string.
func editScore(a, b []rune) float64 {
	k := allowance(min(len(a), len(b)))
	if k == 0 {
		return 0
	}
	d := osa(a, b, k)
	if d == 0 || d > k {
		return 0
	}
	return 1 - float64(d)/float64(max(len(a), len(b)))
}

// allowance is how many edits a word of n runes may carry and still be recognised.
func allowance(n int) int {
	switch {
	case n < 4:
		return 0
	case n <= 7:
		return 1
	case n <= 11:
		return 2
	case n <= 15:
		return 3
	default:
		return n / 5
	}
}

// osa is the optimal-string-alignment Damerau-Levenshtein distance (insert, delete, substitute,
// swap adjacent); it returns limit+1 as soon as the distance must exceed limit.
func osa(a, b []rune, limit int) int {
	la, lb := len(a), len(b)
	if abs(la-lb) > limit {
		return limit + 1
	}
	var buf [3 * 48]int
	var rows []int
	if 3*(lb+1) <= len(buf) {
		rows = buf[:3*(lb+1)]
	} else {
		rows = make([]int, 3*(lb+1))
	}
	prev2, prev, cur := rows[:lb+1], rows[lb+1:2*(lb+1)], rows[2*(lb+1):]
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= la; i++ {
		cur[0] = i
		rowMin := cur[0]
		for j := 1; j <= lb; j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			v := min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				v = min(v, prev2[j-2]+1)
			}
			cur[j] = v
			rowMin = min(rowMin, v)
		}
		if rowMin > limit {
			return limit + 1
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[lb]
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

func hasPrefixRunes(s, p []rune) bool {
	if len(p) == 0 || len(p) > len(s) {
		return false
	}
	for i := range p {
		if s[i] != p[i] {
			return false
		}
	}
	return true
}

// isAbbrev reports whether a is written from b's letters in order, starting with b's first letter.
func isAbbrev(a, b []rune) bool {
	if len(a) == 0 || len(b) == 0 || a[0] != b[0] {
		return false
	}
	i := 1
	for j := 1; j < len(b) && i < len(a); j++ {
		if a[i] == b[j] {
			i++
		}
	}
	return i == len(a)
}

// Score levels of the individual rules, documented in doc.go.
const (
	scoreExact       = 1.0  // equal after Normalize
	scorePluralExact = 0.97 // equal after Normalize up to a plural ending
	tokExact         = 1.0
	tokPlural        = 0.95
	tokSynonym       = 0.85 // built-in abbreviation/verb dictionary
	tokStem          = 0.85 // same stem after stripping an inflection (serves ~ serving)
	tokPrefix        = 0.8  // input token abbreviates the candidate token (app ~ application)
	tokRevPrefix     = 0.75 // candidate token abbreviates the input token (org ~ organization)
	tokSubseq        = 0.7  // consonant-style abbreviation (svc ~ service, qty ~ quantity)
	orderPenalty     = 0.9  // tokens matched out of order (task_create vs createTask)
)
