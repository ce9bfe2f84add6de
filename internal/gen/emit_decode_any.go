package gen

import "github.com/dave/jennifer/jen"

// readAny emits the read of the google.protobuf.Any value src of field f:
// its "@type" must be one of the field's candidates (the decoder reports
// any other, listing them), whose own generated decoder reads the rest of
// the object; the message read is packed into an Any.
func (e *emitter) readAny(g *jen.Group, f *fieldModel, src, key jen.Code, nested bool, assign func(x jen.Code) jen.Code) {
	var urls []jen.Code
	for _, t := range f.anyTypes {
		urls = append(urls, jen.Lit(t.url))
	}
	// dc is a call of a decoder method (as emit_decode.go's d).
	dc := func(name string, args ...jen.Code) *jen.Statement { return jen.Id("d").Dot(name).Call(args...) }
	read := dc("AnyObject", src, key, jen.Index().String().Values(urls...))
	g.If(jen.List(jen.Id("url"), jen.Id("o"), jen.Id("ok")).Op(":=").Add(read), jen.Id("ok")).Block(
		jen.Switch(jen.Id("url")).BlockFunc(func(s *jen.Group) {
			for _, t := range f.anyTypes {
				s.Case(jen.Lit(t.url)).BlockFunc(func(b *jen.Group) {
					b.Id("x").Op(":=").New(e.q(t.model.proto.GoIdent))
					if nested {
						b.Add(dc("Enter", key))
					}
					b.Id(decodeName(t.model)).Call(jen.Id("d"), jen.Id("o"), jen.Id("x"))
					if nested {
						b.Add(dc("Leave"))
					}
					b.If(jen.List(jen.Id("a"), jen.Id("ok")).Op(":=").Add(dc("PackAny", key, jen.Id("x"))), jen.Id("ok")).Block(assign(jen.Id("a")))
				})
			}
		}),
	)
}
