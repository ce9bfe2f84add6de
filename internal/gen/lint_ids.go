package gen

import "fmt"

// idKinds are the generated kinds that make identifiers (NOW makes a time).
var idKinds = map[generatedKind]bool{
	genUUIDv4:        true,
	genUUIDv7:        true,
	genULID:          true,
	genContentHash:   true,
	genRequestScoped: true,
}

// lintIDs warns, once per field, when a creating tool (kind CREATE or
// classification SAFE_CREATE) lets the agent supply the id of what it
// creates (a generated id field with overridable: true). The agent can then
// name an id another tenant already uses: unless the domain looks ids up
// within the caller's tenant only and refuses an id the tenant already has,
// a create overwrites, and so takes over, an entity it must not see, or an
// ALREADY_EXISTS answer reveals that the id exists elsewhere.
func lintIDs(fm *fileModel) []string {
	var out []string
	for _, s := range fm.services {
		for _, t := range s.tools {
			if !t.creates() {
				continue
			}
			for _, f := range overridableIDs(t.input, "", map[*messageModel]bool{}) {
				out = append(out, fmt.Sprintf("%s: tool %s: the agent may supply the id %s (overridable); the domain must check that it does not exist in the caller's tenant (answer ALREADY_EXISTS, never overwrite) and must look ids up in that tenant only, so another tenant's ids are neither overwritten nor revealed; "+
					"or let the server alone choose it: remove overridable: true from its (mcpwrite.v1.field).generated option", where(f.field.proto.Desc), t.name, f.path))
			}
		}
	}
	return out
}

// overridableIDs lists the agent-facing paths of m's overridable generated
// id fields, in field order, descending into nested messages once each.
func overridableIDs(m *messageModel, prefix string, seen map[*messageModel]bool) []identityField {
	if m == nil || seen[m] {
		return nil
	}
	seen[m] = true
	defer delete(seen, m)
	var out []identityField
	for _, f := range m.fields {
		name := prefix + f.agentName
		if f.proto.Desc.IsList() || f.proto.Desc.IsMap() {
			name += "[]"
		}
		if f.mode == modeGenerated && f.overridable && f.fill != nil && idKinds[f.fill.gen] {
			out = append(out, identityField{f, name})
		}
		out = append(out, overridableIDs(f.child, name+".", seen)...)
	}
	return out
}
