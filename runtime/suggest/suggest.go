package suggest

import (
	"math"
	"sort"
)

// Candidate is one valid name; Also lists synonyms that also match (the Name is what is suggested).
type Candidate struct {
	Name string
	Also []string
}

// Match is one suggestion with its plausibility score in (0, 1]; 1 means equal after Normalize.
type Match struct {
	Name  string
	Score float64
}

// Threshold is the lowest score reported as plausible; below it a guess is noise.
const Threshold = 0.35

// MaxInputLen bounds the work an untrusted input can cause: longer inputs (in bytes) are no
// identifier anyone meant, and get no suggestion.
const MaxInputLen = 256

// Closest returns up to max names the input plausibly meant, best first; nil when nothing is plausible.
func Closest(input string, names []string, max int) []string {
	cands := make([]Candidate, len(names))
	for i, n := range names {
		cands[i] = Candidate{Name: n}
	}
	return ClosestCandidates(input, cands, max)
}

// ClosestCandidates is Closest with synonyms.
func ClosestCandidates(input string, cands []Candidate, max int) []string {
	if max <= 0 || len(cands) == 0 {
		return nil
	}
	return NewIndex(cands).Closest(input, max)
}

// Index holds candidates prepared once, for callers that look up many inputs against one vocabulary.
type Index struct {
	entries []entry
}

type entry struct {
	name  string
	forms []form
}

// NewIndex prepares candidates for repeated lookups; duplicate names keep their first position.
func NewIndex(cands []Candidate) *Index {
	x := &Index{entries: make([]entry, 0, len(cands))}
	seen := make(map[string]int, len(cands))
	for _, c := range cands {
		if c.Name == "" {
			continue
		}
		i, ok := seen[c.Name]
		if !ok {
			i = len(x.entries)
			seen[c.Name] = i
			x.entries = append(x.entries, entry{name: c.Name, forms: []form{newForm(c.Name)}})
		}
		for _, a := range c.Also {
			if f := newForm(a); f.norm != "" {
				x.entries[i].forms = append(x.entries[i].forms, f)
			}
		}
	}
	return x
}

// Closest returns up to max candidate names the input plausibly meant, best first.
func (x *Index) Closest(input string, max int) []string {
	ms := x.Matches(input, max)
	if len(ms) == 0 {
		return nil
	}
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.Name
	}
	return out
}

// Matches is Closest with scores. When some candidate equals the input after Normalize (up to a
// plural ending), only such candidates are returned: the agent's intent is then unambiguous.
func (x *Index) Matches(input string, max int) []Match {
	if x == nil || max <= 0 || len(input) > MaxInputLen {
		return nil
	}
	in := newForm(input)
	if in.norm == "" {
		return nil
	}
	var ms []Match
	decisive := false
	for _, e := range x.entries {
		best := 0.0
		for i := range e.forms {
			if s := score(&in, &e.forms[i]); s > best {
				best = s
			}
		}
		if best < Threshold {
			continue
		}
		if best >= scorePluralExact {
			decisive = true
		}
		ms = append(ms, Match{Name: e.name, Score: math.Round(best*1e6) / 1e6})
	}
	if decisive {
		kept := ms[:0]
		for _, m := range ms {
			if m.Score >= scorePluralExact {
				kept = append(kept, m)
			}
		}
		ms = kept
	}
	sort.SliceStable(ms, func(i, j int) bool { return ms[i].Score > ms[j].Score })
	if len(ms) > max {
		ms = ms[:max]
	}
	if len(ms) == 0 {
		return nil
	}
	return ms
}
