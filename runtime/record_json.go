package runtime

import (
	"google.golang.org/protobuf/proto"
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
		if fields, err := encodeResponseFields(m, nil, answerShape{jsonNames: true}); err == nil {
			return appendObjectJSON(make([]byte, 0, 256), fields)
		}
	}
	b, err := messageJSON(m, true)
	return []byte(b), err
}
