package gen

import (
	"fmt"
	"strings"
)

// identityNames are the field names (proto names, lower-cased JSON names
// compared without case) that name a tenant or a principal. Tenant and
// principal come from authentication, never from tool arguments; a field
// with one of these names that the agent fills is how an agent acts for
// another tenant or user.
var identityNames = map[string]string{
	"tenant_id":       "TENANT_ID",
	"tenant":          "TENANT_ID",
	"tenantid":        "TENANT_ID",
	"org_id":          "TENANT_ID",
	"orgid":           "TENANT_ID",
	"organization_id": "TENANT_ID",
	"organizationid":  "TENANT_ID",
	"principal_id":    "PRINCIPAL_ID",
	"principalid":     "PRINCIPAL_ID",
	"user_id":         "PRINCIPAL_ID",
	"userid":          "PRINCIPAL_ID",
	"owner_id":        "PRINCIPAL_ID",
	"ownerid":         "PRINCIPAL_ID",
}

// identityContextKey is the context key a field named like an identity is
// derived from, or "" when the name is not identity-like. Both the proto
// name and the JSON name count, in any case.
func identityContextKey(f *fieldModel) string {
	for _, n := range []string{string(f.proto.Desc.Name()), f.proto.Desc.JSONName(), f.agentName} {
		if key, ok := identityNames[strings.ToLower(n)]; ok {
			return key
		}
	}
	return ""
}

// lintIdentity warns, once per tool and field path, when a field named like
// a tenant or principal (identityNames) is agent-supplied only because it
// has no annotation: the agent could then name another tenant or user. An
// explicit agent annotation states that the agent chooses it and silences
// the warning; under strict=true the warning is an error.
func lintIdentity(fm *fileModel) []string {
	var out []string
	for _, s := range fm.services {
		for _, t := range s.tools {
			for _, f := range implicitIdentityFields(t.input, "", map[*messageModel]bool{}) {
				key := identityContextKey(f.field)
				out = append(out, fmt.Sprintf("%s: tool %s: field %s (%s) looks like a tenant or principal but has no annotation, so the agent supplies it and could name another tenant or user; "+
					"annotate it [(mcpwrite.v1.field).derived = {context: %s}] to take it from the request context, or [(mcpwrite.v1.field).agent = {}] if the agent really chooses it",
					where(f.field.proto.Desc), t.name, f.path, f.field.proto.Desc.FullName(), key))
			}
		}
	}
	return out
}

type identityField struct {
	field *fieldModel
	path  string
}

// implicitIdentityFields lists m's identity-like fields that are
// agent-supplied without an explicit agent annotation, with their
// agent-facing paths, descending into nested messages once each.
func implicitIdentityFields(m *messageModel, prefix string, seen map[*messageModel]bool) []identityField {
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
		if f.mode == modeAgent && f.implicitAgent && identityContextKey(f) != "" {
			out = append(out, identityField{f, name})
		}
		out = append(out, implicitIdentityFields(f.child, name+".", seen)...)
	}
	return out
}
