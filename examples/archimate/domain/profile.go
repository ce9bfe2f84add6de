package domain

import (
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	archimatev1 "github.com/mcpwrite/protoc-gen-mcpwrite/examples/archimate/gen/archimate/v1"
)

// checkProfile validates a capability's required profile (seed 000 §4.5:
// owner, criticality and lifecycle) in the domain itself, which stays
// authoritative: a gRPC caller that bypasses the MCP layer is refused what
// the MCP layer refuses, as INVALID_ARGUMENT with one field violation per
// missing part (reason MISSING_REQUIRED_FIELD), which the runtime answers
// field by field.
func checkProfile(p *archimatev1.CapabilityProfile) error {
	var vs []*errdetails.BadRequest_FieldViolation
	missing := func(field, what string) {
		vs = append(vs, &errdetails.BadRequest_FieldViolation{Field: field, Description: "missing required field " + field + ": " + what, Reason: "MISSING_REQUIRED_FIELD"})
	}
	if p == nil {
		missing("profile", "a capability needs its profile (owner, criticality, lifecycle)")
	} else {
		if p.GetOwner() == "" {
			missing("profile.owner", "the owning organization unit")
		}
		if p.GetCriticality() == archimatev1.Criticality_CRITICALITY_UNSPECIFIED {
			missing("profile.criticality", "Low, Medium or High")
		}
		if p.GetLifecycle() == archimatev1.Lifecycle_LIFECYCLE_UNSPECIFIED {
			missing("profile.lifecycle", "Planned, Active or Retiring")
		}
	}
	if len(vs) == 0 {
		return nil
	}
	st, err := status.New(codes.InvalidArgument, "the capability profile is incomplete").WithDetails(&errdetails.BadRequest{FieldViolations: vs})
	if err != nil {
		return status.Error(codes.InvalidArgument, "the capability profile is incomplete")
	}
	return st.Err()
}
