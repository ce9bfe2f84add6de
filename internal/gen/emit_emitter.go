package gen

// The emitter and the helpers every emit step uses: qualified names,
// declarations, field setters, literals and doc comments.

import (
	"sort"
	"strings"

	"github.com/dave/jennifer/jen"
	"google.golang.org/protobuf/compiler/protogen"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// emitter builds one .mcpwrite.go file as jennifer code. Every qualified
// identifier is resolved by the protogen.GeneratedFile (q, through im), so
// protogen alone picks package names, as for any protoc plugin; formatGo
// writes the import block with them.
type emitter struct {
	im   *imports
	fm   *fileModel
	file *jen.File
	// patterns are the compiled pattern variables, by variable name.
	patterns map[string]string
	// sdk is the MCP server SDK Register<Service>Tools takes.
	sdk SDK
}

// imports records the package name protogen gives each imported path of
// one generated file (what GeneratedFile.QualifiedGoIdent returns), and the
// imports of side effects, as the file's import block must list them.
type imports struct {
	g      *protogen.GeneratedFile
	self   protogen.GoImportPath
	names  map[protogen.GoImportPath]string
	manual []protogen.GoImportPath
}

func newImports(g *protogen.GeneratedFile, self protogen.GoImportPath) *imports {
	return &imports{g: g, self: self, names: map[protogen.GoImportPath]string{}}
}

// qualified is g.QualifiedGoIdent(id), the package name recorded.
func (im *imports) qualified(id protogen.GoIdent) string {
	s := im.g.QualifiedGoIdent(id)
	if id.GoImportPath != im.self {
		im.names[id.GoImportPath] = strings.TrimSuffix(s, "."+id.GoName)
	}
	return s
}

// blank imports path for its side effects (g.Import).
func (im *imports) blank(path protogen.GoImportPath) {
	im.g.Import(path)
	im.manual = append(im.manual, path)
}

// specs are the import block's entries sorted by path, as
// GeneratedFile.Content lists them.
func (im *imports) specs() [][2]string {
	var out [][2]string
	for path, name := range im.names {
		out = append(out, [2]string{name, string(path)})
	}
	for _, path := range im.manual {
		if _, ok := im.names[path]; !ok {
			out = append(out, [2]string{"_", string(path)})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i][1] < out[j][1] })
	return out
}

// q is a qualified identifier, its package imported by the generated file.
func (e *emitter) q(id protogen.GoIdent) *jen.Statement { return jen.Id(e.im.qualified(id)) }

// rt is a runtime identifier (see rt in emit_idents.go).
func (e *emitter) rt(name string) *jen.Statement { return e.q(rt(name)) }

// decl adds a top-level declaration and the blank line after it.
func (e *emitter) decl(c ...jen.Code) {
	e.file.Add(c...)
	e.file.Line()
}

// resolverSignature is a resolver's method in the Handler interface.
func (e *emitter) resolverSignature(r *resolverModel) *jen.Statement {
	params := []jen.Code{jen.Id("ctx").Add(e.q(contextPkg.Ident("Context"))), jen.Id("in").Add(e.q(protoPkg.Ident("Message")))}
	if r.reference {
		return jen.Id(r.method).Params(append(params, jen.Id("ref").String())...).Params(e.rt("Reference"), jen.Error())
	}
	return jen.Id(r.method).Params(params...).Params(e.goType(r.field), jen.Error())
}

// goType is a field's Go type with its imports resolved.
func (e *emitter) goType(f *protogen.Field) *jen.Statement {
	return jen.Id(goType(f, e.im.qualified))
}

// multi is a braced list with one item a line; each item carries its own
// trailing comma (and may carry a comment after it).
func multi(items ...jen.Code) *jen.Statement {
	return jen.Custom(jen.Options{Open: "{", Close: "}", Multi: true}, items...)
}

// item is one line of a multi list.
func item(c ...jen.Code) *jen.Statement { return jen.Add(c...).Op(",") }

// inline is a braced block kept on one line: { return x }.
func inline(c ...jen.Code) *jen.Statement {
	return jen.Custom(jen.Options{Open: "{", Close: "}"}, c...)
}

// set is "m.X = v" for any field shape.
func (e *emitter) set(f *protogen.Field, v jen.Code) *jen.Statement {
	switch {
	case realOneof(f):
		return jen.Id("m").Dot(f.Oneof.GoName).Op("=").Op("&").Add(e.q(f.GoIdent)).Values(jen.Id(f.GoName).Op(":").Add(v))
	case isPtr(f):
		return jen.Id("m").Dot(f.GoName).Op("=").Add(e.rt("Ptr")).Call(v)
	}
	return jen.Id("m." + f.GoName + " =").Add(v)
}

// unset is a condition true when the field holds no value.
func (e *emitter) unset(f *protogen.Field) *jen.Statement {
	x := jen.Id("m").Dot(f.GoName)
	switch {
	case f.Desc.IsList() || f.Desc.IsMap() || f.Desc.Kind() == protoreflect.BytesKind:
		return jen.Len(x).Op("==").Lit(0)
	case f.Message != nil || isPtr(f):
		return x.Op("==").Nil()
	case f.Desc.Kind() == protoreflect.StringKind:
		return x.Op("==").Lit("")
	case f.Desc.Kind() == protoreflect.BoolKind:
		return jen.Op("!").Add(x)
	}
	return x.Op("==").Lit(0)
}

// literal is an annotation literal as Go code.
func (e *emitter) literal(l literal) *jen.Statement {
	if l.ident != nil {
		return e.q(*l.ident)
	}
	return jen.Id(l.code)
}

// fieldAgentName is the name a request field has in the input schema.
func fieldAgentName(m *messageModel, f *protogen.Field) string {
	for _, fm := range m.fields {
		if fm.proto == f {
			return fm.agentName
		}
	}
	return string(f.Desc.Name())
}

// docComment is text as // comment lines of at most 80 columns (a tab
// counted as 4), each followed by a line break; indent is the lines'
// leading tabs.
func docComment(indent, text string) *jen.Statement {
	s := jen.Null()
	for _, line := range wrapComment(indent, text) {
		s.Comment(line).Line()
	}
	return s
}

// wrapComment breaks text into comment lines of at most 80 columns, words
// kept whole.
func wrapComment(indent, text string) []string {
	width := 80 - 3 - 4*strings.Count(indent, "\t")
	var lines []string
	line := ""
	for _, w := range strings.Fields(text) {
		if line != "" && len(line)+1+len(w) > width {
			lines = append(lines, line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += w
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}
