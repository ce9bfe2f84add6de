package bench

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"strings"

	"google.golang.org/protobuf/encoding/protowire"
)

// The per-phase CPU figures read a standard pprof profile (profile.proto,
// gzipped, as runtime/pprof writes it) with this reader: it keeps what the
// figures need, each sample's values, its stack as function names (leaf
// first, inlined frames included) and its string labels.

// profSample is one sample of a profile.
type profSample struct {
	values []int64
	stack  []string          // function names, leaf first
	labels map[string]string // string labels
}

// profile is a parsed profile: its sample types and samples.
type profile struct {
	types   []string // the sample types' names ("cpu", "alloc_space", ...)
	samples []profSample
}

// value is sample s's value of type typ (0 when the profile has no such
// type).
func (p *profile) value(s profSample, typ string) int64 {
	for i, t := range p.types {
		if t == typ && i < len(s.values) {
			return s.values[i]
		}
	}
	return 0
}

// parseProfile reads a gzipped (or plain) profile.proto.
func parseProfile(raw []byte) (*profile, error) {
	if len(raw) > 2 && raw[0] == 0x1f && raw[1] == 0x8b {
		z, err := gzip.NewReader(bytes.NewReader(raw))
		if err != nil {
			return nil, err
		}
		if raw, err = io.ReadAll(z); err != nil {
			return nil, err
		}
	}
	var (
		strs      []string
		typeNames []int64
		samples   []struct {
			locs   []uint64
			values []int64
			labels [][2]int64
		}
		locLines  = map[uint64][]uint64{} // location id -> function ids, leaf first
		funcNames = map[uint64]int64{}    // function id -> name's string index
	)
	err := eachField(raw, func(num protowire.Number, typ protowire.Type, v uint64, b []byte) error {
		switch num {
		case 1: // sample_type
			return eachField(b, func(n protowire.Number, _ protowire.Type, v uint64, _ []byte) error {
				if n == 1 {
					typeNames = append(typeNames, int64(v))
				}
				return nil
			})
		case 2: // sample
			var s struct {
				locs   []uint64
				values []int64
				labels [][2]int64
			}
			err := eachField(b, func(n protowire.Number, t protowire.Type, v uint64, b []byte) error {
				switch n {
				case 1:
					s.locs = appendVarints(s.locs, t, v, b)
				case 2:
					for _, x := range appendVarints(nil, t, v, b) {
						s.values = append(s.values, int64(x))
					}
				case 3:
					var kv [2]int64
					err := eachField(b, func(n protowire.Number, _ protowire.Type, v uint64, _ []byte) error {
						if n == 1 || n == 2 {
							kv[n-1] = int64(v)
						}
						return nil
					})
					s.labels = append(s.labels, kv)
					return err
				}
				return nil
			})
			samples = append(samples, s)
			return err
		case 4: // location
			var id uint64
			var fns []uint64
			err := eachField(b, func(n protowire.Number, _ protowire.Type, v uint64, b []byte) error {
				switch n {
				case 1:
					id = v
				case 4: // line
					return eachField(b, func(n protowire.Number, _ protowire.Type, v uint64, _ []byte) error {
						if n == 1 {
							fns = append(fns, v)
						}
						return nil
					})
				}
				return nil
			})
			locLines[id] = fns
			return err
		case 5: // function
			var id uint64
			var name int64
			err := eachField(b, func(n protowire.Number, _ protowire.Type, v uint64, _ []byte) error {
				switch n {
				case 1:
					id = v
				case 2:
					name = int64(v)
				}
				return nil
			})
			funcNames[id] = name
			return err
		case 6: // string_table
			strs = append(strs, string(b))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	str := func(i int64) string {
		if i < 0 || int(i) >= len(strs) {
			return ""
		}
		return strs[i]
	}
	p := &profile{}
	for _, t := range typeNames {
		p.types = append(p.types, str(t))
	}
	for _, s := range samples {
		ps := profSample{values: s.values}
		for _, l := range s.locs {
			for _, f := range locLines[l] {
				ps.stack = append(ps.stack, str(funcNames[f]))
			}
		}
		for _, kv := range s.labels {
			if kv[1] != 0 {
				if ps.labels == nil {
					ps.labels = map[string]string{}
				}
				ps.labels[str(kv[0])] = str(kv[1])
			}
		}
		p.samples = append(p.samples, ps)
	}
	return p, nil
}

// eachField calls f with each field of the message b: a varint's value in
// v, a length-delimited field's bytes in b.
func eachField(b []byte, f func(num protowire.Number, typ protowire.Type, v uint64, b []byte) error) error {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return protowire.ParseError(n)
		}
		b = b[n:]
		var v uint64
		var val []byte
		switch typ {
		case protowire.VarintType:
			v, n = protowire.ConsumeVarint(b)
		case protowire.BytesType:
			val, n = protowire.ConsumeBytes(b)
		default:
			n = protowire.ConsumeFieldValue(num, typ, b)
		}
		if n < 0 {
			return protowire.ParseError(n)
		}
		b = b[n:]
		if err := f(num, typ, v, val); err != nil {
			return err
		}
	}
	return nil
}

// appendVarints appends a repeated varint field's values, packed or not.
func appendVarints(dst []uint64, typ protowire.Type, v uint64, b []byte) []uint64 {
	if typ != protowire.BytesType {
		return append(dst, v)
	}
	for len(b) > 0 {
		x, n := protowire.ConsumeVarint(b)
		if n < 0 {
			return dst
		}
		dst, b = append(dst, x), b[n:]
	}
	return dst
}

// The code a sample's time or bytes is charged to: the frame nearest the
// leaf that belongs to one of them (the standard library, the Go runtime
// and protobuf's reflection are charged to the code that called them).
const (
	codeOurs   = "ours"   // this module: runtime, generated code, the example domain
	codeDriver = "driver" // this module's benchmark load driver
	codePgx    = "pgx"    // the PostgreSQL driver
	codeSDK    = "sdk"    // the MCP SDKs
	codeHTTP   = "http"   // net/http and net
	codeOther  = "other"  // nothing of the above (GC workers, the scheduler)
)

// codeOf is the code a stack (leaf first) is charged to.
func codeOf(stack []string) string {
	for _, fn := range stack {
		switch {
		case strings.HasPrefix(fn, "github.com/mcpwrite/protoc-gen-mcpwrite/bench."):
			return codeDriver
		case strings.HasPrefix(fn, "github.com/mcpwrite/protoc-gen-mcpwrite/"):
			return codeOurs
		case strings.HasPrefix(fn, "github.com/jackc/"):
			return codePgx
		case strings.HasPrefix(fn, "github.com/modelcontextprotocol/"), strings.HasPrefix(fn, "github.com/mark3labs/"):
			return codeSDK
		case strings.HasPrefix(fn, "net/http."), strings.HasPrefix(fn, "net."):
			return codeHTTP
		}
	}
	return codeOther
}

// byLabelAndCode sums the samples' values of type typ by the value of
// label key and the code they are charged to ("" label: unlabelled).
func (p *profile) byLabelAndCode(typ, key string) map[string]map[string]int64 {
	out := map[string]map[string]int64{}
	for _, s := range p.samples {
		l := s.labels[key]
		if out[l] == nil {
			out[l] = map[string]int64{}
		}
		out[l][codeOf(s.stack)] += p.value(s, typ)
	}
	return out
}

// String lists the profile's totals by type, for a failure message.
func (p *profile) String() string {
	var b strings.Builder
	for i, t := range p.types {
		var sum int64
		for _, s := range p.samples {
			if i < len(s.values) {
				sum += s.values[i]
			}
		}
		fmt.Fprintf(&b, "%s=%d ", t, sum)
	}
	return fmt.Sprintf("%d samples: %s", len(p.samples), b.String())
}
