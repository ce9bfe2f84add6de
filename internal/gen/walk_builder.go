package gen

// The walk's state and the helpers every walk step shares: the problems
// it collects, the builder, the annotation rules it holds while a field is
// built, and small readers of protos and comments.

import (
	"fmt"
	"sort"
	"strings"

	"buf.build/gen/go/bufbuild/protovalidate/protocolbuffers/go/buf/validate"
	"google.golang.org/genproto/googleapis/api/annotations"
	"google.golang.org/protobuf/compiler/protogen"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	mcpwritev1 "github.com/mcpwrite/protoc-gen-mcpwrite/annotations/mcpwrite/v1"
	"github.com/mcpwrite/protoc-gen-mcpwrite/internal/naming"
)

// problems collects the user's annotation mistakes; each starts with the
// element's position (where: file:line:col) and names message or method,
// and field.
type problems struct {
	list []string
	// leftOut are the warnings of the methods expose: ALL left out
	// (walk_leaveout.go).
	leftOut []string
}

func (p *problems) addf(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	// A check that runs once per use (an enum used by two fields) reports
	// its problem once.
	for _, prev := range p.list {
		if prev == msg {
			return
		}
	}
	p.list = append(p.list, msg)
}

func (p *problems) fieldf(f *protogen.Field, format string, args ...any) {
	p.addf("%s: message %s: field %s: %s", where(f.Desc), f.Parent.Desc.FullName(), f.Desc.Name(), fmt.Sprintf(format, args...))
}

func (p *problems) methodf(m *protogen.Method, format string, args ...any) {
	p.addf("%s: method %s: %s", where(m.Desc), m.Desc.FullName(), fmt.Sprintf(format, args...))
}

func (p *problems) servicef(s *protogen.Service, format string, args ...any) {
	p.addf("%s: service %s: %s", where(s.Desc), s.Desc.FullName(), fmt.Sprintf(format, args...))
}

func (p *problems) messagef(m *protogen.Message, format string, args ...any) {
	p.addf("%s: message %s: %s", where(m.Desc), m.Desc.FullName(), fmt.Sprintf(format, args...))
}

func (p *problems) enumf(e *protogen.Enum, format string, args ...any) {
	p.addf("%s: enum %s: %s", where(e.Desc), e.Desc.FullName(), fmt.Sprintf(format, args...))
}

// builder walks one file's descriptors into a fileModel.
type builder struct {
	plugin   *protogen.Plugin
	file     *fileModel
	probs    *problems
	messages map[protoreflect.FullName]*messageModel
	// stack holds the message models being built, outermost first.
	stack  []*messageModel
	tables map[string]*enumTable
	enums  map[protoreflect.FullName]*protogen.Enum
	pairs  map[*enumTable]*pairRule
	// jsonNames: the file's services speak protojson field names
	// (field_naming: JSON_NAME); every message model follows.
	jsonNames bool
	// aip is the context of the request being built (aip_*.go).
	aip aipState
	// resources are the google.api.resource patterns by type (walk_aip_desc.go).
	resources map[string][]string
	// fieldRules are the annotation rules of the fields being built; the
	// model holds only the typed values resolved from them.
	fieldRules map[*fieldModel]*fieldRules
	// walkFailed: the walk reported problems, whose words state the
	// causes of a request rule that does not compile better than
	// protovalidate's (checkRequestRules).
	walkFailed bool
}

// fieldRules are a field's annotation rules as the walk resolves them: the
// agent rules (modeAgent; merged with buf.validate), the enum alias rules
// (modeEnumAlias) and the server rules (modeDerived, modeGenerated).
type fieldRules struct {
	agent     *mcpwritev1.AgentSupplied
	alias     *mcpwritev1.EnumAlias
	derived   *mcpwritev1.Derived
	generated *mcpwritev1.Generated
}

// ann returns fm's annotation rules, empty until the walk sets them.
func (b *builder) ann(fm *fieldModel) *fieldRules {
	if b.fieldRules == nil {
		b.fieldRules = map[*fieldModel]*fieldRules{}
	}
	r := b.fieldRules[fm]
	if r == nil {
		r = &fieldRules{}
		b.fieldRules[fm] = r
	}
	return r
}

// serviceRules and toolRules are a service's and a method's options, which
// the walk reads; the model holds only what it resolves from them.
func serviceRules(sm *serviceModel) *mcpwritev1.ServiceRules {
	return ext[*mcpwritev1.ServiceRules](sm.proto.Desc.Options(), mcpwritev1.E_Service)
}

func toolRules(t *toolModel) *mcpwritev1.ToolRules {
	return ext[*mcpwritev1.ToolRules](t.method.Desc.Options(), mcpwritev1.E_Tool)
}

func ext[T proto.Message](opts proto.Message, xt protoreflect.ExtensionType) T {
	var zero T
	if opts == nil || !proto.HasExtension(opts, xt) {
		return zero
	}
	v, _ := proto.GetExtension(opts, xt).(T)
	return v
}

// impliesName is how implies entries name a value: the enum's full name
// and the value name (archimate.v1.Layer.LAYER_STRATEGY), unlike protobuf
// scoping, which puts values beside their enum.
func impliesName(v *protogen.EnumValue) string {
	return string(v.Parent.Desc.FullName()) + "." + string(v.Desc.Name())
}

// impliedIn returns the value of enum e that v implies, if any.
func impliedIn(v *protogen.EnumValue, e *protogen.Enum) *protogen.EnumValue {
	vr := ext[*mcpwritev1.EnumValueRules](v.Desc.Options(), mcpwritev1.E_Value)
	for _, full := range vr.GetImplies() {
		for _, ev := range e.Values {
			if impliesName(ev) == full {
				return ev
			}
		}
	}
	return nil
}

func kindFromName(name string) toolKind {
	ws := naming.Words(name)
	if len(ws) == 0 {
		return kindAction
	}
	switch ws[0] {
	case "create", "add", "insert", "new", "register", "store":
		return kindCreate
	case "update", "set", "patch", "edit", "rename", "modify", "correct":
		return kindUpdate
	case "delete", "remove", "archive", "purge", "drop":
		return kindDelete
	}
	return kindAction
}

func capitalFirst(ws []string) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = w
		if i == 0 && w != "" {
			out[i] = strings.ToUpper(w[:1]) + w[1:]
		}
	}
	return out
}

// cleanComment turns a leading comment into one paragraph of text.
func cleanComment(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	var out []string
	for _, l := range lines {
		l = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(l), "//"))
		if l != "" {
			out = append(out, l)
		}
	}
	return strings.Join(out, " ")
}

// fieldBehaviors reads google.api.field_behavior when present.
func fieldBehaviors(f *protogen.Field) (outputOnly, required bool) {
	opts := f.Desc.Options()
	if opts == nil || !proto.HasExtension(opts, annotations.E_FieldBehavior) {
		return false, false
	}
	bs, _ := proto.GetExtension(opts, annotations.E_FieldBehavior).([]annotations.FieldBehavior)
	for _, fb := range bs {
		switch fb {
		case annotations.FieldBehavior_OUTPUT_ONLY:
			outputOnly = true
		case annotations.FieldBehavior_REQUIRED:
			required = true
		}
	}
	return outputOnly, required
}

// sortedKeys returns map keys in order (encoding/json's), for byte-stable
// output.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// aipState is the context of the request being built.
type aipState struct {
	// updateResource is the resource field of an Update tool's request.
	updateResource *protogen.Field
	// tool and service are the tool whose request is being built.
	tool    string
	service *protogen.Service
	// path are the message fields from the request to the message being
	// built.
	path []*protogen.Field
}

// wellKnown lists the google.protobuf messages decoded as JSON leaves.
var wellKnown = map[protoreflect.FullName]bool{
	"google.protobuf.Timestamp":   true,
	"google.protobuf.Duration":    true,
	"google.protobuf.FieldMask":   true,
	"google.protobuf.Struct":      true,
	"google.protobuf.Value":       true,
	"google.protobuf.ListValue":   true,
	"google.protobuf.DoubleValue": true,
	"google.protobuf.FloatValue":  true,
	"google.protobuf.Int64Value":  true,
	"google.protobuf.UInt64Value": true,
	"google.protobuf.Int32Value":  true,
	"google.protobuf.UInt32Value": true,
	"google.protobuf.BoolValue":   true,
	"google.protobuf.StringValue": true,
	"google.protobuf.BytesValue":  true,
}

// valueField is the field whose type describes the JSON value: the map value
// for maps, the field itself otherwise.
func valueField(f *protogen.Field) *protogen.Field {
	if f.Desc.IsMap() {
		return f.Message.Fields[1]
	}
	return f
}

// fieldName is the name agents see for f unless an annotation renames it:
// the proto name, or the protojson name under field_naming: JSON_NAME.
func (b *builder) fieldName(f *protogen.Field) string {
	if b.jsonNames {
		return f.Desc.JSONName()
	}
	return string(f.Desc.Name())
}

func (b *builder) findResolver(name string) (*resolverModel, bool) {
	for _, r := range b.file.resolvers {
		if r.name == name {
			return r, true
		}
	}
	return nil, false
}

func valueRules(v *protogen.EnumValue) *mcpwritev1.EnumValueRules {
	return ext[*mcpwritev1.EnumValueRules](v.Desc.Options(), mcpwritev1.E_Value)
}

func isWKT(f *protogen.Field) bool {
	return f.Message != nil && wellKnown[f.Message.Desc.FullName()]
}

// isListValue reports a singular google.protobuf.ListValue field: an array
// in a JSON-text position, whose item counts min_items and max_items bound.
func isListValue(f *protogen.Field) bool {
	return !f.Desc.IsList() && f.Message != nil && f.Message.Desc.FullName() == "google.protobuf.ListValue"
}

// fieldValidate returns the buf.validate rules of f, nil when none.
func fieldValidate(f *protogen.Field) *validate.FieldRules {
	return ext[*validate.FieldRules](f.Desc.Options(), validate.E_Field)
}

// oneofValidateRequired reports (buf.validate.oneof).required.
func oneofValidateRequired(od *protogen.Oneof) bool {
	return ext[*validate.OneofRules](od.Desc.Options(), validate.E_Oneof).GetRequired()
}
