package gen

// Where a problem is: every error and warning of the plugin starts with the
// position of the element it is about, as buf and protoc print theirs
// (file:line:col, 1-based), so an editor jumps to it.

import (
	"fmt"

	"google.golang.org/protobuf/reflect/protoreflect"
)

// where returns d's position as "file:line:col" from the file's source
// info, or the file's path alone when the request carries no source info
// for d.
func where(d protoreflect.Descriptor) string {
	if d == nil {
		return ""
	}
	fd := d.ParentFile()
	if fd == nil {
		return string(d.FullName())
	}
	loc := fd.SourceLocations().ByDescriptor(d)
	if len(loc.Path) == 0 && loc.StartLine == 0 && loc.StartColumn == 0 {
		return fd.Path()
	}
	return fmt.Sprintf("%s:%d:%d", fd.Path(), loc.StartLine+1, loc.StartColumn+1)
}
