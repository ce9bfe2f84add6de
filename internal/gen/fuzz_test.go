package gen_test

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"go/format"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime/debug"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"google.golang.org/genproto/googleapis/api/annotations"
	"google.golang.org/protobuf/compiler/protogen"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"
	"google.golang.org/protobuf/types/known/wrapperspb"
	"google.golang.org/protobuf/types/pluginpb"

	mcpwritev1 "github.com/mcpwrite/protoc-gen-mcpwrite/annotations/mcpwrite/v1"
	"github.com/mcpwrite/protoc-gen-mcpwrite/internal/gen"
	"github.com/mcpwrite/protoc-gen-mcpwrite/internal/plugintest"
)

// fzFile is the path of the generated proto file in every fuzz request.
const fzFile = "fz/v1/fz.proto"

// fzSrc hands out the fuzz input one decision at a time. An exhausted input
// reads as zeros, and zero always picks the first (simplest) choice, so a
// short input still describes a complete file.
type fzSrc struct {
	data []byte
	i    int
}

func (s *fzSrc) byte() byte {
	if s.i >= len(s.data) {
		return 0
	}
	b := s.data[s.i]
	s.i++
	return b
}

// intn returns a choice in [0, n).
func (s *fzSrc) intn(n int) int {
	if n <= 1 {
		return 0
	}
	return int(s.byte()) % n
}

// flag is true for an odd byte.
func (s *fzSrc) flag() bool { return s.byte()&1 == 1 }

// oneIn is true for about one byte in n (never for a zero byte).
func (s *fzSrc) oneIn(n int) bool {
	b := s.byte()
	return b != 0 && int(b)%n == 0
}

func (s *fzSrc) pick(xs []string) string { return xs[s.intn(len(xs))] }

// Vocabulary the fuzzer draws names and texts from: realistic names first,
// then hostile ones (collisions with service tools and control fields,
// keywords, non-identifiers, text that could break Go comments or strings).
var (
	fzFieldNames = []string{"name", "id", "type", "description", "layer", "owner", "tags", "labels", "parent_id",
		"created_at", "version", "meta", "tenant_id", "amount", "priority", "items", "profile", "kind",
		"dry_run", "client_request_id", "func", "Name", "parentId", "x_1", "_hidden"}
	fzMessageNames = []string{"CreateThingRequest", "Thing", "Meta", "Profile", "Line", "Resp", "Empty", "Request"}
	fzEnumNames    = []string{"Kind", "Layer", "Priority", "Status", "Type"}
	fzValueNames   = []string{"UNSPECIFIED", "A", "BETA", "APPLICATION_COMPONENT", "HIGH", "X_Y", "ONE_2", "LOW", "DATA_OBJECT"}
	fzTexts        = []string{"", "Thing name", "with \"quotes\" and \\ backslash", "line one\nline two", "*/ closes a comment",
		"// starts a comment", "`raw` ${x} %s %v", "résumé 🚀", "\x00nul", strings.Repeat("long ", 80), "</script>", "\u2028sep"}
	fzToolNames = []string{"", "do_it", "createThing", "validate_write", "get_write_schema", "apply_proposal", "bad name",
		strings.Repeat("x", 70), "a/b", "Do"}
	fzResolvers = []string{"active_model", "current_version", "BadName", "", "x_y_z", "func", "_", "type"}
	fzLiterals  = []string{`"x"`, `1`, `-1.5`, `true`, `null`, `[]`, `{}`, `"A"`, `nope`, `"unterminated`, `1e999`, ``,
		`"2026-01-02T03:04:05Z"`, `"\u0000"`, `{"a":1}`, `[1,2]`}
	fzPatterns = []string{"^[a-z]+$", "(", "", `\d{2,}`, "[[:alpha:]]", "^a`b$"}
	fzPrefixes = []string{"", "el_", "x-", "\"q\"", "ünï"}
	fzParams   = []string{"", "strict", "strict=false", "paths=source_relative", "strict=maybe", "unknown=1"}
)

// fzDeps are the files every fuzz proto may import, in dependency order.
var fzDeps = sync.OnceValue(func() []*descriptorpb.FileDescriptorProto {
	return []*descriptorpb.FileDescriptorProto{
		protodesc.ToFileDescriptorProto(descriptorpb.File_google_protobuf_descriptor_proto),
		protodesc.ToFileDescriptorProto(mcpwritev1.File_mcpwrite_v1_mcpwrite_proto),
		protodesc.ToFileDescriptorProto(timestamppb.File_google_protobuf_timestamp_proto),
		protodesc.ToFileDescriptorProto(structpb.File_google_protobuf_struct_proto),
		protodesc.ToFileDescriptorProto(anypb.File_google_protobuf_any_proto),
		protodesc.ToFileDescriptorProto(wrapperspb.File_google_protobuf_wrappers_proto),
		protodesc.ToFileDescriptorProto(annotations.File_google_api_field_behavior_proto),
	}
})

// fzRef is a type a field can have.
type fzRef struct {
	typ  descriptorpb.FieldDescriptorProto_Type
	name string // type_name for enums and messages
}

// fzBuild turns fuzz input into a CodeGeneratorRequest for one annotated
// proto file (plus its imports), round-tripped through the wire form as
// protoc delivers it. goPackage overrides the go_package option when set.
func fzBuild(data []byte, goPackage string) (*pluginpb.CodeGeneratorRequest, error) {
	s := &fzSrc{data: data}
	fd := &descriptorpb.FileDescriptorProto{
		Name:    proto.String(fzFile),
		Package: proto.String("fz.v1"),
		Options: &descriptorpb.FileOptions{GoPackage: proto.String("example.com/fz/v1;fzv1")},
	}
	for _, d := range fzDeps() {
		fd.Dependency = append(fd.Dependency, d.GetName())
	}
	switch s.intn(3) {
	case 0:
		fd.Syntax = proto.String("proto3")
	case 1:
		fd.Syntax = proto.String("proto2")
	case 2:
		fd.Syntax = proto.String("editions")
		fd.Edition = descriptorpb.Edition_EDITION_2023.Enum()
	}
	syntax := fd.GetSyntax()
	if s.oneIn(16) {
		fd.Options.GoPackage = proto.String(s.pick([]string{"example.com/fz-v1", "example.com/fz/v1;type", "fz"}))
	}
	if goPackage != "" {
		fd.Options.GoPackage = proto.String(goPackage)
	}

	// Enums, with every value's full name kept for implies and pairs.
	var enumNames, valueFull []string
	var valueAliases []string
	nEnums := 1 + s.intn(3)
	used := map[string]bool{}
	for i := 0; i < nEnums; i++ {
		name := fzUnique(used, s.pick(fzEnumNames))
		prefix := strings.ToUpper(name) + "_"
		ed := &descriptorpb.EnumDescriptorProto{Name: proto.String(name)}
		nVals := 1 + s.intn(5)
		for j := 0; j < nVals; j++ {
			vn := fzUnique(used, prefix+"UNSPECIFIED")
			if j > 0 {
				vn = fzUnique(used, prefix+s.pick(fzValueNames))
			}
			ed.Value = append(ed.Value, &descriptorpb.EnumValueDescriptorProto{Name: proto.String(vn), Number: proto.Int32(int32(j))})
			valueFull = append(valueFull, "fz.v1."+name+"."+vn)
		}
		if nVals > 2 && s.oneIn(8) {
			// An alias: two names for one number.
			ed.Options = &descriptorpb.EnumOptions{AllowAlias: proto.Bool(true)}
			ed.Value[nVals-1].Number = proto.Int32(1)
		}
		enumNames = append(enumNames, name)
		fd.EnumType = append(fd.EnumType, ed)
	}
	// Enum and value rules, once every value name is known.
	for _, ed := range fd.EnumType {
		if s.flag() {
			r := &mcpwritev1.EnumRules{}
			if s.flag() {
				r.Discovery = proto.Bool(true)
			}
			if s.flag() {
				r.GroupBy = proto.String("fz.v1." + s.pick(append(enumNames, "Nope")))
			}
			if s.oneIn(3) {
				r.DiscoveryTool = proto.String(s.pick(fzToolNames))
			}
			if s.oneIn(4) {
				r.Hint = proto.String(s.pick(fzTexts))
			}
			if s.oneIn(4) {
				r.PairsOf = proto.String("fz.v1." + s.pick(append(enumNames, "Nope")))
			}
			if ed.Options == nil {
				ed.Options = &descriptorpb.EnumOptions{}
			}
			proto.SetExtension(ed.Options, mcpwritev1.E_Enum, r)
		}
		for _, v := range ed.Value {
			if !s.flag() {
				continue
			}
			r := &mcpwritev1.EnumValueRules{}
			if s.flag() {
				a := s.pick([]string{"Alpha", "Beta", "Same", "", "with space", "Kind"})
				r.Alias = proto.String(a)
				valueAliases = append(valueAliases, a)
			}
			if s.oneIn(3) {
				r.Synonyms = []string{s.pick([]string{"Syn", "Same", "alpha", ""})}
			}
			if s.oneIn(3) {
				r.Description = proto.String(s.pick(fzTexts))
			}
			for n := s.intn(3); n > 0; n-- {
				r.Implies = append(r.Implies, s.pick(append(valueFull, "fz.v1.Nope.X", "NOT_QUALIFIED", "")))
			}
			if s.oneIn(8) {
				r.Hidden = proto.Bool(true)
			}
			if s.oneIn(6) {
				r.ValidPairs = append(r.ValidPairs, &mcpwritev1.EnumValueRules_Pair{
					Source: proto.String(s.pick(append(valueAliases, "Alpha", "Nope"))),
					Target: proto.String(s.pick(append(valueAliases, "Beta", ""))),
				})
			}
			v.Options = &descriptorpb.EnumValueOptions{}
			proto.SetExtension(v.Options, mcpwritev1.E_Value, r)
		}
	}

	// Messages: names first, so fields can refer to any of them.
	nMsgs := 2 + s.intn(4)
	var msgNames []string
	usedMsg := map[string]bool{}
	for i := 0; i < nMsgs; i++ {
		msgNames = append(msgNames, fzUnique(usedMsg, s.pick(fzMessageNames)))
	}
	scalars := []descriptorpb.FieldDescriptorProto_Type{
		descriptorpb.FieldDescriptorProto_TYPE_STRING, descriptorpb.FieldDescriptorProto_TYPE_INT32,
		descriptorpb.FieldDescriptorProto_TYPE_INT64, descriptorpb.FieldDescriptorProto_TYPE_UINT32,
		descriptorpb.FieldDescriptorProto_TYPE_BOOL, descriptorpb.FieldDescriptorProto_TYPE_DOUBLE,
		descriptorpb.FieldDescriptorProto_TYPE_FLOAT, descriptorpb.FieldDescriptorProto_TYPE_BYTES,
		descriptorpb.FieldDescriptorProto_TYPE_SINT64, descriptorpb.FieldDescriptorProto_TYPE_FIXED32,
	}
	wellKnown := []string{".google.protobuf.Timestamp", ".google.protobuf.Struct", ".google.protobuf.Any",
		".google.protobuf.StringValue", ".google.protobuf.Value"}
	randomRef := func() fzRef {
		switch s.intn(4) {
		case 0, 1:
			return fzRef{typ: scalars[s.intn(len(scalars))]}
		case 2:
			return fzRef{typ: descriptorpb.FieldDescriptorProto_TYPE_ENUM, name: ".fz.v1." + s.pick(enumNames)}
		default:
			if s.oneIn(3) {
				return fzRef{typ: descriptorpb.FieldDescriptorProto_TYPE_MESSAGE, name: s.pick(wellKnown)}
			}
			return fzRef{typ: descriptorpb.FieldDescriptorProto_TYPE_MESSAGE, name: ".fz.v1." + s.pick(msgNames)}
		}
	}
	for _, mn := range msgNames {
		md := &descriptorpb.DescriptorProto{Name: proto.String(mn)}
		nFields := s.intn(7)
		usedField := map[string]bool{}
		var fieldNames []string
		for j := 0; j < nFields; j++ {
			fname := fzUnique(usedField, s.pick(fzFieldNames))
			fieldNames = append(fieldNames, fname)
			ref := randomRef()
			f := &descriptorpb.FieldDescriptorProto{
				Name:     proto.String(fname),
				Number:   proto.Int32(int32(j + 1)),
				Label:    descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL.Enum(),
				Type:     ref.typ.Enum(),
				JsonName: proto.String(fzJSONName(fname)),
			}
			if ref.name != "" {
				f.TypeName = proto.String(ref.name)
			}
			switch s.intn(6) {
			case 1:
				f.Label = descriptorpb.FieldDescriptorProto_LABEL_REPEATED.Enum()
			case 2:
				// A map: a nested entry message, as protoc writes it.
				entry := fzMapEntryName(fname)
				key := []descriptorpb.FieldDescriptorProto_Type{descriptorpb.FieldDescriptorProto_TYPE_STRING,
					descriptorpb.FieldDescriptorProto_TYPE_INT32, descriptorpb.FieldDescriptorProto_TYPE_BOOL}[s.intn(3)]
				val := randomRef()
				vf := &descriptorpb.FieldDescriptorProto{Name: proto.String("value"), Number: proto.Int32(2),
					Label: descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL.Enum(), Type: val.typ.Enum(), JsonName: proto.String("value")}
				if val.name != "" {
					vf.TypeName = proto.String(val.name)
				}
				md.NestedType = append(md.NestedType, &descriptorpb.DescriptorProto{
					Name: proto.String(entry),
					Field: []*descriptorpb.FieldDescriptorProto{
						{Name: proto.String("key"), Number: proto.Int32(1), Label: descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL.Enum(), Type: key.Enum(), JsonName: proto.String("key")},
						vf,
					},
					Options: &descriptorpb.MessageOptions{MapEntry: proto.Bool(true)},
				})
				f.Label = descriptorpb.FieldDescriptorProto_LABEL_REPEATED.Enum()
				f.Type = descriptorpb.FieldDescriptorProto_TYPE_MESSAGE.Enum()
				f.TypeName = proto.String(".fz.v1." + mn + "." + entry)
			case 3:
				switch syntax {
				case "proto3":
					// Explicit presence: a synthetic oneof, as protoc writes it.
					f.Proto3Optional = proto.Bool(true)
					f.OneofIndex = proto.Int32(int32(len(md.OneofDecl)))
					md.OneofDecl = append(md.OneofDecl, &descriptorpb.OneofDescriptorProto{Name: proto.String("_" + fname)})
				case "proto2":
					f.Label = descriptorpb.FieldDescriptorProto_LABEL_REQUIRED.Enum()
				}
			case 4:
				// A member of a real oneof, declared before any synthetic one.
				// Members must be declared consecutively.
				if len(md.OneofDecl) == 0 {
					md.OneofDecl = append(md.OneofDecl, &descriptorpb.OneofDescriptorProto{Name: proto.String("choice")})
					f.OneofIndex = proto.Int32(0)
				} else if md.OneofDecl[0].GetName() == "choice" && len(md.Field) > 0 && md.Field[len(md.Field)-1].OneofIndex != nil &&
					md.Field[len(md.Field)-1].GetOneofIndex() == 0 {
					f.OneofIndex = proto.Int32(0)
				}
			}
			fzFieldOptions(s, f, &fieldNames, usedField)
			md.Field = append(md.Field, f)
		}
		fd.MessageType = append(fd.MessageType, md)
	}

	// One service (sometimes two) over random messages.
	nSvcs := 1
	if s.oneIn(8) {
		nSvcs = 2
	}
	for i := 0; i < nSvcs; i++ {
		sd := &descriptorpb.ServiceDescriptorProto{Name: proto.String(fmt.Sprintf("Svc%d", i))}
		nMethods := 1 + s.intn(4)
		usedMethod := map[string]bool{}
		for j := 0; j < nMethods; j++ {
			name := fzUnique(usedMethod, s.pick([]string{"CreateThing", "UpdateThing", "DeleteThing", "Do", "GetThing", "ArchiveThing"}))
			m := &descriptorpb.MethodDescriptorProto{
				Name:       proto.String(name),
				InputType:  proto.String(".fz.v1." + s.pick(msgNames)),
				OutputType: proto.String(".fz.v1." + s.pick(msgNames)),
			}
			if s.oneIn(16) {
				m.ClientStreaming = proto.Bool(true)
			}
			if s.oneIn(16) {
				m.ServerStreaming = proto.Bool(true)
			}
			if !s.oneIn(6) {
				m.Options = &descriptorpb.MethodOptions{}
				proto.SetExtension(m.Options, mcpwritev1.E_Tool, fzToolRules(s))
			}
			sd.Method = append(sd.Method, m)
		}
		if s.flag() {
			sd.Options = &descriptorpb.ServiceOptions{}
			proto.SetExtension(sd.Options, mcpwritev1.E_Service, fzServiceRules(s))
		}
		fd.Service = append(fd.Service, sd)
	}

	req := &pluginpb.CodeGeneratorRequest{FileToGenerate: []string{fzFile}}
	if p := s.pick(fzParams); p != "" && goPackage == "" {
		req.Parameter = proto.String(p)
	}
	req.ProtoFile = append(append(req.ProtoFile, fzDeps()...), fd)
	raw, err := proto.Marshal(req)
	if err != nil {
		return nil, err
	}
	out := &pluginpb.CodeGeneratorRequest{}
	if err := proto.Unmarshal(raw, out); err != nil {
		return nil, err
	}
	return out, nil
}

// fzFieldOptions attaches random mcpwrite field rules (and sometimes
// google.api.field_behavior) to f.
func fzFieldOptions(s *fzSrc, f *descriptorpb.FieldDescriptorProto, siblings *[]string, used map[string]bool) {
	sibling := func() string { return s.pick(append(*siblings, "nope", "")) }
	var rules *mcpwritev1.FieldRules
	switch s.intn(7) {
	case 1:
		a := &mcpwritev1.AgentSupplied{}
		if s.flag() {
			a.Required = proto.Bool(true)
		}
		if s.flag() {
			a.Description = proto.String(s.pick(fzTexts))
		}
		for n := s.intn(3); n > 0; n-- {
			a.Examples = append(a.Examples, s.pick(fzLiterals))
		}
		if s.oneIn(4) {
			a.Default = proto.String(s.pick(fzLiterals))
		}
		if s.oneIn(4) {
			a.MinLength = proto.Uint32(uint32(s.intn(5)))
		}
		if s.oneIn(4) {
			a.MaxLength = proto.Uint32(uint32(s.intn(300)))
		}
		if s.oneIn(4) {
			a.Pattern = proto.String(s.pick(fzPatterns))
		}
		if s.oneIn(5) {
			a.Minimum = proto.Float64(float64(int(s.byte()) - 128))
		}
		if s.oneIn(5) {
			a.Maximum = proto.Float64(float64(int(s.byte()) - 64))
		}
		if s.oneIn(5) {
			a.MinItems = proto.Uint32(uint32(s.intn(4)))
		}
		if s.oneIn(5) {
			a.MaxItems = proto.Uint32(uint32(s.intn(4)))
		}
		if s.oneIn(4) {
			a.Name = proto.String(s.pick([]string{"label", "name", "bad name", "x", "client_request_id", strings.Repeat("n", 65)}))
		}
		rules = &mcpwritev1.FieldRules{Kind: &mcpwritev1.FieldRules_Agent{Agent: a}}
	case 2:
		d := &mcpwritev1.Derived{}
		switch s.intn(5) {
		case 0:
			d.Source = &mcpwritev1.Derived_FromEnum{FromEnum: sibling()}
		case 1:
			d.Source = &mcpwritev1.Derived_Context{Context: mcpwritev1.Derived_ContextKey(s.intn(10))}
		case 2:
			d.Source = &mcpwritev1.Derived_Resolver{Resolver: s.pick(fzResolvers)}
		case 3:
			d.Source = &mcpwritev1.Derived_Constant{Constant: s.pick(fzLiterals)}
		}
		if s.flag() {
			d.Overridable = proto.Bool(true)
		}
		rules = &mcpwritev1.FieldRules{Kind: &mcpwritev1.FieldRules_Derived{Derived: d}}
	case 3:
		g := &mcpwritev1.Generated{Kind: mcpwritev1.Generated_Kind(s.intn(8)).Enum()}
		for n := s.intn(3); n > 0; n-- {
			g.From = append(g.From, sibling())
		}
		if s.oneIn(3) {
			g.Prefix = proto.String(s.pick(fzPrefixes))
		}
		if s.flag() {
			g.Overridable = proto.Bool(true)
		}
		rules = &mcpwritev1.FieldRules{Kind: &mcpwritev1.FieldRules_Generated{Generated: g}}
	case 4:
		e := &mcpwritev1.EnumAlias{}
		if s.flag() {
			e.Required = proto.Bool(true)
		}
		if s.oneIn(3) {
			e.Description = proto.String(s.pick(fzTexts))
		}
		e.Style = mcpwritev1.EnumAlias_Style(s.intn(5)).Enum()
		if s.oneIn(4) {
			e.Extra = map[string]string{s.pick([]string{"Legacy", "", "Alpha"}): s.pick([]string{"KIND_A", "NOPE", ""})}
		}
		if s.oneIn(4) {
			e.Default = proto.String(s.pick([]string{"Alpha", "A", "Nope", ""}))
		}
		rules = &mcpwritev1.FieldRules{Kind: &mcpwritev1.FieldRules_EnumAlias{EnumAlias: e}}
	case 5:
		rules = &mcpwritev1.FieldRules{Kind: &mcpwritev1.FieldRules_Hidden{Hidden: s.flag()}}
	}
	behavior := s.oneIn(8)
	if rules == nil && !behavior {
		return
	}
	f.Options = &descriptorpb.FieldOptions{}
	if rules != nil {
		proto.SetExtension(f.Options, mcpwritev1.E_Field, rules)
	}
	if behavior {
		b := []annotations.FieldBehavior{annotations.FieldBehavior_REQUIRED, annotations.FieldBehavior_OUTPUT_ONLY,
			annotations.FieldBehavior_IMMUTABLE}[s.intn(3)]
		proto.SetExtension(f.Options, annotations.E_FieldBehavior, []annotations.FieldBehavior{b})
	}
}

func fzToolRules(s *fzSrc) *mcpwritev1.ToolRules {
	r := &mcpwritev1.ToolRules{}
	if s.flag() {
		r.Kind = mcpwritev1.ToolRules_Kind(s.intn(6)).Enum()
	}
	if s.oneIn(3) {
		r.Name = proto.String(s.pick(fzToolNames))
	}
	if s.oneIn(4) {
		r.Title = proto.String(s.pick(fzTexts))
	}
	if s.oneIn(4) {
		r.Description = proto.String(s.pick(fzTexts))
	}
	if s.oneIn(4) {
		r.Classification = mcpwritev1.ToolRules_Classification(s.intn(6)).Enum()
	}
	if s.oneIn(4) {
		r.Confirmation = mcpwritev1.ToolRules_Confirmation(s.intn(5)).Enum()
	}
	for n := s.intn(3); n > 0 && s.flag(); n-- {
		r.NextSteps = append(r.NextSteps, s.pick(append(fzToolNames, "create_thing", "update_thing")))
	}
	if s.oneIn(4) {
		r.RetryOnConflict = proto.Bool(s.flag())
	}
	if s.oneIn(6) {
		r.MaxConflictRetries = proto.Uint32(uint32(s.intn(12)))
	}
	if s.oneIn(3) {
		r.Result = proto.String(s.pick(append(fzFieldNames, "")))
	}
	for _, h := range []**bool{&r.ReadOnlyHint, &r.DestructiveHint, &r.IdempotentHint, &r.OpenWorldHint} {
		if s.oneIn(6) {
			*h = proto.Bool(s.flag())
		}
	}
	for n := s.intn(3); n > 0 && s.oneIn(3); n-- {
		r.Examples = append(r.Examples, &mcpwritev1.ToolRules_Example{
			Description: proto.String(s.pick(fzTexts)),
			Input:       proto.String(s.pick([]string{`{}`, `{"name":"x"}`, `{"nope":1}`, `[]`, `not json`, `{"id":"a","type":"Alpha"}`})),
		})
	}
	if s.oneIn(8) {
		r.PairCheck = &mcpwritev1.PairCheck{
			Type:   proto.String(s.pick(append(fzFieldNames, ""))),
			Source: proto.String(s.pick(append(fzFieldNames, ""))),
			Target: proto.String(s.pick(append(fzFieldNames, ""))),
		}
	}
	return r
}

func fzServiceRules(s *fzSrc) *mcpwritev1.ServiceRules {
	r := &mcpwritev1.ServiceRules{}
	if s.flag() {
		r.Expose = mcpwritev1.ServiceRules_Expose(s.intn(4)).Enum()
	}
	if s.flag() {
		r.ToolNaming = mcpwritev1.ServiceRules_ToolNaming(s.intn(5)).Enum()
	}
	if s.oneIn(4) {
		r.ToolPrefix = proto.String(s.pick([]string{"fz_", "", "bad prefix ", "x"}))
	}
	if s.oneIn(4) {
		r.DefaultConfirmation = mcpwritev1.ToolRules_Confirmation(s.intn(5)).Enum()
	}
	for _, name := range []**string{&r.ValidateTool, &r.SchemaTool, &r.ApplyTool, &r.DiscardTool} {
		if s.oneIn(8) {
			*name = proto.String(s.pick(fzToolNames))
		}
	}
	for _, omit := range []**bool{&r.OmitValidateTool, &r.OmitSchemaTool, &r.OmitApplyTool} {
		if s.oneIn(8) {
			*omit = proto.Bool(true)
		}
	}
	return r
}

// fzUnique returns name, or name with a numeric suffix when already used.
func fzUnique(used map[string]bool, name string) string {
	n := name
	for i := 2; used[n]; i++ {
		n = fmt.Sprintf("%s_%d", name, i)
	}
	used[n] = true
	return n
}

// fzJSONName is protoc's default json_name (lowerCamelCase).
func fzJSONName(name string) string {
	var b strings.Builder
	up := false
	for _, r := range name {
		if r == '_' {
			up = true
			continue
		}
		if up && r >= 'a' && r <= 'z' {
			r -= 'a' - 'A'
		}
		up = false
		b.WriteRune(r)
	}
	return b.String()
}

// fzMapEntryName is protoc's map entry message name (CamelCase + "Entry").
func fzMapEntryName(name string) string {
	j := fzJSONName(name)
	if j == "" {
		return "Entry"
	}
	return strings.ToUpper(j[:1]) + j[1:] + "Entry"
}

// fzRun runs the plugin as protoc-gen-mcpwrite does. ok is false when
// protogen refuses the descriptor set (protoc would never send it).
func fzRun(req *pluginpb.CodeGeneratorRequest) (resp *pluginpb.CodeGeneratorResponse, ok bool) {
	if _, err := protodesc.NewFiles(&descriptorpb.FileDescriptorSet{File: req.GetProtoFile()}); err != nil {
		return nil, false
	}
	cfg := gen.Config{}
	p, err := protogen.Options{ParamFunc: cfg.Set}.New(req)
	if err != nil {
		return nil, false
	}
	p.SupportedFeatures = uint64(pluginpb.CodeGeneratorResponse_FEATURE_PROTO3_OPTIONAL | pluginpb.CodeGeneratorResponse_FEATURE_SUPPORTS_EDITIONS)
	p.SupportedEditionsMinimum = descriptorpb.Edition_EDITION_PROTO2
	p.SupportedEditionsMaximum = descriptorpb.Edition_EDITION_2023
	if err := gen.Generate(p, cfg); err != nil {
		p.Error(err)
	}
	return gen.Response(p), true
}

// fzMeta is the 2020-12 metaschema, compiled once per process.
var fzMeta = sync.OnceValues(func() (*jsonschema.Schema, error) {
	return jsonschema.NewCompiler().Compile("https://json-schema.org/draft/2020-12/schema")
})

// fzDoc is the part of a generated document the fuzz checks read.
type fzDoc struct {
	Services []struct {
		Tools []struct {
			Name           string          `json:"name"`
			Kind           string          `json:"kind"`
			Classification string          `json:"classification"`
			Confirmation   string          `json:"confirmation"`
			InputSchema    json.RawMessage `json:"input_schema"`
			OutputSchema   json.RawMessage `json:"output_schema"`
		} `json:"tools"`
	} `json:"services"`
}

// The values a document may give a tool's kind, classification and
// confirmation.
var (
	fzKinds           = map[string]bool{"CREATE": true, "UPDATE": true, "DELETE": true, "ACTION": true}
	fzClassifications = map[string]bool{"SAFE_CREATE": true, "SAFE_UPDATE": true, "DESTRUCTIVE_UPDATE": true, "DESTRUCTIVE_DELETE": true}
	fzConfirmations   = map[string]bool{"DIRECT": true, "PROPOSAL": true, "ELICIT": true}
)

func fzFirstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// fzCheck asserts what every plugin response must satisfy and returns the
// problems found, empty when the response is sound.
func fzCheck(req *pluginpb.CodeGeneratorRequest, resp *pluginpb.CodeGeneratorResponse) []string {
	var probs []string
	if resp.Error != nil {
		if resp.GetError() == "" {
			probs = append(probs, "empty error message")
		}
		// protogen's own check caught invalid Go: a generator bug, not an
		// annotation mistake reported by file, message and field.
		if strings.Contains(resp.GetError(), "unparsable Go source") {
			probs = append(probs, "the plugin generated Go that does not parse: "+fzFirstLine(resp.GetError()))
		}
		if len(resp.File) != 0 {
			probs = append(probs, fmt.Sprintf("error %q reported with %d files emitted", resp.GetError(), len(resp.File)))
		}
		return probs
	}
	strict := req.GetParameter() == "strict"
	meta, err := fzMeta()
	if err != nil {
		return []string{"metaschema: " + err.Error()}
	}
	seen := map[string]bool{}
	for _, f := range resp.File {
		name, content := f.GetName(), []byte(f.GetContent())
		if seen[name] {
			probs = append(probs, name+" emitted twice")
		}
		seen[name] = true
		switch {
		case strings.HasSuffix(name, ".mcpwrite.go"):
			formatted, err := format.Source(content)
			if err != nil {
				probs = append(probs, fmt.Sprintf("%s does not parse: %v", name, err))
			} else if !bytes.Equal(formatted, content) {
				probs = append(probs, name+" is not gofmt-clean")
			}
		case strings.HasSuffix(name, ".mcpwrite.json"):
			var doc fzDoc
			if err := json.Unmarshal(content, &doc); err != nil {
				probs = append(probs, fmt.Sprintf("%s does not parse: %v", name, err))
				continue
			}
			for _, svc := range doc.Services {
				for _, tool := range svc.Tools {
					// The runtime knows these names only; any other value is
					// silently replaced by a default there.
					if !fzKinds[tool.Kind] || !fzClassifications[tool.Classification] || !fzConfirmations[tool.Confirmation] {
						probs = append(probs, fmt.Sprintf("%s: tool %s: kind %q, classification %q, confirmation %q: not all known values",
							name, tool.Name, tool.Kind, tool.Classification, tool.Confirmation))
					}
					for which, raw := range map[string]json.RawMessage{"input": tool.InputSchema, "output": tool.OutputSchema} {
						inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
						if err != nil {
							probs = append(probs, fmt.Sprintf("%s: tool %s: %s schema does not parse: %v", name, tool.Name, which, err))
							continue
						}
						if err := meta.Validate(inst); err != nil {
							probs = append(probs, fmt.Sprintf("%s: tool %s: %s schema is not valid 2020-12: %v", name, tool.Name, which, err))
						}
					}
					if lint := gen.LintSchema(tool.Name, tool.InputSchema); strict && len(lint) > 0 {
						probs = append(probs, fmt.Sprintf("%s: strict run emitted lint findings %q", name, lint))
					}
				}
			}
		default:
			probs = append(probs, "unexpected output file "+name)
		}
	}
	return probs
}

// fzSeeds are inputs that each build a valid file the plugin accepts,
// chosen to cover the syntaxes and fill kinds between them;
// TestSeededCasesCompile builds their output.
var fzSeeds = []struct {
	name string
	data []byte
}{
	{"proto3: one tool over an empty message (all-zero input)", []byte{}},
	{"editions: two services, resolver, map, nested message, enum alias, elicit", fzHex("c5e75e1483196bba04223a3afd74b0c77f7aca932b208d3e572d0843bbe6b108c3aee02d61e2fe437ded848bb2c5aa46d526ec0e50287de4353b254dfc6ec7107627e2353d4b3cad250731dccbfb")},
	{"proto3: context-derived field, required fields, tool examples, list (a string example)", fzHex("3c3dda16e16fbb782d6829b1b484d496d67dd1e7cc643bb1b0bc8d027be1ba56c6736851a56a4bfb3f0f164b9280e1e5e9ac44443ef243f110135b9b410f9914b12b1161797d4700317f792fa97cfea17b09f86032e3bf515616a80f72df579b91af9709e539b53ccbaefcb2c87692")},
	{"proto2: discovery tool, timestamp, map, nested message", fzHex("4052ff94cbb48c45b0b5a766a90088ae74bae1fc2c956c64135c1208fcd4b9487a78beec893b03231a8e60f59796715a9701c631517e625bbc03fb4504fe88409a75c00be7d8aad3c73fe5dceba820d28e29ad5fd2196158b688fa43d4d6d3a5e2d9c98a99")},
	{"proto3: generated ULID, resolver, enum alias, list", fzHex("b474a8e0e51f014d2ca240ec7c52700152ed46ddff790e2549c855d08440817d56b624395328e2e13876b024987dc2991659c934227ce483ace0464149d3c3be64cccd4b8e568e")},
	{"editions: derived constant, map, nested message", fzHex("92f134355693073308e86db37965a3a3b25e9c41eae58cb435cfd1a9b75d21976781afac4e1dc8d336aeacda3dbb837dbb7b80f6b06f4f74fc0a0b3a8f6c569ecb84cfb6aa840d")},
	{"proto2: generated NOW, list", fzHex("d637facc11bda4953dc859e73e82195e741072d56bb2ed5aa7c88df5bdd1a935bedd17a0adf049e239f04ce6c688ccbdefb581487b5504ba61b702009a1453825065d3e26e8739e125bc7c7b86ae7c143dd86ca1fdcf19a7f167e1b3bf0a8b")},
	{"proto2: proposal confirmation", fzHex("b8b7ad164881a31853e56ee01e70dcdc14e644b52109ef6c8c88417eab3664089510641c2d4b463cd5795a66a1da703fb7655b7af135915cc34979164cee326defe2e133945a7a94ccebc8855b7a246bd7178c265d83ba7cfa1e1c50982084206d")},
	{"editions: generated UUID v7", fzHex("2fa57611a73a46d621f41012dc8fc3ea96acf30d8126f83fed88db43593eef4b12774e3886c6ab91a27d8961f27d80597c8992cadc433a3f4a4edc94a984b477f842ea4dfaf21799f2066003c693896ce14fcb6a3e2998a7656587f2ef3efc15e14c5d6a6982cd63dcca620dc1f00ebd292f337a567a7ea49c5093b117a2")},
}

// fzHex decodes a seed written in hex.
func fzHex(s string) []byte {
	b, err := hex.DecodeString(s)
	if err != nil {
		panic(err)
	}
	return b
}

func FuzzGenerate(f *testing.F) {
	for _, sd := range fzSeeds {
		f.Add(sd.data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		// A panic fails this input only, so a committed crasher does not
		// hide the package's other tests.
		defer func() {
			if r := recover(); r != nil {
				t.Fatalf("the plugin panicked (it must report annotation mistakes as errors): %v\n%s", r, debug.Stack())
			}
		}()
		req, err := fzBuild(data, "")
		if err != nil {
			t.Fatalf("build request: %v", err)
		}
		resp, ok := fzRun(req)
		if !ok {
			t.Skip("protogen refuses this descriptor set")
		}
		if probs := fzCheck(req, resp); len(probs) > 0 {
			t.Fatalf("plugin output broken:\n%s", strings.Join(probs, "\n"))
		}
		again, _ := fzRun(proto.Clone(req).(*pluginpb.CodeGeneratorRequest))
		if !proto.Equal(resp, again) {
			t.Fatalf("a second run over the same request differs")
		}
	})
}

// fzModule is the module path; generated import paths under it map to
// directories of the module root.
const fzModule = "github.com/mcpwrite/protoc-gen-mcpwrite/"

// TestSeededCasesCompile builds the Go output of every seed, together with
// protoc-gen-go's output for the same file, inside this module, and runs go
// build and go vet over it: gofmt-clean output must also be valid Go that
// links against the runtime.
func TestSeededCasesCompile(t *testing.T) {
	if testing.Short() {
		t.Skip("builds generated code with the go command")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("module root %s: %v", root, err)
	}
	// Inside testdata, so ./... patterns never see it, but inside the module,
	// so an explicit path builds against this runtime; the same path every
	// run, so the go command's cache keeps what it compiled.
	dir, release, err := plugintest.CompileDir("testdata", "compile-cache")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(release)
	base := fzModule + "internal/gen/" + filepath.ToSlash(dir)
	for i, sd := range fzSeeds {
		goPkg := fmt.Sprintf("%s/s%d/fz/v1;fzv1", base, i)
		req, err := fzBuild(sd.data, goPkg)
		if err != nil {
			t.Fatalf("%s: %v", sd.name, err)
		}
		files, err := plugintest.RunWithGo(req)
		if err != nil {
			t.Fatalf("seed %d (%s): %v", i, sd.name, err)
		}
		var names []string
		for name, content := range files {
			names = append(names, name)
			rel, ok := strings.CutPrefix(name, fzModule)
			if !ok {
				t.Fatalf("seed %d (%s): output %s is outside the module", i, sd.name, name)
			}
			path := filepath.Join(root, filepath.FromSlash(rel))
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, content, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		sort.Strings(names)
		want := []string{
			fmt.Sprintf("%s/s%d/fz/v1/fz.pb.go", base, i),
			fmt.Sprintf("%s/s%d/fz/v1/fzv1mcpwrite/fz.mcpwrite.go", base, i),
			fmt.Sprintf("%s/s%d/fz/v1/fzv1mcpwrite/fz.mcpwrite.json", base, i),
		}
		if !reflect.DeepEqual(names, want) {
			t.Fatalf("seed %d (%s): files\n got %q\nwant %q", i, sd.name, names, want)
		}
	}
	pattern := "./internal/gen/" + filepath.ToSlash(dir) + "/..."
	// A pattern matching nothing builds nothing and still succeeds: count
	// the packages first (per seed, the .pb.go and the mcpwrite package).
	list := exec.Command(goTool, "list", pattern)
	list.Dir = root
	out, err := list.CombinedOutput()
	if err != nil {
		t.Fatalf("go list %s: %v\n%s", pattern, err, out)
	}
	if n := len(strings.Fields(string(out))); n != 2*len(fzSeeds) {
		t.Fatalf("go list %s: %d packages, want %d:\n%s", pattern, n, 2*len(fzSeeds), out)
	}
	for _, verb := range []string{"build", "vet"} {
		cmd := exec.Command(goTool, verb, pattern)
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("go %s %s: %v\n%s", verb, pattern, err, out)
		}
	}
}
