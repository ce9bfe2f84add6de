package layering

import (
	"sort"
	"strings"
)

// cycles returns the strongly connected components of more than one file of
// the graph whose arrows are the keys of uses (Tarjan's algorithm), each
// sorted, the list sorted.
func cycles(files map[string]int, uses map[[2]string][]string) [][]string {
	next := map[string][]string{}
	for k := range uses {
		next[k[0]] = append(next[k[0]], k[1])
	}
	names := sortedNames(files)
	for _, n := range names {
		sort.Strings(next[n])
	}
	t := &tarjan{next: next, index: map[string]int{}, low: map[string]int{}, onStack: map[string]bool{}}
	for _, n := range names {
		if _, seen := t.index[n]; !seen {
			t.visit(n)
		}
	}
	sort.Slice(t.out, func(i, j int) bool { return strings.Join(t.out[i], " ") < strings.Join(t.out[j], " ") })
	return t.out
}

type tarjan struct {
	next    map[string][]string
	index   map[string]int
	low     map[string]int
	onStack map[string]bool
	stack   []string
	out     [][]string
}

func (t *tarjan) visit(v string) {
	t.index[v] = len(t.index)
	t.low[v] = t.index[v]
	t.stack = append(t.stack, v)
	t.onStack[v] = true
	for _, w := range t.next[v] {
		if _, seen := t.index[w]; !seen {
			t.visit(w)
			t.low[v] = min(t.low[v], t.low[w])
		} else if t.onStack[w] {
			t.low[v] = min(t.low[v], t.index[w])
		}
	}
	if t.low[v] != t.index[v] {
		return
	}
	var comp []string
	for {
		w := t.stack[len(t.stack)-1]
		t.stack = t.stack[:len(t.stack)-1]
		t.onStack[w] = false
		comp = append(comp, w)
		if w == v {
			break
		}
	}
	if len(comp) > 1 {
		sort.Strings(comp)
		t.out = append(t.out, comp)
	}
}

// arrowsWithin lists the arrows between the files of one cycle, as
// "a.go -> b.go (B, C)", sorted.
func arrowsWithin(cycle []string, uses map[[2]string][]string) []string {
	in := map[string]bool{}
	for _, f := range cycle {
		in[f] = true
	}
	var out []string
	for k, names := range uses {
		if in[k[0]] && in[k[1]] {
			out = append(out, k[0]+" -> "+k[1]+" ("+strings.Join(names, ", ")+")")
		}
	}
	sort.Strings(out)
	return out
}
