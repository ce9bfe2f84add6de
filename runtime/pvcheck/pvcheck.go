// Package pvcheck runs protovalidate (buf.build/go/protovalidate) as the
// request check of generated tools: after enrichment, the complete request
// is validated with every buf.validate rule, CEL and message rules
// included, and each violation reaches the agent as an envelope entry.
// Generated code wires it in for protos that import
// buf/validate/validate.proto; it lives apart from the runtime so that
// services without buf.validate do not link CEL.
package pvcheck

import (
	"errors"
	"strconv"

	"buf.build/gen/go/bufbuild/protovalidate/protocolbuffers/go/buf/validate"
	"buf.build/go/protovalidate"
	"google.golang.org/protobuf/proto"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcpwriteimpl"
)

// checker is one protovalidate validator, shared by every call.
type checker struct{ v protovalidate.Validator }

// New builds the validator once, compiling the rules of msgs (the request
// messages) up front so no call pays for it and a rule that does not
// compile fails registration.
func New(msgs ...proto.Message) (mcpwriteimpl.RequestChecker, error) {
	v, err := protovalidate.New(protovalidate.WithMessages(msgs...), protovalidate.WithDisableLazy())
	if err != nil {
		return nil, err
	}
	return checker{v: v}, nil
}

// Check validates req and returns its violations.
func (c checker) Check(req proto.Message) ([]mcpwriteimpl.Violation, error) {
	err := c.v.Validate(req)
	if err == nil {
		return nil, nil
	}
	var ve *protovalidate.ValidationError
	if !errors.As(err, &ve) {
		return nil, err
	}
	out := make([]mcpwriteimpl.Violation, 0, len(ve.Violations))
	for _, v := range ve.Violations {
		p := v.Proto
		out = append(out, mcpwriteimpl.Violation{Path: steps(p.GetField()), RuleID: p.GetRuleId(), Message: p.GetMessage()})
	}
	return out, nil
}

// steps turns a protovalidate field path into runtime path steps.
func steps(fp *validate.FieldPath) []mcpwriteimpl.PathStep {
	var out []mcpwriteimpl.PathStep
	for _, e := range fp.GetElements() {
		s := mcpwriteimpl.PathStep{Field: e.GetFieldName()}
		switch sub := e.GetSubscript().(type) {
		case *validate.FieldPathElement_Index:
			s.Subscript = "[" + strconv.FormatUint(sub.Index, 10) + "]"
		case *validate.FieldPathElement_StringKey:
			s.Subscript = "[" + strconv.Quote(sub.StringKey) + "]"
		case *validate.FieldPathElement_IntKey:
			s.Subscript = "[" + strconv.FormatInt(sub.IntKey, 10) + "]"
		case *validate.FieldPathElement_UintKey:
			s.Subscript = "[" + strconv.FormatUint(sub.UintKey, 10) + "]"
		case *validate.FieldPathElement_BoolKey:
			s.Subscript = "[" + strconv.FormatBool(sub.BoolKey) + "]"
		}
		out = append(out, s)
	}
	return out
}
