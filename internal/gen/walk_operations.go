package gen

// Long-running operations: a method that returns google.longrunning.Operation
// answers a handle, not its result. The model records what the operation
// eventually holds (google.longrunning.operation_info), the document and the
// description say it, and the service gets the operations tool that follows
// an operation by name (docs/operations.md).

import (
	"fmt"
	"strings"

	"google.golang.org/protobuf/compiler/protogen"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/schemadoc"
)

const (
	// operationMessage is the message a long-running method returns.
	operationMessage = "google.longrunning.Operation"
	// operationInfoField is the field number of the
	// google.longrunning.operation_info extension of MethodOptions.
	operationInfoField = 1049
	// operationsToolDefault is the operations tool's name before the
	// service's naming and tool_prefix.
	operationsToolDefault = "get_operation"
)

// operationOf reads a method's google.longrunning.operation_info; nil when
// the method does not return google.longrunning.Operation.
func operationOf(m *protogen.Method) *operationModel {
	if m.Output == nil || m.Output.Desc.FullName() != operationMessage {
		return nil
	}
	op := &operationModel{}
	resp, meta, ok := operationInfo(m.Desc.Options())
	if !ok {
		return op
	}
	fd := m.Desc.ParentFile()
	op.response, op.metadata = qualifyType(fd, resp), qualifyType(fd, meta)
	return op
}

// operationInfo reads the operation_info extension from the wire form of
// opts, so it is found whether or not its Go type is linked in.
func operationInfo(opts protoreflect.ProtoMessage) (response, metadata string, ok bool) {
	if opts == nil {
		return "", "", false
	}
	raw, err := proto.MarshalOptions{Deterministic: true}.Marshal(opts)
	if err != nil {
		return "", "", false
	}
	for len(raw) > 0 {
		num, typ, n := protowire.ConsumeTag(raw)
		if n < 0 {
			return "", "", false
		}
		raw = raw[n:]
		if num == operationInfoField && typ == protowire.BytesType {
			v, n := protowire.ConsumeBytes(raw)
			if n < 0 {
				return "", "", false
			}
			response, metadata = operationInfoFields(v)
			return response, metadata, true
		}
		n = protowire.ConsumeFieldValue(num, typ, raw)
		if n < 0 {
			return "", "", false
		}
		raw = raw[n:]
	}
	return "", "", false
}

// operationInfoFields reads OperationInfo's response_type (1) and
// metadata_type (2).
func operationInfoFields(b []byte) (response, metadata string) {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return response, metadata
		}
		b = b[n:]
		if typ == protowire.BytesType && (num == 1 || num == 2) {
			v, n := protowire.ConsumeBytes(b)
			if n < 0 {
				return response, metadata
			}
			if num == 1 {
				response = strings.TrimSpace(string(v))
			} else {
				metadata = strings.TrimSpace(string(v))
			}
			b = b[n:]
			continue
		}
		n = protowire.ConsumeFieldValue(num, typ, b)
		if n < 0 {
			return response, metadata
		}
		b = b[n:]
	}
	return response, metadata
}

// qualifyType is a type name of operation_info as a full name: as written
// when a file in scope defines it, else in the method's package when that
// defines it or when the name has no package (AIP-151 lets a type of the
// same package go unqualified).
func qualifyType(fd protoreflect.FileDescriptor, name string) string {
	name = strings.TrimPrefix(name, ".")
	if name == "" {
		return ""
	}
	if hasMessage(fd, protoreflect.FullName(name), map[string]bool{}) {
		return name
	}
	local := string(fd.Package()) + "." + name
	if hasMessage(fd, protoreflect.FullName(local), map[string]bool{}) || !strings.Contains(name, ".") {
		return local
	}
	return name
}

// hasMessage reports whether fd or a file it imports, transitively, defines
// the message name.
func hasMessage(fd protoreflect.FileDescriptor, name protoreflect.FullName, seen map[string]bool) bool {
	if seen[fd.Path()] {
		return false
	}
	seen[fd.Path()] = true
	if strings.HasPrefix(string(name), string(fd.Package())+".") && definesMessage(fd.Messages(), name) {
		return true
	}
	imps := fd.Imports()
	for i := 0; i < imps.Len(); i++ {
		if hasMessage(imps.Get(i).FileDescriptor, name, seen) {
			return true
		}
	}
	return false
}

// operationDoc is a tool's document entry for its operation; nil for a
// tool that is not long-running.
func operationDoc(t *toolModel) *schemadoc.Operation {
	op := t.operation
	if op == nil {
		return nil
	}
	d := &schemadoc.Operation{ResponseType: op.response, MetadataType: op.metadata}
	switch {
	case op.response == "" && op.metadata == "":
		d.Unknown = "the method declares no google.longrunning.operation_info"
	case op.response == "":
		d.Unknown = "operation_info names no response_type"
	case op.metadata == "":
		d.Unknown = "operation_info names no metadata_type"
	}
	return d
}

// operationSentence is what a long-running tool's description adds: what
// the answer is and what the operation eventually holds.
func operationSentence(t *toolModel) string {
	d := operationDoc(t)
	if d == nil {
		return ""
	}
	s := " Long-running: answers a google.longrunning.Operation (its name identifies it)"
	known := func(v string) string {
		if v == "" {
			return "unknown"
		}
		return v
	}
	if d.Unknown == "" {
		s += "; when done, its response is a " + d.ResponseType + " and its metadata a " + d.MetadataType + "."
	} else {
		s += "; when done, its response is " + known(d.ResponseType) + " and its metadata " + known(d.MetadataType) + " (" + d.Unknown + ")."
	}
	// How to follow it is the runtime's to say: the operations tool is
	// registered only when the handler can get operations.
	return s
}

// operationsTool names the service's operations tool when one of its tools
// is long-running; "" otherwise, and "" when a tool of the service's own
// already has that name (google.longrunning.Operations' GetOperation, or a
// service that exposes its own): that method already gets operations.
func operationsTool(sm *serviceModel) string {
	long := false
	for _, t := range sm.tools {
		long = long || t.operation != nil
	}
	if !long {
		return ""
	}
	name := toolName(sm.naming, serviceRules(sm).GetToolPrefix(), operationsToolDefault)
	for _, t := range sm.tools {
		if t.name == name {
			return ""
		}
	}
	return name
}

// operationWarnings are the long-running methods whose eventual types are
// unknown: an agent cannot tell what the operation will hold.
func operationWarnings(fm *fileModel) []string {
	var out []string
	for _, sm := range fm.services {
		for _, t := range sm.tools {
			d := operationDoc(t)
			if d == nil || d.Unknown == "" {
				continue
			}
			out = append(out, fmt.Sprintf("%s: method %s returns google.longrunning.Operation but %s: the tool says its eventual response or metadata type is unknown; declare option (google.longrunning.operation_info) = {response_type: \"...\" metadata_type: \"...\"}",
				where(t.method.Desc), t.method.Desc.FullName(), d.Unknown))
		}
	}
	return out
}

// definesMessage reports whether ms or a message nested in them is name.
func definesMessage(ms protoreflect.MessageDescriptors, name protoreflect.FullName) bool {
	for i := 0; i < ms.Len(); i++ {
		m := ms.Get(i)
		if m.FullName() == name || strings.HasPrefix(string(name), string(m.FullName())+".") && definesMessage(m.Messages(), name) {
			return true
		}
	}
	return false
}
