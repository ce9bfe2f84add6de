package gen

// A field's own CEL rules ((buf.validate.field).cel) on its zero value:
// protovalidate, the request check itself, evaluates them on a message of
// the field's type with every field unset, so an omitted field is judged
// exactly as the request check will judge it.

import (
	"errors"
	"fmt"
	"sync"

	"buf.build/gen/go/bufbuild/protovalidate/protocolbuffers/go/buf/validate"
	"buf.build/go/protovalidate"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"
)

// zeroValidator is one protovalidate validator for the whole run.
var zeroValidator = sync.OnceValues(func() (protovalidate.Validator, error) { return protovalidate.New() })

// celZeroFails names the first CEL rule of fd that fails on its zero value
// ("" for none, or when the rules cannot be evaluated: the request check
// then refuses to start, which is where such a rule is reported).
func celZeroFails(r *validate.FieldRules, fd protoreflect.FieldDescriptor) string {
	if len(r.GetCel()) == 0 {
		return ""
	}
	v, err := zeroValidator()
	if err != nil {
		return ""
	}
	only := protovalidate.WithFilter(protovalidate.FilterFunc(func(_ protoreflect.Message, d protoreflect.Descriptor) bool {
		return d.FullName() == fd.FullName()
	}))
	err = v.Validate(dynamicpb.NewMessage(fd.ContainingMessage()), only)
	var ve *protovalidate.ValidationError
	if !errors.As(err, &ve) {
		return ""
	}
	for _, x := range ve.Violations {
		rule := x.Proto.GetRule().GetElements()
		if len(rule) == 0 || rule[0].GetFieldName() != "cel" || len(x.Proto.GetField().GetElements()) != 1 {
			continue
		}
		return fmt.Sprintf("cel %q", x.Proto.GetRuleId())
	}
	return ""
}
