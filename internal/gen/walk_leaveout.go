package gen

// Leaving methods out under expose: ALL. A service adopted with
// `expose: ALL` (and no tool option on a method) makes every unary method
// a tool; one method the plugin cannot express, or one no agent should
// call, must not stop the rest. Such a method is left out with a warning
// that names it, the reason and the one-line option that includes or hides
// it; a method with a tool option is the author's explicit choice, and its
// problems stay errors (docs/existing-apis.md, "Methods left out").

import (
	"fmt"
	"strings"

	"google.golang.org/protobuf/compiler/protogen"
	"google.golang.org/protobuf/reflect/protoreflect"
)

const (
	omitOption    = "option (mcpwrite.v1.tool) = {omit: true};"
	includeOption = "option (mcpwrite.v1.tool) = {omit: false};"
)

// internalDocRE matches a method comment that says the method is not for
// API users: "This is an internal API", "An internal method called by a
// connector", "to support Google-internal use cases", "Do not use this
// method directly".
var internalDocRE = lazyRegexp(`(?i)\binternal (api|method|rpc)\b|\binternal[- ]use\b|\bgoogle-internal\b|\bdo not (use|call) this (method|api|rpc) directly\b|\bnever need to call this\b`)

// leftOutByDefault says why expose: ALL leaves m out without trying it, or
// "": a method documented as internal (or named *Internal / Internal*), or
// an inbound webhook (a method naming a webhook whose request carries a
// google.api.HttpBody: the raw HTTP request another system sends).
func leftOutByDefault(m *protogen.Method) string {
	name := string(m.Desc.Name())
	doc := m.Comments.Leading.String()
	if internalDocRE().MatchString(doc) || strings.HasPrefix(name, "Internal") || strings.HasSuffix(name, "Internal") {
		return "it is documented as internal, not for API users"
	}
	if !strings.Contains(strings.ToLower(name+" "+doc), "webhook") {
		return ""
	}
	if m.Input.Desc.FullName() == httpBody {
		return "it is an inbound webhook (its request is google.api.HttpBody)"
	}
	for _, f := range m.Input.Fields {
		if f.Message != nil && f.Message.Desc.FullName() == httpBody {
			return "it is an inbound webhook (its request carries the raw HTTP body in " + string(f.Desc.Name()) + ", google.api.HttpBody)"
		}
	}
	return ""
}

const httpBody protoreflect.FullName = "google.api.HttpBody"

// leaveOutByDefault leaves out a method leftOutByDefault names, with its
// warning.
func (b *builder) leaveOutByDefault(m *protogen.Method, why string) {
	b.leaveOut(m, why+"; to make it a tool add "+includeOption+" to the method, or "+omitOption+" to leave it out without this warning")
}

// tookBack reports whether the build of m's tool since mk found problems
// (the plugin cannot make it a tool). It then takes back whatever the
// build added to the builder, so the other tools are built as without it,
// and leaves m out with a warning naming the problems.
func (b *builder) tookBack(sm *serviceModel, m *protogen.Method, mk buildMark) bool {
	if len(b.probs.list) == mk.probs {
		return false
	}
	var whys []string
	for _, p := range b.probs.list[mk.probs:] {
		whys = append(whys, strings.TrimPrefix(p, m.Desc.ParentFile().Path()+": "))
	}
	b.rollback(sm, mk)
	b.leaveOut(m, strings.Join(whys, "; ")+"; to leave it out without this warning add "+omitOption+" to the method")
	return true
}

// leaveOut records the warning of a method left out.
func (b *builder) leaveOut(m *protogen.Method, why string) {
	b.probs.leftOut = append(b.probs.leftOut, fmt.Sprintf("%s: method %s left out: %s", where(m.Desc), m.Desc.FullName(), why))
}

// buildMark is how much the builder held before one tool's build.
type buildMark struct {
	probs, messages, enums, fileResolvers, svcResolvers, outputOnly int
	tables, firstTables                                             map[string]bool
}

func (b *builder) markBuild(sm *serviceModel) buildMark {
	mk := buildMark{
		probs: len(b.probs.list), messages: len(b.file.messages), enums: len(b.file.enums),
		fileResolvers: len(b.file.resolvers), svcResolvers: len(sm.resolvers),
		outputOnly: len(b.file.commentOutputOnly),
		tables:     map[string]bool{}, firstTables: map[string]bool{},
	}
	for k := range b.tables {
		mk.tables[k] = true
	}
	for k := range b.file.firstTable {
		mk.firstTables[string(k)] = true
	}
	return mk
}

// rollback takes back what a failed tool's build added: its problems, the
// message models and enum tables it made (a later tool reaching them
// builds them again) and the resolvers it collected.
func (b *builder) rollback(sm *serviceModel, mk buildMark) {
	b.probs.list = b.probs.list[:mk.probs]
	for _, mm := range b.file.messages[mk.messages:] {
		for name, have := range b.messages {
			if have == mm {
				delete(b.messages, name)
			}
		}
	}
	b.file.messages = b.file.messages[:mk.messages]
	b.file.enums = b.file.enums[:mk.enums]
	b.file.resolvers = b.file.resolvers[:mk.fileResolvers]
	sm.resolvers = sm.resolvers[:mk.svcResolvers]
	b.file.commentOutputOnly = b.file.commentOutputOnly[:mk.outputOnly]
	for k := range b.tables {
		if !mk.tables[k] {
			delete(b.tables, k)
		}
	}
	for k := range b.file.firstTable {
		if !mk.firstTables[string(k)] {
			delete(b.file.firstTable, k)
		}
	}
	b.stack = nil
	b.aip = aipState{}
}
