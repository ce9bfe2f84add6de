package runtime

// Field-path utilities over protoreflect: copying and clearing a dotted path
// and listing the fields two messages differ in, for staleness checks.

import (
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// comparableRequest is a copy of an enriched request without the fields that
// legitimately differ per call (generated IDs and timestamps, request-context
// metadata), so what remains is what the user confirmed about the world.
func comparableRequest(wt *boundTool, m proto.Message) proto.Message {
	c := proto.Clone(m)
	for _, f := range wt.doc.ServerFills {
		if f.Source == "generated" || f.Source == "context" {
			clearPath(c.ProtoReflect(), f.ProtoPath())
		}
	}
	return c
}

// nowFill is how the plugin describes a generated NOW field in server_fills.
const nowFill = "the current time"

// copyPath sets the field at a dotted proto path in dst to its value in src.
func copyPath(dst, src protoreflect.Message, path string) {
	for {
		name, rest, nested := cut(path)
		fd := dst.Descriptor().Fields().ByName(protoreflect.Name(name))
		if fd == nil || fd.IsList() || fd.IsMap() {
			return
		}
		if !nested {
			if src.Has(fd) {
				dst.Set(fd, src.Get(fd))
			}
			return
		}
		if fd.Message() == nil || !src.Has(fd) {
			return
		}
		dst, src, path = dst.Mutable(fd).Message(), src.Get(fd).Message(), rest
	}
}

// clearPath clears the field at a dotted proto path ("meta.created_at").
func clearPath(m protoreflect.Message, path string) {
	for {
		name, rest, nested := cut(path)
		fd := m.Descriptor().Fields().ByName(protoreflect.Name(name))
		if fd == nil {
			return
		}
		if !nested {
			m.Clear(fd)
			return
		}
		if fd.Message() == nil || fd.IsList() || fd.IsMap() || !m.Has(fd) {
			return
		}
		m, path = m.Mutable(fd).Message(), rest
	}
}

func cut(path string) (head, rest string, nested bool) {
	for i := 0; i < len(path); i++ {
		if path[i] == '.' {
			return path[:i], path[i+1:], true
		}
	}
	return path, "", false
}

// changedFields names the top-level fields that differ, for the agent.
func changedFields(a, b protoreflect.Message) []string {
	out := []string{}
	fields := a.Descriptor().Fields()
	for i := 0; i < fields.Len(); i++ {
		fd := fields.Get(i)
		x, y := a.New(), b.New()
		if a.Has(fd) {
			x.Set(fd, a.Get(fd))
		}
		if b.Has(fd) {
			y.Set(fd, b.Get(fd))
		}
		if !proto.Equal(x.Interface(), y.Interface()) {
			out = append(out, string(fd.Name()))
		}
	}
	return out
}
