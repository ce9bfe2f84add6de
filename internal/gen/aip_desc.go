package gen

import (
	"regexp"
	"strings"

	"google.golang.org/protobuf/compiler/protogen"
	"google.golang.org/protobuf/types/descriptorpb"
)

// Descriptions for agents. AIP comments carry protodoc link markup
// ([Book][google.example.v1.Book], [google.example.v1.Book][]) and
// field-behaviour prefixes (Required., Output only., Optional.,
// Immutable., Identifier.) that the schema already states with required
// and with the fields it offers. Agents read the link text alone and no
// prefix; a deprecated field says so first.

var (
	// linkRE matches [Text][target] and [target][] (an empty target).
	linkRE = regexp.MustCompile(`\[([^\[\]]+)\]\[([A-Za-z0-9_.]*)\]`)
	// behaviourPrefixRE matches the field-behaviour prefixes of AIP comments.
	behaviourPrefixRE = regexp.MustCompile(`^(?i:(?:required|optional|output only|immutable|identifier|input only)\.\s*)+`)
)

// plainLinks renders protodoc link markup as its text.
func plainLinks(s string) string {
	if !strings.Contains(s, "][") {
		return s
	}
	return linkRE.ReplaceAllString(s, "$1")
}

// agentDesc is the description agents read for field f, from its comment.
func agentDesc(f *protogen.Field, comment string) string {
	s := behaviourPrefixRE.ReplaceAllString(plainLinks(comment), "")
	if opts, ok := f.Desc.Options().(*descriptorpb.FieldOptions); ok && opts.GetDeprecated() {
		if s == "" {
			return "Deprecated."
		}
		return "Deprecated. " + s
	}
	return s
}
