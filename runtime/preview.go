package runtime

import (
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
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
// that refusal; otherwise the answer shows the complete request and the
// domain's preview (totals, what it would change) with is_preview true.
func (c *call) previewAnswer() *mcp.CallToolResult {
	r, wt, ctx, m := c.r, c.wt, c.ctx, c.m
	name, pu := wt.doc.Name, wt.doc.PreviewUnless
	dp, des, _ := r.domainCheck(ctx, name, m)
	if len(des) > 0 {
		return c.fail(des)
	}
	req, err := r.agentJSON(m)
	if err != nil {
		return c.fail(Errors{r.internal(ctx, name, fmt.Errorf("marshal preview: %w", err))})
	}
	filled := []string{}
	for _, f := range wt.doc.ServerFills {
		filled = append(filled, f.Field)
	}
	po := object{{"request", req}, {"server_filled", filled}}
	if dp != nil {
		po = append(po, member{"domain", dp})
	}
	next := fmt.Sprintf("Nothing was written. Show this preview to the user; to make the change, call %s again with the same arguments and %s: true", name, pu.Argument)
	if defaultConfirmation(wt.doc) != ConfirmDirect {
		next += " (the user is then asked to confirm)"
	}
	o := object{
		{"success", true},
		{"is_preview", true},
		{"valid", true},
		{"preview", po},
		{"suggestions", []string{next + "."}},
		{"warnings", warningsJSON(r.warnings(wt, c.body))},
	}
	return toolResult(r.render(ctx, name, o), false)
}
