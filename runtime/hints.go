package runtime

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/impl"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/schemadoc"
)

// nestedPaths indexes an input schema's properties below the top level by
// name: "status" -> ["updates.status"]. Agents often flatten nested objects;
// the index lets an UNKNOWN_FIELD error say where the field belongs.
func nestedPaths(schema json.RawMessage) map[string][]string {
	var root map[string]any
	if json.Unmarshal(schema, &root) != nil {
		return nil
	}
	out := map[string][]string{}
	var walk func(s map[string]any, path string, depth int)
	walk = func(s map[string]any, path string, depth int) {
		if depth > 8 {
			return
		}
		if items, ok := s["items"].(map[string]any); ok {
			walk(items, path+"[]", depth+1)
		}
		props, _ := s["properties"].(map[string]any)
		for name, p := range props {
			full := name
			if path != "" {
				full = path + "." + name
				out[name] = append(out[name], full)
			}
			if ps, ok := p.(map[string]any); ok {
				walk(ps, full, depth+1)
			}
		}
	}
	walk(root, "", 0)
	for k := range out {
		sort.Strings(out[k])
	}
	return out
}

// hintNesting adds "it belongs inside ..." to top-level UNKNOWN_FIELD errors
// whose key is a nested field of the input.
func hintNesting(es impl.Errors, paths map[string][]string) {
	for _, e := range es {
		if e == nil || e.Code != CodeUnknownField || strings.ContainsAny(e.Field, ".[") {
			continue
		}
		where := paths[e.Field]
		if len(where) == 0 {
			continue
		}
		if e.Suggestions == nil {
			e.Suggestions = &impl.Suggestions{}
		}
		parent := where[0][:strings.LastIndex(where[0], ".")]
		e.Suggestions.DidYouMean = append([]string{where[0]}, e.Suggestions.DidYouMean...)
		if e.Suggestions.Hint == "" {
			e.Suggestions.Hint = e.Field + " belongs inside " + parent + ": send it as " + strings.Join(where, " or ")
		}
	}
}

// hint adds to top-level UNKNOWN_FIELD errors where the field belongs: a
// field the server fills itself (tenant_id, created_at, ...) says so and
// that it must be left out; a nested field says where it belongs.
func (wt *boundTool) hint(es impl.Errors) {
	hintServerFilled(es, wt.doc.ServerFills, wt.fillShapes)
	hintNesting(es, wt.nested)
	if wt.read {
		hintReadControl(wt.doc.Name, es)
	}
}

// hintServerFilled answers an agent that sends a field the server fills:
// "tenant_id is filled by the server (tenant id from the request context);
// leave it out". Keys match the fill's field name in any case, with or
// without underscores (tenantId, TENANT_ID).
func hintServerFilled(es impl.Errors, fills []schemadoc.ServerFill, shapes [][]string) {
	for _, e := range es {
		if e != nil && e.Code == CodeUnknownField && strings.ContainsAny(e.Field, ".[") {
			hintNestedServerFilled(e, fills, shapes) // inside a message, an item or a map value
			continue
		}
		if e == nil || e.Code != CodeUnknownField || alias(e.Field) != "" {
			continue // a control argument is never a server-filled field
		}
		hinted := false
		for _, f := range fills {
			if f.Overridable {
				continue // the agent may send it: it is in the input schema
			}
			name := f.Field[strings.LastIndex(f.Field, ".")+1:]
			if foldName(name) != foldName(e.Field) {
				continue
			}
			leaveOut(e, name, f.How)
			hinted = true
			break
		}
		if !hinted {
			hintServerFilledMessage(e, fills)
		}
	}
}

// hintServerFilledMessage answers an agent that sends a whole message the
// server fills (meta with its tenant, correlation and time): "meta is filled
// by the server (tenant_id, correlation_id, created_at); leave it out".
func hintServerFilledMessage(e *impl.ErrorEntry, fills []schemadoc.ServerFill) {
	var parent string
	var inside []string
	for _, f := range fills {
		i := strings.Index(f.Field, ".")
		if f.Overridable || i < 0 || foldName(f.Field[:i]) != foldName(e.Field) {
			continue
		}
		parent = f.Field[:i]
		inside = append(inside, f.Field[i+1:])
	}
	if len(inside) == 0 {
		return
	}
	if e.Suggestions == nil {
		e.Suggestions = &impl.Suggestions{}
	}
	e.Suggestions.Hint = fmt.Sprintf("%s is filled by the server (%s); leave it out", parent, strings.Join(inside, ", "))
	e.Suggestions.DidYouMean = nil
	e.Message = fmt.Sprintf("unknown field %s: the server fills %s itself", impl.ClipQuote(e.Field), parent)
}

// hintGroups adds, to an INVALID_ENUM_VALUE whose values a discovery tool
// lists in groups (element types by layer, say), the values of the group
// the best suggestion belongs to: valid_types_for_context. An agent that
// meant an application type sees the application types, not all of them.
func (a *answers) hintGroups(es impl.Errors) {
	for _, e := range es {
		if e == nil || e.Code != CodeInvalidEnumValue || e.Suggestions == nil || len(e.Suggestions.DidYouMean) == 0 {
			continue
		}
		top := e.Suggestions.DidYouMean[0]
		for i := range a.svc.Discovery {
			d := &a.svc.Discovery[i]
			if d.GroupBy == "" || !listsAll(d, e.Suggestions.ValidValues) {
				continue
			}
			group := ""
			for _, v := range d.Values {
				if v.Value == top {
					group = v.Group
				}
			}
			if group == "" {
				continue
			}
			var inGroup []string
			for _, v := range d.Values {
				if v.Group == group {
					inGroup = append(inGroup, v.Value)
				}
			}
			if e.Suggestions.Extra == nil {
				e.Suggestions.Extra = map[string]any{}
			}
			e.Suggestions.Extra["valid_types_for_context"] = inGroup
			break
		}
	}
}

// listsAll reports whether discovery d lists every one of values.
func listsAll(d *schemadoc.Discovery, values []string) bool {
	if len(values) == 0 {
		return false
	}
	have := make(map[string]bool, len(d.Values))
	for _, v := range d.Values {
		have[v.Value] = true
	}
	for _, v := range values {
		if !have[v] {
			return false
		}
	}
	return true
}

// hintReadControl answers an agent that sends a write's control argument, in
// either spelling, to a read: "list_people is a read tool and takes no
// client_request_id".
func hintReadControl(tool string, es impl.Errors) {
	for _, e := range es {
		if e == nil || e.Code != CodeUnknownField {
			continue
		}
		switch e.Field {
		case argClientRequestID, camelControl.clientRequestID:
			e.Message = fmt.Sprintf("unknown field %q: %s is a read tool and takes no %s", e.Field, tool, e.Field)
			e.Suggestions = &impl.Suggestions{Hint: fmt.Sprintf("A read changes nothing and is safe to repeat; leave %s out.", e.Field)}
		case argDryRun, camelControl.dryRun:
			e.Message = fmt.Sprintf("unknown field %q: %s is a read tool and takes no %s", e.Field, tool, e.Field)
			e.Suggestions = &impl.Suggestions{Hint: fmt.Sprintf("A read changes nothing; call it without %s.", e.Field)}
		}
	}
}

// hintNestedServerFilled answers a server-filled field sent inside a
// message, a list item or a map value (notes[1].id, tags.red.id) as the
// top-level hint does: leave it out, and no other field offered. shapes[i]
// is where fills[i] can appear (fillShapes).
func hintNestedServerFilled(e *impl.ErrorEntry, fills []schemadoc.ServerFill, shapes [][]string) {
	at := pathShape(e.Field)
	for i, f := range fills {
		if f.Overridable || i >= len(shapes) || !shapeMatches(shapes[i], at) {
			continue
		}
		leaveOut(e, f.Field[strings.LastIndex(f.Field, ".")+1:], f.How)
		return
	}
}

// leaveOut answers e, an unknown field the server fills itself (name,
// filled as how): leave it out, and nothing else, since a different field
// offered beside the hint is where an agent would send the value.
func leaveOut(e *impl.ErrorEntry, name, how string) {
	if e.Suggestions == nil {
		e.Suggestions = &impl.Suggestions{}
	}
	e.Suggestions.Hint = fmt.Sprintf("%s is filled by the server (%s); leave it out", name, how)
	e.Suggestions.DidYouMean = nil
	e.Message = fmt.Sprintf("unknown field %s: the server fills %s itself", impl.ClipQuote(e.Field), name)
}

// hintConfirmFlow answers such an argument, sent to a tool the user
// confirms, with how confirmation works on that tool instead of a bare
// unknown field: by proposal, call it without the argument to get a
// proposal id, then apply by id once the user agrees; by elicitation, call
// it without the argument and the user is asked.
func (a *answers) hintConfirmFlow(wt *boundTool, es impl.Errors) {
	if wt.read {
		return
	}
	conf := defaultConfirmation(wt.doc)
	if conf == ConfirmDirect {
		return
	}
	for _, e := range es {
		if e == nil || e.Code != CodeUnknownField || !confirmWords[strings.ToLower(e.Field)] {
			continue
		}
		name := wt.doc.Name
		if conf == ConfirmProposal && a.svc.ApplyTool != "" {
			e.Message = fmt.Sprintf("unknown field %q: %s is confirmed by proposal, not by an argument", e.Field, name)
			e.Suggestions = &impl.Suggestions{Hint: fmt.Sprintf(
				"Call %s without %s: it writes nothing and answers with a proposal (%s). Show it to the user; if they confirm, call %s with that %s.",
				name, e.Field, a.control().proposalID, a.svc.ApplyTool, a.control().proposalID)}
			continue
		}
		e.Message = fmt.Sprintf("unknown field %q: %s asks the user to confirm, not an argument", e.Field, name)
		e.Suggestions = &impl.Suggestions{Hint: fmt.Sprintf(
			"Call %s without %s: the user is asked to confirm before anything is written.", name, e.Field)}
	}
}

// confirmWords are the arguments agents send to confirm a write on their
// own (confirm: true, force: true, ...). No tool takes them: a write the
// user must confirm is confirmed by the user, by proposal or elicitation.
var confirmWords = map[string]bool{"confirm": true, "confirmed": true, "force": true, "yes": true}
