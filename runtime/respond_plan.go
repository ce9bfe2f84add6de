package runtime

// The response encoder's plans: per message type, its fields with their
// member keys written out for both namings, built once and cached.

import (
	"errors"
	"sync"
	"sync/atomic"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/idempotency"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/impl"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// wkKind is how protojson renders a message.
type wkKind uint8

const (
	wkNone wkKind = iota
	wkTimestamp
	wkDuration
	wkWrapper
	wkStruct
	wkListValue
	wkValue
	wkDelegate // Any, FieldMask: rendered by protojson
)

// lookup is what the alias pass finds for a member's key: the field that
// wrote it, no field (nothing below is aliased), or another field (the
// encoder cannot follow; the response takes the protojson path).
type lookup uint8

const (
	lookupSame lookup = iota
	lookupNone
	lookupOther
)

// fieldPlan is one field of a message, with its member key written out for
// both namings (index 0 proto names, 1 JSON names).
type fieldPlan struct {
	fd     protoreflect.FieldDescriptor
	name   [2]string
	key    [2][]byte // quoted key and colon
	lookup [2]lookup
	// hasFirst: m.Has is asked before m.Get (a field with presence, whose
	// value does not tell it was set; a list or map, whose Get allocates
	// an empty one when unset).
	hasFirst bool
}

// msgPlan is how a message type is written; made once per type.
type msgPlan struct {
	wk          wkKind
	unsupported bool // may hold extensions
	noAlias     bool // google.protobuf.*: the alias pass skips it
	fields      []fieldPlan
	// lastLen is, by naming, the length of the last encoding that started
	// at this type (startEncode): the next one's buffer is made that big
	// (startCap) instead of growing to it.
	lastLen [2]atomic.Int32
}

// Bounds of an encoder's starting capacity.
const (
	minEncodeCap = 256
	maxEncodeCap = 64 << 10
)

// startCap is the capacity an encoding of p's type with naming starts
// with: the last one's length and an eighth (strings differ from one
// message to the next), at least minEncodeCap and at most maxEncodeCap.
func (p *msgPlan) startCap(naming int) int {
	n := int(p.lastLen[naming].Load())
	return min(max(n+n/8, minEncodeCap), maxEncodeCap)
}

// encoded records the length of an encoding of p's type for the next
// one's startCap.
func (p *msgPlan) encoded(naming, n int) {
	p.lastLen[naming].Store(int32(min(n, maxEncodeCap)))
}

var msgPlans sync.Map

// planFor returns the plan of md.
func planFor(md protoreflect.MessageDescriptor) *msgPlan {
	if p, ok := msgPlans.Load(md.FullName()); ok {
		if p := p.(*msgPlan); p != nil {
			return p
		}
	}
	p := newMsgPlan(md)
	msgPlans.Store(md.FullName(), p)
	return p
}

func newMsgPlan(md protoreflect.MessageDescriptor) *msgPlan {
	p := &msgPlan{wk: wellKnownKind(md.FullName()), noAlias: wellKnownJSON(md.FullName())}
	if md.ExtensionRanges().Len() > 0 {
		p.unsupported = true
	}
	fields := md.Fields()
	p.fields = make([]fieldPlan, fields.Len())
	for i := range fields.Len() {
		fd := fields.Get(i)
		f := &p.fields[i]
		f.fd, f.hasFirst = fd, fd.HasPresence() || fd.IsList() || fd.IsMap()
		f.name = [2]string{fd.TextName(), fd.JSONName()}
		for n, name := range f.name {
			f.key[n] = append(idempotency.AppendCanonicalString(nil, name), ':')
			got := fields.ByName(protoreflect.Name(name))
			if got == nil {
				got = fields.ByJSONName(name)
			}
			switch {
			case got == nil:
				f.lookup[n] = lookupNone
			case got == fd:
				f.lookup[n] = lookupSame
			default:
				f.lookup[n] = lookupOther
			}
		}
	}
	return p
}

// wellKnownKind is how protojson renders the message named n.
func wellKnownKind(n protoreflect.FullName) wkKind {
	if n.Parent() != "google.protobuf" {
		return wkNone
	}
	switch n.Name() {
	case "Timestamp":
		return wkTimestamp
	case "Duration":
		return wkDuration
	case "BoolValue", "Int32Value", "Int64Value", "UInt32Value", "UInt64Value",
		"FloatValue", "DoubleValue", "StringValue", "BytesValue":
		return wkWrapper
	case "Struct":
		return wkStruct
	case "ListValue":
		return wkListValue
	case "Value":
		return wkValue
	case "Any", "FieldMask":
		return wkDelegate
	}
	return wkNone
}

// errEncodeFallback: the response is rendered by the protojson path.
var errEncodeFallback = errors.New("response left to protojson")

// maxEncodeDepth bounds the nesting the encoder writes, well below the
// depth the protojson path's own parse accepts, so a deeper response takes
// that path and gets its answer.
const maxEncodeDepth = 48

// respEncoder writes one response.
type respEncoder struct {
	buf    []byte
	enums  map[string]*impl.EnumTable
	naming int // 0 proto names, 1 JSON names
	// shape says which unset fields are written at their zero value.
	shape answerShape
	depth int
}
