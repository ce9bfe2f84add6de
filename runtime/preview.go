package runtime

import (
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/impl"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/schemadoc"
)

// boolField reports whether the top-level bool field name of m is true.
func boolField(m proto.Message, name string) bool {
	if m == nil {
		return false
	}
	r := m.ProtoReflect()
	fd := r.Descriptor().Fields().ByName(protoreflect.Name(name))
	return fd != nil && fd.Kind() == protoreflect.BoolKind && !fd.IsList() && r.Get(fd).Bool()
}

// previewOnly reports a call of a preview_unless tool whose agent did not
// ask for the write (its bool field is not true).
func (c *call) previewOnly() bool {
	pu := c.wt.doc.PreviewUnless
	return pu != nil && !boolField(c.m, pu.Field)
}

// previewAnswer answers a call of a preview_unless tool whose agent did not
// ask for the write: nothing is claimed, confirmed or written. The domain
// check runs as for the write, so a write the domain would refuse answers
// that refusal. Otherwise the answer has the write's own shape with
// is_preview true: the members of the domain's preview named like fields of
// the tool's answer (the order as it would be, the message, next actions)
// where the write answers them, its warnings among the answer's warnings,
// and under preview the request as the user is shown it (personRequest)
// and the rest of the domain's preview (totals, what it would change).
func (c *call) previewAnswer() *mcp.CallToolResult {
	r, wt, ctx, m := c.r, c.wt, c.ctx, c.m
	name, pu := wt.doc.Name, wt.doc.PreviewUnless
	dp, des, _ := r.ans.domainCheck(ctx, name, m)
	if len(des) > 0 {
		return c.fail(des)
	}
	req, err := r.ans.shape.personRequest(wt.doc, m, c.body)
	if err != nil {
		return c.fail(impl.Errors{r.ans.internal(ctx, name, fmt.Errorf("marshal preview: %w", err))})
	}
	lifted, domainWs, rest := liftAnswerFields(wt.doc, dp)
	po := object{{"request", req}}
	if rest != nil {
		po = append(po, member{"domain", rest})
	}
	next := fmt.Sprintf("Nothing was written. Show this preview to the user; to make the change, call %s again with the same arguments and %s: true", name, pu.Argument)
	if defaultConfirmation(wt.doc) != ConfirmDirect {
		next += " (the user is then asked to confirm)"
	}
	o := object{{"success", true}, {"is_preview", true}}
	o = append(o, lifted...)
	o = append(o,
		member{"valid", true},
		member{"preview", po},
		member{"suggestions", []string{next + "."}},
		member{"warnings", warningsJSON(append(r.ans.warnings(wt, c.body), domainWs...))},
	)
	return toolResult(r.ans.render(ctx, name, o), false)
}

// liftAnswerFields splits a domain preview by the tool's output schema: the
// members named like a field of the answer (other than success, is_preview
// and warnings), in the answer's field order; a "warnings" member, when the
// answer has that field, as the answer's warnings; and the rest (nil when
// nothing is left, or when there was no preview).
func liftAnswerFields(d *schemadoc.Tool, dp map[string]any) (object, []impl.Warning, map[string]any) {
	if dp == nil {
		return nil, nil, nil
	}
	rest := make(map[string]any, len(dp))
	for k, v := range dp {
		rest[k] = v
	}
	var lifted object
	var ws []impl.Warning
	for _, k := range answerFields(d) {
		v, ok := rest[k]
		if !ok {
			continue
		}
		delete(rest, k)
		if k == "warnings" {
			ws = domainWarnings(v)
			continue
		}
		lifted = append(lifted, member{k, v})
	}
	if len(rest) == 0 {
		rest = nil
	}
	return lifted, ws, rest
}

// answerFields are the top-level properties of a tool's output schema, in
// order, without success and is_preview.
func answerFields(d *schemadoc.Tool) []string {
	obj, errs := impl.Parse(d.OutputSchema, ownOutputLimits(d.OutputSchema))
	if len(errs) > 0 || obj == nil {
		return nil
	}
	props := valueOf(obj, "properties")
	if props == nil || props.Obj == nil {
		return nil
	}
	var out []string
	for _, k := range props.Obj.Keys {
		if k != "success" && k != "is_preview" {
			out = append(out, k)
		}
	}
	return out
}
