package mcpwriteimpl

import (
	"context"
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/fieldmaskpb"

	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/callmeta"
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/impl"
)

// The binding of a generated service: what New<Service> returns and
// gosdk.Register and mcpgo.Register take.
type (
	Service        = impl.Service
	Tool           = impl.Tool
	RequestChecker = impl.RequestChecker
)

// NewTool binds one generated tool, typed by its request message Req.
func NewTool[Req any, PReq interface {
	*Req
	proto.Message
}, Res proto.Message](name string, decode func(*Decoder, *Object, PReq), enrich func(*Call, PReq) error, invoke func(context.Context, PReq) (Res, error)) *Tool {
	return impl.NewTool(name, decode, enrich, invoke)
}

// Decoding: the parsed arguments and the typed reads of the decode<Message>
// functions.
type (
	Decoder = impl.Decoder
	Object  = impl.Object
)

// KindNull is the kind of a JSON null.
const KindNull = impl.KindNull

// UniqueItems reports the first repeated item of xs (buf.validate
// repeated.unique), by index.
func UniqueItems[T comparable](d *Decoder, key string, xs []T) { impl.UniqueItems(d, key, xs) }

// UniqueItemKeys refuses two items of the list at key with the same item
// key (the item's field named field, read by keyOf), naming both items.
func UniqueItemKeys[T any](d *Decoder, key, field string, xs []T, keyOf func(T) string) {
	impl.UniqueItemKeys(d, key, field, xs, keyOf)
}

// CheckUpdateMask checks an Update tool's update_mask against its resource
// and derives the mask from the fields set when it is absent or empty.
func CheckUpdateMask(d *Decoder, key string, mask *fieldmaskpb.FieldMask, resource proto.Message, identity string) *fieldmaskpb.FieldMask {
	return impl.CheckUpdateMask(d, key, mask, resource, identity)
}

// CheckUpdateMaskOwned is CheckUpdateMask for a resource with fields the
// server fills by the project's own annotations (generated, derived,
// hidden): owned maps their full names to why; the mask may not name them
// and a derived mask leaves them out.
func CheckUpdateMaskOwned(d *Decoder, key string, mask *fieldmaskpb.FieldMask, resource proto.Message, identity string, owned map[string]string) *fieldmaskpb.FieldMask {
	return impl.CheckUpdateMaskOwned(d, key, mask, resource, identity, owned)
}

// Enrichment: what the enrich<Service><Message> functions read.
type Call = impl.Call

// WithEarlyCheck sets t's early check, run on the arguments that
// decoded when others did not, so its problems join the decode problems in
// one answer; it returns t.
func WithEarlyCheck[PReq proto.Message](t *Tool, check func(*Call, PReq) error) *Tool {
	return impl.WithEarlyCheck(t, check)
}

// ResolverNotImplemented is the error of a contract resolver method left
// to Unimplemented<Service>Resolvers for a request type whose typed form
// the handler lacks: a server bug, answered INTERNAL.
func ResolverNotImplemented(method string, in proto.Message) error {
	return impl.ResolverNotImplemented(method, in)
}

// The request metadata a derived field can read, as in the annotations.
const (
	ContextTenantID        = callmeta.ContextTenantID
	ContextPrincipalID     = callmeta.ContextPrincipalID
	ContextCorrelationID   = callmeta.ContextCorrelationID
	ContextCausationID     = callmeta.ContextCausationID
	ContextTraceParent     = callmeta.ContextTraceParent
	ContextClientRequestID = callmeta.ContextClientRequestID
	ContextSessionID       = callmeta.ContextSessionID
	ContextToolName        = callmeta.ContextToolName
)

// JoinResolverErrors combines the failures of the resolvers of one request
// so the agent hears about every missing reference at once.
func JoinResolverErrors(errs ...error) error { return impl.JoinResolverErrors(errs...) }

// FormatRFC3339 renders t in UTC as protobuf JSON does.
func FormatRFC3339(t time.Time) string { return impl.FormatRFC3339(t) }

// Enum and pair tables.
type (
	EnumTable = impl.EnumTable
	EnumValue = impl.EnumValue
	Pair      = impl.Pair
	PairTable = impl.PairTable
)

// NewEnumTable builds the alias table of an enum from its values.
func NewEnumTable(fullName string, values []EnumValue, hint string) *EnumTable {
	return impl.NewEnumTable(fullName, values, hint)
}

// NewPairTable indexes pairs: types names the relationship enum, ends the
// enum of sources and targets.
func NewPairTable(types, ends *EnumTable, pairs []Pair, hint string) *PairTable {
	return impl.NewPairTable(types, ends, pairs, hint)
}

// The answer envelope as resolvers and decoders report problems.
type (
	ErrorEntry  = impl.ErrorEntry
	Suggestions = impl.Suggestions
)

// CodeMissingRequired is the code of a required field left out.
const CodeMissingRequired = impl.CodeMissingRequired

// Ptr returns a pointer to a copy of v; generated code uses it for fields
// with explicit presence.
func Ptr[T any](v T) *T { return &v }

// OutgoingHeaders is the request context of ctx as the headers the
// connect-go client adapter sends (only those set).
func OutgoingHeaders(ctx context.Context) map[string]string { return callmeta.OutgoingHeaders(ctx) }

// OutgoingGRPCContext adds the request context of ctx to the outgoing gRPC
// metadata, for the gRPC client adapter.
func OutgoingGRPCContext(ctx context.Context) context.Context {
	return callmeta.OutgoingGRPCContext(ctx)
}

// Forwarder bounds the calls a generated client adapter forwards to its
// backend (runtime.WithBackendTimeout, runtime.DefaultBackendTimeout);
// ForwardOption is what runtime.AdapterOption names.
type (
	Forwarder     = impl.Forwarder
	ForwardOption = impl.ForwardOption
)

// NewForwarder returns the Forwarder of an adapter built with opts.
func NewForwarder(opts ...ForwardOption) Forwarder { return impl.NewForwarder(opts...) }

// Bind is a tool's handler call: method, a method expression of the
// generated <Service>Handler, called on h. h is only dereferenced when a
// call comes, so a Service built for its Doc may have a nil handler.
func Bind[H, Req, Res any](h H, method func(H, context.Context, Req) (Res, error)) func(context.Context, Req) (Res, error) {
	return func(ctx context.Context, in Req) (Res, error) { return method(h, ctx, in) }
}

// BindResolvers is the enrichment (or early check) of a tool's request
// whose fields resolvers fill: fill with the request's bound resolvers r,
// the request being both the root the resolvers read and the message
// filled.
func BindResolvers[B, Req any](r B, fill func(*Call, B, Req, Req) error) func(*Call, Req) error {
	return func(c *Call, m Req) error { return fill(c, r, m, m) }
}

// ForwardGRPC is a gRPC client adapter's method: call (the client's method)
// with in, within the adapter's deadline f, the request context of ctx
// sent as metadata; an error the deadline caused is a BackendTimeout.
// Opt is grpc.CallOption, which the client's methods take and the call
// passes none of.
func ForwardGRPC[Req, Res, Opt any](ctx context.Context, f Forwarder, in Req, call func(context.Context, Req, ...Opt) (Res, error)) (Res, error) {
	ctx, cancel := f.Start(ctx)
	defer cancel()
	res, err := call(callmeta.OutgoingGRPCContext(ctx), in)
	if err != nil {
		var zero Res
		return zero, f.Err(ctx, err)
	}
	return res, nil
}

// FillEnvelope fills a message of server fills only (a meta envelope) at
// key: *field is created when absent, then filled by fill with key on the
// path its errors name.
func FillEnvelope[M any](c *Call, key string, field **M, fill func(*Call, *M) error) error {
	if *field == nil {
		*field = new(M)
	}
	c.Enter(key)
	err := fill(c, *field)
	c.Leave()
	return err
}

// BindResolver is one value resolver of the request type R, bound once:
// typedMethod (a method expression of the generated typed resolver
// interface I) on typed when typed implements I, else contract (a method
// expression of the generated <Service>Handler H) on h, dereferenced only
// when called.
func BindResolver[I, H any, R proto.Message, T any](typed any, typedMethod func(I, context.Context, R) (T, error), h H, contract func(H, context.Context, proto.Message) (T, error)) func(context.Context, R) (T, error) {
	if t, ok := typed.(I); ok {
		return func(ctx context.Context, in R) (T, error) { return typedMethod(t, ctx, in) }
	}
	return func(ctx context.Context, in R) (T, error) { return contract(h, ctx, in) }
}

// Resolve sets *field to what the value resolver resolve answers for the
// request root; its failure is answered as the resolver error of the
// field at key, and *field is left as it was.
func Resolve[R, T any](c *Call, resolve func(context.Context, R) (T, error), root R, key string, field *T) error {
	v, err := resolve(c.Ctx, root)
	if err != nil {
		return c.ResolverError(key, err)
	}
	*field = v
	return nil
}
