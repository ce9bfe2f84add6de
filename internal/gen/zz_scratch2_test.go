package gen_test

import (
	"encoding/hex"
	"fmt"
	"os"
	"strings"
	"testing"
	"runtime/debug"

	"google.golang.org/protobuf/encoding/prototext"
)

func panicKey(data []byte) (key string) {
	req, err := fzBuild(data, "")
	if err != nil { return "" }
	defer func() { if e := recover(); e != nil {
		st := string(debug.Stack())
		m := panicSite.FindStringSubmatch(st[strings.Index(st, "panic("):])
		key = fmt.Sprint(e)
		if m != nil { key += " @ " + m[1] }
	}}()
	fzRun(req)
	return ""
}

func TestScratchMin(t *testing.T) {
	for _, h := range strings.Fields(os.Getenv("PANICS")) {
		data, _ := hex.DecodeString(h)
		key := panicKey(data)
		t.Logf("key %s", key)
		// minimize: truncate, drop bytes, zero bytes
		changed := true
		for changed {
			changed = false
			for i := len(data) - 1; i >= 0; i-- {
				c := append(append([]byte{}, data[:i]...), data[i+1:]...)
				if panicKey(c) == key { data = c; changed = true }
			}
			for i := range data {
				if data[i] == 0 { continue }
				for _, v := range []byte{0, 1, 2, 3} {
					if v >= data[i] { break }
					c := append([]byte{}, data...); c[i] = v
					if panicKey(c) == key { data = c; changed = true; break }
				}
			}
		}
		req, _ := fzBuild(data, "")
		fd := req.ProtoFile[len(req.ProtoFile)-1]
		t.Logf("MIN %x (len %d) param=%q\n%s", data, len(data), req.GetParameter(), prototext.Format(fd))
	}
}
