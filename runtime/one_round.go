package runtime

import (
	"strings"

	"google.golang.org/protobuf/proto"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/impl"
)

// An agent that applies every fix one answer offers should succeed on its
// next call. The request check (buf.validate rules the decoder does not
// state, CEL among them) runs on the complete request after enrichment;
// when the decoder already refuses the arguments, the check still runs on
// what decoded, and its violations on fields the agent sent join the
// decode problems in the same answer, instead of surfacing one round
// later. What needs the whole request waits for the full check: a rule of
// the message itself (it may read a field in error), a field in error or
// left out, and a field the server fills (not filled yet).

// earlyRequestCheck adds to es, the decode problems, the request check's
// violations on fields the agent sent that decoded. A checker that fails
// adds nothing: the full check reports it once the arguments decode.
func (r *registry) earlyRequestCheck(wt *boundTool, body *impl.Object, m proto.Message, es Errors) Errors {
	if r.checker == nil || m == nil {
		return es
	}
	vs, err := r.checker.Check(m)
	if err != nil {
		return es
	}
	decoded := len(es)
	for _, v := range vs {
		if len(v.Path) == 0 {
			continue
		}
		path, agent := agentPath(wt.bind.AgentPaths, v.Path)
		if !agent || !sent(body, v.Path, wt.bind.AgentPaths) || overlaps(es[:decoded], path) {
			continue
		}
		e := &ErrorEntry{Code: violationCode(v.RuleID), Field: path, Message: v.Message}
		if v.RuleID != "" {
			e.Details = map[string]any{"rule_id": v.RuleID}
		}
		es = append(es, e)
	}
	return es
}

// overlaps reports a problem already on path, inside it or around it.
func overlaps(es Errors, path string) bool {
	for _, e := range es {
		if e == nil {
			continue
		}
		if e.Field == path || within(e.Field, path) || within(path, e.Field) {
			return true
		}
	}
	return false
}

// within reports whether path a lies inside path b (b.x, b[0]).
func within(a, b string) bool {
	return b != "" && len(a) > len(b) && strings.HasPrefix(a, b) && (a[len(b)] == '.' || a[len(b)] == '[')
}
