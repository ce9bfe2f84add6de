package runtime

import "sort"

// longDescription is one description the schemas cut short, in full.
type longDescription struct {
	Path        string `json:"path"`
	Description string `json:"description"`
}

// longDescriptions lists a document's long descriptions by path, for
// get_write_schema (entries, as every map agents read).
func longDescriptions(m map[string]string) []longDescription {
	out := make([]longDescription, 0, len(m))
	for p, d := range m {
		out = append(out, longDescription{Path: p, Description: d})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}
