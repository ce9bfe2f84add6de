package gen

import "strings"

// Update masks (AIP-134). The request of an Update tool whose resource
// field and update_mask the agent both set is decoded with a call of
// mcpwriteimpl.CheckUpdateMask after its fields: every path is checked
// against the resource message, and a missing mask is derived from the
// fields the agent set, so update_mask is optional for the agent even
// where the API marks it REQUIRED.

// requestModel builds the request model of t; an Update tool's resource
// is built as variantUpdate and its mask is checked.
func (b *builder) requestModel(t *toolModel) *messageModel {
	rf := b.updateResourceOf(t)
	b.aip = aipState{updateResource: rf, tool: t.name, service: t.svc.proto}
	in := b.message(t.method.Input, nil)
	b.aip = aipState{}
	if in == nil || rf == nil {
		return in
	}
	mc := &maskCheck{jsonNames: b.jsonNames}
	for _, f := range in.fields {
		switch {
		case f.proto == rf && f.mode == modeAgent && f.child != nil:
			mc.resource = f
		case f.proto.Desc.Name() == "update_mask" && f.mode == modeAgent:
			mc.mask = f
		}
	}
	if mc.resource == nil || mc.mask == nil {
		return in
	}
	for _, f := range rf.Message.Fields {
		if isIdentity(rf.Message, f) {
			mc.identity = string(f.Desc.Name())
		}
	}
	mc.owned = map[string]string{}
	maskOwnedFields(rf.Message, nil, mc.owned)
	for _, f := range rf.Message.Fields {
		if isIdentity(rf.Message, f) {
			delete(mc.owned, string(f.Desc.FullName())) // names the resource: refused as such
		}
	}
	in.mask = mc
	// The decoder derives a missing mask, so the agent may omit it even
	// where the API requires one.
	mc.mask.required = false
	hint := "Omit it to update exactly the fields set in " + mc.resource.agentName + "."
	if mc.mask.desc == "" {
		mc.mask.desc = hint
	} else {
		mc.mask.desc = strings.TrimRight(mc.mask.desc, " ") + " " + hint
	}
	return in
}
