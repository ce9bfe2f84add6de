package suggest

import "strings"

// pluralEqual reports whether a and b differ only by an English plural ending
// (node/nodes, process/processes, capability/capabilities, person/people).
func pluralEqual(a, b string) bool {
	if len(a) > len(b) {
		a, b = b, a
	}
	if a == b || len(a) < 2 {
		return a == b
	}
	if strings.HasPrefix(b, a) {
		if rest := b[len(a):]; rest == "s" || rest == "es" {
			return true
		}
	}
	if n := len(a) - 1; a[n] == 'y' && len(b) == n+3 && b[:n] == a[:n] && b[n:] == "ies" {
		return true
	}
	return irregular[a] == b || irregular[b] == a
}

// irregular maps singular to plural for the irregular nouns that show up in API names.
var irregular = map[string]string{
	"person": "people",
	"child":  "children",
	"entity": "entities",
	"index":  "indices",
	"datum":  "data",
	"status": "statuses",
}

// singular strips one plural ending, for matching abbreviated plurals ("props" -> "prop").
func singular(s string) string {
	switch {
	case strings.HasSuffix(s, "ies") && len(s) > 4:
		return s[:len(s)-3] + "y"
	case strings.HasSuffix(s, "sses"), strings.HasSuffix(s, "xes"), strings.HasSuffix(s, "ches"), strings.HasSuffix(s, "shes"):
		return s[:len(s)-2]
	case strings.HasSuffix(s, "s") && !strings.HasSuffix(s, "ss") && !strings.HasSuffix(s, "us") && len(s) > 3:
		return s[:len(s)-1]
	}
	return s
}

// stemSuffixes are inflection endings stripped to compare word stems, so that "serves",
// "realizes" and "triggers" meet "serving", "realization" and "triggering".
var stemSuffixes = []string{"isation", "ization", "ation", "ition", "ment", "ing", "ion", "ies", "ee", "es", "ed", "er", "e", "s", "y"}

// minStem keeps stems long enough that two unrelated words rarely share one.
const minStem = 4

// sameStem reports whether two words share a stem of at least minStem letters after stripping one
// inflection ending from each (or none); sa and sb come from stems.
func sameStem(sa, sb []string) bool {
	for _, x := range sa {
		for _, y := range sb {
			if x == y {
				return true
			}
		}
	}
	return false
}

// stems lists w and w without each inflection ending that leaves at least minStem letters;
// nil for words too short to stem.
func stems(w string) []string {
	if len(w) < minStem {
		return nil
	}
	out := []string{w}
	for _, suf := range stemSuffixes {
		if strings.HasSuffix(w, suf) && len(w)-len(suf) >= minStem {
			out = append(out, w[:len(w)-len(suf)])
		}
	}
	return out
}

// synonymGroups lists words agents use interchangeably in tool and field names: the irregular
// abbreviations that prefix and letter-subsequence rules cannot find, and CRUD verb synonyms.
var synonymGroups = [][]string{
	{"create", "add", "new", "insert", "make"},
	{"update", "edit", "modify", "change", "patch", "set"},
	{"delete", "remove", "del", "rm", "destroy", "drop", "erase"},
	{"get", "read", "fetch", "retrieve", "show"},
	{"id", "identifier", "ident", "uuid", "guid"},
	{"business", "biz"},
	{"application", "app"},
	{"service", "svc", "srv"},
	{"description", "desc", "descr"},
	{"organization", "organisation", "org"},
	{"relationship", "relation", "rel", "link"},
	{"technology", "tech"},
	{"number", "num", "nbr", "no"},
	{"quantity", "qty"},
	{"priority", "prio", "pri"},
	{"configuration", "config", "cfg", "conf"},
	{"information", "info"},
	{"property", "prop", "props"},
	{"attribute", "attr", "attrs"},
	{"source", "src"},
	{"target", "tgt"},
	{"destination", "dest", "dst"},
	{"parameter", "param", "params"},
	{"document", "doc", "docs"},
	{"message", "msg"},
	{"request", "req"},
	{"response", "resp"},
	{"environment", "env"},
	{"database", "db"},
	{"implementation", "impl"},
	{"management", "mgmt"},
	{"manager", "mgr"},
	{"department", "dept"},
	{"address", "addr"},
	{"account", "acct"},
	{"amount", "amt"},
	{"package", "pkg"},
	{"project", "proj"},
	{"element", "elem"},
	{"interface", "iface", "intf"},
	{"infrastructure", "infra"},
	{"version", "ver"},
	{"software", "sw"},
	{"hardware", "hw"},
	{"function", "func", "fn"},
	{"system", "sys"},
	{"object", "obj"},
	{"process", "proc"},
	{"component", "comp"},
	{"capability", "cap"},
	{"status", "state"},
	{"type", "kind"},
	{"name", "title"},
	{"label", "tag"},
}

// synonymOf maps each dictionary word to the indexes of its groups.
var synonymOf = func() map[string][]int {
	m := make(map[string][]int)
	for gi, g := range synonymGroups {
		for _, w := range g {
			m[w] = append(m[w], gi)
		}
	}
	return m
}()

// synonyms reports whether a and b belong to one synonym group (also through a plural of a).
func synonyms(a, b string) bool {
	gb, ok := synonymOf[b]
	if !ok {
		gb, ok = synonymOf[singular(b)]
		if !ok {
			return false
		}
	}
	ga, ok := synonymOf[a]
	if !ok {
		if ga, ok = synonymOf[singular(a)]; !ok {
			return false
		}
	}
	for _, x := range ga {
		for _, y := range gb {
			if x == y {
				return true
			}
		}
	}
	return false
}
