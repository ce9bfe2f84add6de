package gen

import (
	"sort"

	"github.com/dave/jennifer/jen"
)

// The decoder parts of adopted AIP APIs (walk_aip_identity.go, walk_aip_update.go):
// the unknown-key check that names server-owned fields, and the
// update_mask check of an Update request.

// ownedVarName is the variable listing a message's server-owned fields.
func ownedVarName(m *messageModel) string { return "owned" + m.goName() }

// knownCall emits the decoder's unknown-key check: Known, or KnownOwned
// with the fields the server owns and why.
func (e *emitter) knownCall(g *jen.Group, m *messageModel, fieldsVar string) {
	if len(m.owned) == 0 {
		g.Id("d").Dot("Known").Call(jen.Id("obj"), jen.Id(fieldsVar))
		return
	}
	var kv []jen.Code
	for _, o := range m.owned {
		kv = append(kv, item(jen.Lit(o.name).Op(":").Lit(o.why)))
	}
	e.decl(jen.Var().Id(ownedVarName(m)).Op("=").Map(jen.String()).String().Add(multi(kv...)))
	g.Id("d").Dot("KnownOwned").Call(jen.Id("obj"), jen.Id(fieldsVar), jen.Id(ownedVarName(m)))
}

// updateMaskCheck emits the update_mask check of an Update request.
func (e *emitter) updateMaskCheck(g *jen.Group, m *messageModel) {
	mc := m.mask
	if mc == nil {
		return
	}
	field := jen.Id("m").Dot(mc.mask.proto.GoName)
	args := []jen.Code{
		jen.Id("d"), jen.Lit(mc.mask.agentName), field.Clone(),
		jen.Id("m").Dot(getterName(mc.resource.proto)).Call(), jen.Lit(mc.identity),
	}
	if len(mc.owned) == 0 {
		g.Add(field.Clone().Op("=").Add(e.rt("CheckUpdateMask")).Call(args...))
		return
	}
	names := make([]string, 0, len(mc.owned))
	for n := range mc.owned {
		names = append(names, n)
	}
	sort.Strings(names)
	var kv []jen.Code
	for _, n := range names {
		kv = append(kv, item(jen.Lit(n).Op(":").Lit(mc.owned[n])))
	}
	v := "maskOwned" + m.goName()
	e.decl(jen.Var().Id(v).Op("=").Map(jen.String()).String().Add(multi(kv...)))
	g.Add(field.Clone().Op("=").Add(e.rt("CheckUpdateMaskOwned")).Call(append(args, jen.Id(v))...))
}
