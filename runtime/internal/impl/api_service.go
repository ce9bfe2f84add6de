package impl

import (
	"context"

	"google.golang.org/protobuf/proto"
)

// Tool binds one exposed method's generated code. Everything static about the
// tool (description, schemas, hints, classification, confirmation, result
// field, next steps, retry budget, server fills) is read from the service's
// JSON document by Name.
type Tool struct {
	// Name is the MCP tool name; it keys the tool's entry in Service.Doc.
	Name string
	// NewRequest returns an empty request message.
	NewRequest func() proto.Message
	// Decode reads the agent's arguments into req, reporting every problem
	// through d. Arguments with no problem are still applied.
	Decode func(d *Decoder, obj *Object, req proto.Message)
	// Enrich fills every server-supplied field (generated, derived, context,
	// resolvers). It returns *ErrorEntry, Errors, a gRPC status error from a
	// resolver, or nil.
	Enrich func(c *Call, req proto.Message) error
	// Invoke calls the domain handler.
	Invoke func(ctx context.Context, req proto.Message) (proto.Message, error)
	// AgentPaths maps the dotted proto path of every field the agent may
	// set to its agent-facing path, for the request check's violations.
	AgentPaths map[string]string
	// EarlyCheck runs, when some arguments did not decode, what can be
	// checked on those that did (generated for requests with resolvers or
	// a pair_check; nil for none): it resolves the references, runs the
	// value resolvers when every reference resolved and the pair check when
	// every resolver answered, and the runtime answers its problems with
	// the decode problems, in one round. It fills only what a resolver may
	// read without drawing (context values, constants, from_enum).
	EarlyCheck func(c *Call, req proto.Message) error
	// Overridable are the dotted proto paths among AgentPaths that the
	// server fills when the agent leaves them out (derived or generated
	// with overridable): a broken rule there is the agent's only when it
	// sent the value.
	Overridable map[string]bool
}

// NewTool binds one generated tool, typed by its request message Req:
// decode reads the agent's arguments (nil: the request takes none), enrich
// fills what the server supplies (nil: nothing), invoke is the handler
// method. The Tool takes and gives proto.Message, so generated code never
// asserts a type.
func NewTool[Req any, PReq interface {
	*Req
	proto.Message
}, Res proto.Message](name string, decode func(*Decoder, *Object, PReq), enrich func(*Call, PReq) error, invoke func(context.Context, PReq) (Res, error)) *Tool {
	t := &Tool{
		Name:       name,
		NewRequest: func() proto.Message { return PReq(new(Req)) },
		Decode:     func(d *Decoder, obj *Object, _ proto.Message) { d.Known(obj, nil) },
		Enrich:     func(*Call, proto.Message) error { return nil },
		Invoke: func(ctx context.Context, req proto.Message) (proto.Message, error) {
			res, err := invoke(ctx, req.(PReq))
			return res, err
		},
	}
	if decode != nil {
		t.Decode = func(d *Decoder, obj *Object, req proto.Message) { decode(d, obj, req.(PReq)) }
	}
	if enrich != nil {
		t.Enrich = func(c *Call, req proto.Message) error { return enrich(c, req.(PReq)) }
	}
	return t
}

// WithEarlyCheck sets t's EarlyCheck to check, typed by the
// request, and returns t. For use by generated code.
func WithEarlyCheck[PReq proto.Message](t *Tool, check func(*Call, PReq) error) *Tool {
	t.EarlyCheck = func(c *Call, req proto.Message) error { return check(c, req.(PReq)) }
	return t
}

// WithAgentPaths sets the tool's AgentPaths and Overridable (generated for
// protos with buf.validate rules) and returns it.
func (t *Tool) WithAgentPaths(paths map[string]string, overridable map[string]bool) *Tool {
	t.AgentPaths, t.Overridable = paths, overridable
	return t
}

// Service is what a generated Register<Service>Tools hands to Register.
type Service struct {
	// Name is the fully-qualified proto service name.
	Name string
	// Doc is the generated <file>.mcpwrite.json (the getWriteSchema document).
	Doc []byte
	// Tools are the exposed methods, in declaration order.
	Tools []*Tool
	// Enums are the alias tables the service decodes, by full enum name.
	Enums map[string]*EnumTable
	// NewChecker builds the request check run after enrichment (set when
	// the proto imports buf/validate/validate.proto); nil for none.
	NewChecker func() (RequestChecker, error)
	// Operations gets a google.longrunning.Operation by name, for the
	// service's operations tool; nil when the handler cannot
	// (OperationsOf), and then the tool is not registered.
	Operations GetOperation
}

// GetOperation gets a long-running operation (a google.longrunning.Operation)
// by name.
type GetOperation func(ctx context.Context, name string) (proto.Message, error)
