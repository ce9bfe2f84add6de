package gen

// A google.protobuf.FieldMask as agents send it: comma-separated field
// paths, each a dotted list of names in lowerCamel or snake_case (the
// decoder converts lowerCamel segments to the proto names and ignores
// blanks around a comma). The pattern admits exactly those paths; an
// AIP-134 update_mask, whose paths the decoder checks against the resource,
// lists the paths an update may name.

import (
	"regexp"
	"slices"
	"strings"

	"github.com/invopop/jsonschema"
	"google.golang.org/genproto/googleapis/api/annotations"
	"google.golang.org/protobuf/compiler/protogen"
)

// maskSegment is one path segment the decoder reads.
const maskSegment = `[A-Za-z_][A-Za-z0-9_]*`

// maskListPattern is the pattern of a comma-separated list of paths, each
// matching path, or "*" alone (the whole resource), or "".
func maskListPattern(path string) string {
	return `^(\*|` + path + `( *, *` + path + `)*)?$`
}

// fieldMaskSchema is the schema of a FieldMask whose target is not known:
// any syntactically valid paths.
func fieldMaskSchema() *jsonschema.Schema {
	path := maskSegment + `(\.` + maskSegment + `)*`
	return &jsonschema.Schema{Type: "string", Pattern: maskListPattern(path)}
}

// updateMaskSchema states the paths an update_mask may name: the fields of
// the resource an update can change, dotted through singular messages to
// any depth, a map's key after the map. A path passes through a message
// once (a recursive message's field ends it) and ends at a well-known
// type; the decoder refuses the paths that go on (CheckUpdateMask), so the
// pattern lists exactly the paths it takes.
func updateMaskSchema(mc *maskCheck, s *jsonschema.Schema, brief bool) {
	paths := updatePaths(mc.resource.proto.Message, mc.identity, nil, "", "")
	if len(paths) == 0 {
		return
	}
	if brief {
		// Over the schema budget: the paths are in get_write_schema's
		// complete schema, and the decoder checks them.
		s.Pattern = fieldMaskSchema().Pattern
		s.Description = appendSentence(s.Description, "Comma-separated paths of "+mc.resource.agentName+` (get_write_schema lists them); "*" alone replaces the whole resource.`)
		return
	}
	var alts, words []string
	for _, p := range paths {
		alt := regexp.QuoteMeta(p.proto)
		if p.camel != p.proto {
			alt += "|" + regexp.QuoteMeta(p.camel)
		}
		if p.isMap {
			alt = "(" + alt + `)(\.` + maskSegment + ")?"
		}
		alts = append(alts, alt)
		w := p.proto
		if mc.jsonNames {
			w = p.camel
		}
		if p.isMap {
			w += "[.key]"
		}
		words = append(words, w)
	}
	s.Pattern = maskListPattern("(" + strings.Join(alts, "|") + ")")
	s.Description = appendSentence(s.Description, "Comma-separated paths of "+mc.resource.agentName+": "+strings.Join(words, ", ")+`; "*" alone replaces the whole resource.`)
}

// maskPath is one path an update may name, as the proto and in lowerCamel.
type maskPath struct {
	proto, camel string
	isMap        bool
}

// updatePaths lists the paths of m under prefix (proto) and camelPrefix;
// seen holds the messages on the way, so a recursive message ends.
func updatePaths(m *protogen.Message, identity string, seen []*protogen.Message, prefix, camelPrefix string) []maskPath {
	var out []maskPath
	for _, f := range m.Fields {
		name := string(f.Desc.Name())
		if prefix == "" && name == identity || !maskUpdatable(f) || maskOwned(f) != "" {
			continue
		}
		camel := f.Desc.JSONName()
		if maskToSnake(camel) != name {
			camel = name // the decoder reads only the proto name
		}
		p := maskPath{proto: prefix + name, camel: camelPrefix + camel, isMap: f.Desc.IsMap()}
		out = append(out, p)
		if f.Message == nil || f.Desc.IsList() || f.Desc.IsMap() || strings.HasPrefix(string(f.Message.Desc.FullName()), "google.protobuf.") ||
			slices.Contains(seen, f.Message) || f.Message == m {
			continue
		}
		out = append(out, updatePaths(f.Message, identity, append(seen, m), p.proto+".", p.camel+".")...)
	}
	return out
}

// maskUpdatable reports whether an update mask may name f: it is not
// OUTPUT_ONLY, IDENTIFIER or IMMUTABLE (maskOwned: nor filled by the
// server by the project's own annotations).
func maskUpdatable(f *protogen.Field) bool {
	for _, b := range behaviors(f) {
		switch b {
		case annotations.FieldBehavior_OUTPUT_ONLY, annotations.FieldBehavior_IDENTIFIER, annotations.FieldBehavior_IMMUTABLE:
			return false
		}
	}
	return true
}

// maskToSnake is the decoder's conversion of a lowerCamel segment.
func maskToSnake(seg string) string {
	var b strings.Builder
	for i := 0; i < len(seg); i++ {
		c := seg[i]
		if c >= 'A' && c <= 'Z' {
			if i > 0 {
				b.WriteByte('_')
			}
			c += 'a' - 'A'
		}
		b.WriteByte(c)
	}
	return b.String()
}
