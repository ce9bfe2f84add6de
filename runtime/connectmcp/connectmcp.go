// Package connectmcp is what the generated Connect client adapters call
// (plugin parameter connect=true) to turn a Connect error into the gRPC
// status the runtime reports to agents, details included. It keeps
// connectrpc.com/connect out of the core runtime.
package connectmcp

import (
	"errors"

	"connectrpc.com/connect"
	spb "google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/anypb"
)

// Error returns err as a gRPC status error when it is a Connect error (the
// codes are the same, and the details are kept), so the runtime reports it
// to agents as it reports the gRPC adapter's errors: INVALID_ARGUMENT with
// its field violations, NOT_FOUND, FAILED_PRECONDITION and so on. Other
// errors, and nil, are returned unchanged.
func Error(err error) error {
	var ce *connect.Error
	if !errors.As(err, &ce) {
		return err
	}
	st := &spb.Status{Code: int32(ce.Code()), Message: ce.Message()}
	for _, d := range ce.Details() {
		st.Details = append(st.Details, &anypb.Any{TypeUrl: "type.googleapis.com/" + d.Type(), Value: d.Bytes()})
	}
	return status.FromProto(st).Err()
}
