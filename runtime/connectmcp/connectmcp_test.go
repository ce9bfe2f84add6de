package connectmcp_test

import (
	"errors"
	"testing"

	"connectrpc.com/connect"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/connectmcp"
)

func TestErrorBecomesTheGRPCStatus(t *testing.T) {
	violation := &errdetails.BadRequest{FieldViolations: []*errdetails.BadRequest_FieldViolation{{Field: "name", Description: "taken"}}}
	ce := connect.NewError(connect.CodeNotFound, errors.New("element e1 not found"))
	d, err := connect.NewErrorDetail(violation)
	if err != nil {
		t.Fatal(err)
	}
	ce.AddDetail(d)
	st, ok := status.FromError(connectmcp.Error(ce))
	if !ok || st.Code() != codes.NotFound || st.Message() != "element e1 not found" {
		t.Fatalf("status = %v %v", st, ok)
	}
	details := st.Details()
	if len(details) != 1 || !proto.Equal(details[0].(proto.Message), violation) {
		t.Errorf("details = %v, want [%v]", details, violation)
	}
	plain := errors.New("dial tcp: connection refused")
	if got := connectmcp.Error(plain); got != plain {
		t.Errorf("a non-Connect error = %v, want it unchanged", got)
	}
	if got := connectmcp.Error(nil); got != nil {
		t.Errorf("nil = %v", got)
	}
}
