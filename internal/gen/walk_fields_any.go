package gen

// google.protobuf.Any as agent input. An Any field takes an object whose
// "@type" is one of the type URLs of its candidate messages, and whose other
// keys are that message's fields, as protojson writes an Any. The candidates
// are the messages of the file set the field's comments name (a full name,
// a type URL, or a message of the field's own package in backticks); when
// the comments name none, the messages of the field's own package that are
// no method's request or response, hold no Any and do not contain the field
// itself (at most maxAnyCandidates of them). Without a candidate the field
// is refused, and so its method (docs/existing-apis.md, "google.protobuf.Any").

import (
	"fmt"
	"sort"
	"strings"

	"google.golang.org/protobuf/compiler/protogen"
	"google.golang.org/protobuf/reflect/protoreflect"
)

const (
	anyFullName protoreflect.FullName = "google.protobuf.Any"
	// anyTypePrefix is the type URL prefix protojson writes and reads.
	anyTypePrefix = "type.googleapis.com/"
	// maxAnyCandidates bounds the candidates taken from a package when the
	// comments name none: each is one branch of the field's schema.
	maxAnyCandidates = 12
)

// isAny reports a field (or list or map value) of type google.protobuf.Any.
func isAny(f *protogen.Field) bool {
	return f.Message != nil && f.Message.Desc.FullName() == anyFullName
}

// anyNamedRE finds dotted names (full names, and type URLs, which end in
// one) in a comment; anyTickedRE a bare message name in backticks.
var (
	anyNamedRE  = lazyRegexp(`[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+`)
	anyTickedRE = lazyRegexp("`([A-Z][A-Za-z0-9_]*)`")
)

// anyCandidates are the candidate messages of the Any field f, sorted by
// full name; when there is none, why says so.
func (b *builder) anyCandidates(f *protogen.Field) ([]*protogen.Message, string) {
	index := b.fileSetMessages()
	pkg := f.Parent.Desc.ParentFile().Package()
	doc := f.Comments.Leading.String() + " " + f.Comments.Trailing.String()
	named := map[protoreflect.FullName]*protogen.Message{}
	for _, n := range anyNamedRE().FindAllString(doc, -1) {
		if m := index[protoreflect.FullName(n)]; m != nil && usableAnyCandidate(m) {
			named[m.Desc.FullName()] = m
		}
	}
	for _, sub := range anyTickedRE().FindAllStringSubmatch(doc, -1) {
		if m := index[pkg.Append(protoreflect.Name(sub[1]))]; m != nil && usableAnyCandidate(m) {
			named[m.Desc.FullName()] = m
		}
	}
	if len(named) > 0 {
		return sortedMessages(named), ""
	}
	io := b.methodMessages()
	pool := map[protoreflect.FullName]*protogen.Message{}
	for name, m := range index {
		if m.Desc.ParentFile().Package() != pkg || m.Desc.Parent() != m.Desc.ParentFile() || io[name] ||
			!usableAnyCandidate(m) || reachesAny(m.Desc, map[protoreflect.FullName]bool{}) {
			continue
		}
		pool[name] = m
	}
	switch n := len(pool); {
	case n == 0:
		return nil, "its comment names none, and package " + string(pkg) + " declares no other message to pack"
	case n > maxAnyCandidates:
		return nil, fmt.Sprintf("its comment names none, and package %s declares %d messages to pack, more than the %d a schema spells out", pkg, n, maxAnyCandidates)
	}
	return sortedMessages(pool), ""
}

// usableAnyCandidate: not a map entry, not a well-known type.
func usableAnyCandidate(m *protogen.Message) bool {
	return !m.Desc.IsMapEntry() && m.Desc.ParentFile().Package() != "google.protobuf"
}

// reachesAny reports whether m holds a google.protobuf.Any at any depth.
func reachesAny(m protoreflect.MessageDescriptor, seen map[protoreflect.FullName]bool) bool {
	if m.FullName() == anyFullName {
		return true
	}
	if seen[m.FullName()] {
		return false
	}
	seen[m.FullName()] = true
	fs := m.Fields()
	for i := 0; i < fs.Len(); i++ {
		if c := fs.Get(i).Message(); c != nil && reachesAny(c, seen) {
			return true
		}
	}
	return false
}

// fileSetMessages indexes every message of the request's files by full name.
func (b *builder) fileSetMessages() map[protoreflect.FullName]*protogen.Message {
	out := map[protoreflect.FullName]*protogen.Message{}
	var add func(ms []*protogen.Message)
	add = func(ms []*protogen.Message) {
		for _, m := range ms {
			out[m.Desc.FullName()] = m
			add(m.Messages)
		}
	}
	for _, file := range b.plugin.Files {
		add(file.Messages)
	}
	return out
}

// methodMessages are the requests and responses of every method of the
// file set.
func (b *builder) methodMessages() map[protoreflect.FullName]bool {
	out := map[protoreflect.FullName]bool{}
	for _, file := range b.plugin.Files {
		for _, s := range file.Services {
			for _, m := range s.Methods {
				out[m.Input.Desc.FullName()] = true
				out[m.Output.Desc.FullName()] = true
			}
		}
	}
	return out
}

func sortedMessages(set map[protoreflect.FullName]*protogen.Message) []*protogen.Message {
	out := make([]*protogen.Message, 0, len(set))
	for _, m := range set {
		out = append(out, m)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Desc.FullName() < out[j].Desc.FullName() })
	return out
}

// anyTypeURLs are the type URLs of an Any field's candidates, in order.
func anyTypeURLs(f *fieldModel) []string {
	out := make([]string, len(f.anyTypes))
	for i, t := range f.anyTypes {
		out[i] = t.url
	}
	return out
}

// anyNote describes an Any field for the agent.
func anyNote(f *fieldModel) string {
	if len(f.anyTypes) == 0 {
		return ""
	}
	return `A google.protobuf.Any: an object whose "@type" is one of ` + strings.Join(anyTypeURLs(f), ", ") +
		`; its other keys are the fields of that message.`
}
