package runtime

import (
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// MarshalRecordJSON returns m as protojson.Marshal writes it with its
// default options (JSON field names, enum value names, unpopulated fields
// left out), compact: what a domain stores beside a write, such as an
// outbox row's request and response. It walks m once with the encoder of
// the answers instead of through protojson's reflection and whitespace
// pass; what that encoder leaves to protojson (a top-level well-known
// type, a message with extension ranges, a value protojson refuses)
// takes protojson, whose error it returns.
func MarshalRecordJSON(m proto.Message) ([]byte, error) {
	if m != nil {
		if b, err := encodeRecordJSON(m.ProtoReflect()); err == nil {
			return b, nil
		}
	}
	b, err := messageJSON(m, true)
	return []byte(b), err
}

// encodeRecordJSON writes m as MarshalRecordJSON does, straight into one
// buffer (the answers' encoder with JSON names and no enum aliases), or
// fails with errEncodeFallback where protojson must write it.
func encodeRecordJSON(m protoreflect.Message) ([]byte, error) {
	p, e, err := startEncode(m, nil, answerShape{jsonNames: true})
	if err != nil {
		return nil, err
	}
	if err := e.message(m, false); err != nil {
		return nil, err
	}
	p.encoded(e.naming, len(e.buf))
	return e.buf, nil
}
