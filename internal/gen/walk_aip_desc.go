package gen

import (
	"strings"

	"github.com/invopop/jsonschema"
	"google.golang.org/genproto/googleapis/api/annotations"
	"google.golang.org/protobuf/compiler/protogen"
	"google.golang.org/protobuf/proto"
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
	linkRE = lazyRegexp(`\[([^\[\]]+)\]\[([A-Za-z0-9_.]*)\]`)
	// behaviourPrefixRE matches the field-behaviour prefixes of AIP comments.
	behaviourPrefixRE = lazyRegexp(`^(?i:(?:required|optional|output only|immutable|identifier|input only)\.\s*)+`)
)

// plainLinks renders protodoc link markup as its text.
func plainLinks(s string) string {
	if !strings.Contains(s, "][") {
		return s
	}
	return linkRE().ReplaceAllString(s, "$1")
}

// agentDesc is the description agents read for field f, from its comment;
// a google.api.resource_reference adds the name's pattern.
func (b *builder) agentDesc(f *protogen.Field, comment string) string {
	s := behaviourPrefixRE().ReplaceAllString(plainLinks(comment), "")
	if note := b.referenceNote(f); note != "" && !strings.Contains(s, note) {
		s = strings.TrimSpace(s + " " + note)
	}
	if opts, ok := f.Desc.Options().(*descriptorpb.FieldOptions); ok && opts.GetDeprecated() {
		if s == "" {
			return "Deprecated."
		}
		return "Deprecated. " + s
	}
	return s
}

// referenceNote describes the resource name a google.api.resource_reference
// field takes: "A library.example.com/Shelf name: branches/{branch}/shelves/{shelf}."
// (the pattern when a message of this build declares the type), "The
// parent of a library.example.com/Shelf." for a child_type; "" otherwise.
func (b *builder) referenceNote(f *protogen.Field) string {
	ref := ext[*annotations.ResourceReference](f.Desc.Options(), annotations.E_ResourceReference)
	switch {
	case ref.GetType() != "" && ref.GetType() != "*":
		if ps := b.resourcePatterns()[ref.GetType()]; len(ps) > 0 {
			return "A " + ref.GetType() + " name: " + strings.Join(ps, " or ") + "."
		}
		return "A " + ref.GetType() + " name."
	case ref.GetChildType() != "":
		return "The parent of a " + ref.GetChildType() + "."
	}
	return ""
}

// resourcePatterns indexes the google.api.resource patterns of every
// message of the build by resource type, once.
func (b *builder) resourcePatterns() map[string][]string {
	if b.resources != nil {
		return b.resources
	}
	b.resources = map[string][]string{}
	var walk func(ms []*protogen.Message)
	walk = func(ms []*protogen.Message) {
		for _, m := range ms {
			if rd := ext[*annotations.ResourceDescriptor](m.Desc.Options(), annotations.E_Resource); rd != nil {
				b.resources[rd.GetType()] = rd.GetPattern()
			}
			walk(m.Messages)
		}
	}
	for _, f := range b.plugin.Files {
		walk(f.Messages)
		// Resources declared at file level (google.api.resource_definition).
		if opts := f.Desc.Options(); opts != nil && proto.HasExtension(opts, annotations.E_ResourceDefinition) {
			rds, _ := proto.GetExtension(opts, annotations.E_ResourceDefinition).([]*annotations.ResourceDescriptor)
			for _, rd := range rds {
				b.resources[rd.GetType()] = rd.GetPattern()
			}
		}
	}
	return b.resources
}

// maxDescription bounds a schema description agents read in tools/list;
// the full text stays in get_write_schema's long_descriptions.
const maxDescription = 500

// moreNote ends a cut description.
const moreNote = " (more in get_write_schema)"

// agentDescriptions renders every description of s, a tool's input or
// output schema under path, for agents: protodoc links as text, no
// field-behaviour prefix, at most maxDescription bytes. The full text of
// each cut description goes to long by path. It returns s.
func agentDescriptions(s *jsonschema.Schema, path string, long map[string]string) *jsonschema.Schema {
	var walk func(s *jsonschema.Schema, path string)
	seen := map[*jsonschema.Schema]bool{}
	walk = func(s *jsonschema.Schema, path string) {
		if s == nil || seen[s] {
			return
		}
		seen[s] = true
		if s.Description != "" {
			d := behaviourPrefixRE().ReplaceAllString(plainLinks(s.Description), "")
			if cut := cutDescription(d); cut != d {
				long[path] = d
				d = cut
			}
			s.Description = d
		}
		if s.Properties != nil {
			for p := s.Properties.Oldest(); p != nil; p = p.Next() {
				walk(p.Value, path+"."+p.Key)
			}
		}
		walk(s.Items, path)
		walk(s.AdditionalProperties, path)
		for _, sub := range [][]*jsonschema.Schema{s.AnyOf, s.OneOf, s.AllOf} {
			for _, x := range sub {
				walk(x, path)
			}
		}
	}
	walk(s, path)
	return s
}

// cutDescription returns d, or its sentences that fit maxDescription (its
// words when the first sentence does not fit) and moreNote.
func cutDescription(d string) string {
	if len(d) <= maxDescription {
		return d
	}
	room := d[:maxDescription-len(moreNote)-len("…")]
	if i := strings.LastIndex(room, ". "); i > 0 {
		return d[:i+1] + moreNote
	}
	if i := strings.LastIndex(room, " "); i > 0 {
		return d[:i] + "…" + moreNote
	}
	return room + "…" + moreNote
}
