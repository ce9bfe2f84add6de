package gen

import "github.com/dave/jennifer/jen"

// pairCheckCall checks the request m against a tool's pair table: the
// INVALID_RELATIONSHIP on its type field, or nil.
func (e *emitter) pairCheckCall(t *toolModel) *jen.Statement {
	pc := t.pairCheck
	return jen.Id(pc.varName).Dot("Check").Call(
		jen.Lit(fieldAgentName(t.input, pc.typ)),
		jen.Int32().Call(jen.Id("m").Dot(getterName(pc.typ)).Call()),
		jen.Int32().Call(jen.Id("m").Dot(getterName(pc.source)).Call()),
		jen.Int32().Call(jen.Id("m").Dot(getterName(pc.target)).Call()),
	)
}
