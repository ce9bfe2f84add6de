package gen

import (
	"fmt"
	"strings"

	"google.golang.org/protobuf/compiler/protogen"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// checkConfirmationMessage checks a confirmation_message template against
// the request message: every {path} names a singular scalar or enum field
// through singular message fields, every {#path} a repeated or map field,
// every {preview.key} a non-empty key path. It returns the first problem.
func checkConfirmationMessage(tpl string, req *protogen.Message) error {
	for i := 0; i < len(tpl); {
		switch {
		case strings.HasPrefix(tpl[i:], "{{"), strings.HasPrefix(tpl[i:], "}}"):
			i += 2
		case tpl[i] == '}':
			return fmt.Errorf("a lone } at byte %d; write }} for a literal brace", i)
		case tpl[i] == '{':
			end := strings.IndexByte(tpl[i:], '}')
			if end < 0 {
				return fmt.Errorf("the placeholder at byte %d is not closed with }", i)
			}
			if err := checkPlaceholder(tpl[i+1:i+end], req.Desc); err != nil {
				return err
			}
			i += end + 1
		default:
			i++
		}
	}
	return nil
}

func checkPlaceholder(name string, md protoreflect.MessageDescriptor) error {
	if rest, ok := strings.CutPrefix(name, "preview."); ok {
		for _, k := range strings.Split(rest, ".") {
			if k == "" {
				return fmt.Errorf("{%s}: an empty preview key", name)
			}
		}
		return nil
	}
	count := strings.HasPrefix(name, "#")
	path := strings.TrimPrefix(name, "#")
	if path == "" {
		return fmt.Errorf("{%s}: name a request field, e.g. {%sid}", name, map[bool]string{true: "#", false: ""}[count])
	}
	segs := strings.Split(path, ".")
	for i, seg := range segs {
		fd := md.Fields().ByName(protoreflect.Name(seg))
		if fd == nil {
			return fmt.Errorf("{%s}: %s has no field %q (placeholders use proto field names)", name, md.FullName(), seg)
		}
		if i < len(segs)-1 {
			if fd.Message() == nil || fd.IsList() || fd.IsMap() {
				return fmt.Errorf("{%s}: %s is not a singular message field to descend into", name, seg)
			}
			md = fd.Message()
			continue
		}
		switch {
		case count && !fd.IsList() && !fd.IsMap():
			return fmt.Errorf("{%s}: %s is not a repeated or map field; drop the #", name, seg)
		case !count && (fd.IsList() || fd.IsMap()):
			return fmt.Errorf("{%s}: %s holds many values; write {#%s} for how many", name, seg, path)
		case !count && fd.Message() != nil:
			return fmt.Errorf("{%s}: %s is a message; name one of its scalar fields, e.g. {%s.%s}", name, seg, path, firstScalar(fd.Message()))
		}
	}
	return nil
}

// firstScalar names the first scalar or enum field of md, for examples.
func firstScalar(md protoreflect.MessageDescriptor) string {
	fs := md.Fields()
	for i := 0; i < fs.Len(); i++ {
		if f := fs.Get(i); f.Message() == nil && !f.IsList() && !f.IsMap() {
			return string(f.Name())
		}
	}
	return "field"
}
