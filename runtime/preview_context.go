package runtime

import (
	"bytes"
	"encoding/json"
	"strings"

	"google.golang.org/protobuf/proto"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/impl"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/schemadoc"
)

// validatedRequest is the request a validate_write or dry_run answer shows:
// the agent-facing JSON of m with the fields the request context fills with
// the tenant or principal ID left out (isIdentityFill). They name who is
// calling, not what would be written: an agent never sees a tenant's or a
// principal's identifiers, and server_filled still names the fields the
// server fills. Correlation and trace IDs stay, for support.
func (s answerShape) validatedRequest(d *schemadoc.Tool, m proto.Message) (json.RawMessage, error) {
	raw, err := s.agentJSON(m)
	if err != nil || m == nil {
		return raw, err
	}
	obj, errs := impl.Parse(raw, ownOutputLimits(raw))
	if len(errs) > 0 || obj == nil {
		return raw, nil
	}
	dropped := false
	for _, f := range d.ServerFills {
		if isIdentityFill(f) {
			dropPath(obj, strings.Split(f.Field, "."))
			dropped = true
		}
	}
	if !dropped {
		return raw, nil
	}
	var buf bytes.Buffer
	writeObject(&buf, obj)
	return buf.Bytes(), nil
}

// Fills from the request context's tenant and principal IDs, as the
// generator states them.
var (
	tenantFillHow    = schemadoc.ContextFillHow("TENANT_ID")
	principalFillHow = schemadoc.ContextFillHow("PRINCIPAL_ID")
)

// isIdentityFill reports a fill from the request context's tenant or
// principal ID.
func isIdentityFill(f schemadoc.ServerFill) bool {
	return f.Source == "context" && (f.How == tenantFillHow || f.How == principalFillHow)
}
