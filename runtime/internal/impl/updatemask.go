package impl

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"google.golang.org/genproto/googleapis/api/annotations"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/fieldmaskpb"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/suggest"
)

// CheckUpdateMask checks the update_mask (under key) of an AIP-134 Update
// request against its resource message and returns the mask the handler
// receives. Every path must name a field of the resource (dotted through
// singular messages; a map's key may follow the map) that an update can
// change: not OUTPUT_ONLY, IDENTIFIER or IMMUTABLE, and not identity, the
// field naming the resource. A path passes through each message once: it
// ends at a field whose message it has passed through already (a
// recursive message) and at a well-known type, as the paths the schema's
// pattern lists do. "*" (replace the whole resource) must be the
// only path. Every bad path is reported, with did_you_mean for a misspelt
// field. An absent or empty mask is derived from the resource's top-level
// fields the agent set (identity aside), in field-number order; a field
// set to its zero value is not seen as set, so an agent clearing one names
// it in the mask.
func CheckUpdateMask(d *Decoder, key string, mask *fieldmaskpb.FieldMask, resource proto.Message, identity string) *fieldmaskpb.FieldMask {
	return CheckUpdateMaskOwned(d, key, mask, resource, identity, nil)
}

// CheckUpdateMaskOwned is CheckUpdateMask for a resource some of whose
// fields the server fills by the project's own annotations (generated,
// derived, hidden): owned maps their full names to why, and a path naming
// one is refused as an OUTPUT_ONLY one is ("set by the server"); a derived
// mask leaves them out.
func CheckUpdateMaskOwned(d *Decoder, key string, mask *fieldmaskpb.FieldMask, resource proto.Message, identity string, owned map[string]string) *fieldmaskpb.FieldMask {
	rm := resource.ProtoReflect()
	if len(mask.GetPaths()) == 0 {
		if !rm.IsValid() {
			return mask
		}
		var fds []protoreflect.FieldDescriptor
		rm.Range(func(fd protoreflect.FieldDescriptor, _ protoreflect.Value) bool {
			if string(fd.Name()) != identity && owned[string(fd.FullName())] == "" {
				fds = append(fds, fd)
			}
			return true
		})
		sort.Slice(fds, func(i, j int) bool { return fds[i].Number() < fds[j].Number() })
		derived := &fieldmaskpb.FieldMask{Paths: []string{}}
		for _, fd := range fds {
			derived.Paths = append(derived.Paths, string(fd.Name()))
		}
		return derived
	}
	for _, p := range mask.GetPaths() {
		if p == "*" {
			if len(mask.GetPaths()) > 1 {
				d.report(key, &ErrorEntry{Code: CodeValidation, Message: `path "*" replaces the whole resource and must be the only path`})
			}
			continue
		}
		if e := maskPathError(rm.Descriptor(), p, identity, owned); e != nil {
			d.report(key, e)
		}
	}
	return mask
}

// maskPathError explains why path cannot be in an update mask of md; nil
// when it can.
func maskPathError(md protoreflect.MessageDescriptor, path, identity string, owned map[string]string) *ErrorEntry {
	segs := strings.Split(path, ".")
	passed := []protoreflect.MessageDescriptor{md}
	for i, seg := range segs {
		fd := md.Fields().ByName(protoreflect.Name(seg))
		if fd == nil {
			names := make([]string, md.Fields().Len())
			for j := range names {
				names[j] = string(md.Fields().Get(j).Name())
			}
			e := &ErrorEntry{Code: CodeValidation, Message: fmt.Sprintf("update_mask path %s: %s has no field %s", ClipQuote(path), md.FullName(), ClipQuote(seg))}
			if dym := suggest.Closest(seg, names, MaxDidYouMean); len(dym) > 0 {
				prefix := strings.Join(segs[:i], ".")
				for k := range dym {
					if prefix != "" {
						dym[k] = prefix + "." + dym[k]
					}
				}
				e.Message += fmt.Sprintf("; did you mean %q?", dym[0])
				e.Suggestions = &Suggestions{DidYouMean: dym}
			}
			return e
		}
		if why := notUpdatable(fd, i == 0 && string(fd.Name()) == identity, owned); why != "" {
			return &ErrorEntry{Code: CodeValidation, Message: fmt.Sprintf("update_mask path %s: field %s %s; leave it out of the mask", ClipQuote(path), fd.FullName(), why)}
		}
		if i == len(segs)-1 {
			return nil
		}
		switch {
		case fd.IsMap():
			if i == len(segs)-2 {
				return nil // a map key
			}
			return &ErrorEntry{Code: CodeValidation, Message: fmt.Sprintf("update_mask path %s: a map entry is replaced whole; end the path at its key", ClipQuote(path))}
		case fd.IsList() || fd.Message() == nil:
			return &ErrorEntry{Code: CodeValidation, Message: fmt.Sprintf("update_mask path %s: %s is %s, which has no fields to name", ClipQuote(path), fd.Name(), map[bool]string{true: "a repeated field", false: "not a message"}[fd.IsList()])}
		}
		if why := replacedWhole(fd.Message(), passed); why != "" {
			return &ErrorEntry{Code: CodeValidation, Message: fmt.Sprintf("update_mask path %s: %s is %s, which an update replaces whole; end the path at %s", ClipQuote(path), fd.Name(), why, ClipQuote(strings.Join(segs[:i+1], ".")))}
		}
		md = fd.Message()
		passed = append(passed, md)
	}
	return nil
}

// replacedWhole says why a mask path cannot name the fields of md, a
// message it reaches after passing through the messages passed, or "": md
// is a well-known type, or one of passed (a recursive message).
func replacedWhole(md protoreflect.MessageDescriptor, passed []protoreflect.MessageDescriptor) string {
	if strings.HasPrefix(string(md.FullName()), "google.protobuf.") {
		return "a " + string(md.FullName())
	}
	for _, p := range passed {
		if p.FullName() == md.FullName() {
			return "a " + string(md.FullName()) + " again (a recursive message)"
		}
	}
	return ""
}

// notUpdatable says why an update cannot change fd, or "".
func notUpdatable(fd protoreflect.FieldDescriptor, identity bool, owned map[string]string) string {
	if identity {
		return "names the resource to update"
	}
	if why := owned[string(fd.FullName())]; why != "" {
		return why
	}
	opts := fd.Options()
	if opts == nil || !proto.HasExtension(opts, annotations.E_FieldBehavior) {
		return ""
	}
	bs, _ := proto.GetExtension(opts, annotations.E_FieldBehavior).([]annotations.FieldBehavior)
	switch {
	case slices.Contains(bs, annotations.FieldBehavior_OUTPUT_ONLY):
		return "is OUTPUT_ONLY: the server sets it"
	case slices.Contains(bs, annotations.FieldBehavior_IDENTIFIER):
		return "is the resource's IDENTIFIER"
	case slices.Contains(bs, annotations.FieldBehavior_IMMUTABLE):
		return "is IMMUTABLE: it cannot change after the resource is created"
	}
	return ""
}
