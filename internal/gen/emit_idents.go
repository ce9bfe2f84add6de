package gen

import "google.golang.org/protobuf/compiler/protogen"

// Import paths of the packages generated code uses.
const (
	runtimePkg    = protogen.GoImportPath("github.com/mcpwrite/protoc-gen-mcpwrite/runtime")
	implPkg       = protogen.GoImportPath("github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcpwriteimpl")
	pvcheckPkg    = protogen.GoImportPath("github.com/mcpwrite/protoc-gen-mcpwrite/runtime/pvcheck")
	connectMCPPkg = protogen.GoImportPath("github.com/mcpwrite/protoc-gen-mcpwrite/runtime/connectmcp")
	mcpPkg        = protogen.GoImportPath("github.com/modelcontextprotocol/go-sdk/mcp")
	protoPkg      = protogen.GoImportPath("google.golang.org/protobuf/proto")
	grpcPkg       = protogen.GoImportPath("google.golang.org/grpc")
	connectPkg    = protogen.GoImportPath("connectrpc.com/connect")
	contextPkg    = protogen.GoImportPath("context")
	regexpPkg     = protogen.GoImportPath("regexp")
	strconvPkg    = protogen.GoImportPath("strconv")
	wrappersPkg   = protogen.GoImportPath("google.golang.org/protobuf/types/known/wrapperspb")
)

// runtimeIdents names the package of every runtime identifier generated
// code refers to: what only generated code uses lives in
// runtime/mcpwriteimpl. An identifier left out lives in the runtime package
// itself (Register, Option, Reference, the version check); moving one to another package is a change of this table only,
// since the emitters reach runtime identifiers through rt alone.
var runtimeIdents = map[string]protogen.GoImportPath{
	"Bind":                   implPkg,
	"BindResolver":           implPkg,
	"BindResolvers":          implPkg,
	"Call":                   implPkg,
	"CheckUpdateMask":        implPkg,
	"CheckUpdateMaskOwned":   implPkg,
	"CodeMissingRequired":    implPkg,
	"ContextCausationID":     implPkg,
	"ContextClientRequestID": implPkg,
	"ContextCorrelationID":   implPkg,
	"ContextPrincipalID":     implPkg,
	"ContextSessionID":       implPkg,
	"ContextTenantID":        implPkg,
	"ContextToolName":        implPkg,
	"ContextTraceParent":     implPkg,
	"Decoder":                implPkg,
	"EnumTable":              implPkg,
	"EnumValue":              implPkg,
	"ErrorEntry":             implPkg,
	"FillEnvelope":           implPkg,
	"FormatRFC3339":          implPkg,
	"ForwardGRPC":            implPkg,
	"Forwarder":              implPkg,
	"JoinResolverErrors":     implPkg,
	"Resolve":                implPkg,
	"ResolverNotImplemented": implPkg,
	"KindNull":               implPkg,
	"NewEnumTable":           implPkg,
	"NewForwarder":           implPkg,
	"NewPairTable":           implPkg,
	"NewTool":                implPkg,
	"Object":                 implPkg,
	"OperationsOf":           implPkg,
	"OutgoingGRPCContext":    implPkg,
	"OutgoingHeaders":        implPkg,
	"Pair":                   implPkg,
	"Ptr":                    implPkg,
	"RequestChecker":         implPkg,
	"Service":                implPkg,
	"Suggestions":            implPkg,
	"Tool":                   implPkg,
	"UniqueItems":            implPkg,
	"UniqueItemKeys":         implPkg,
	"WithEarlyCheck":         implPkg,
}

// rt is the runtime identifier name as generated code refers to it.
func rt(name string) protogen.GoIdent {
	if p, ok := runtimeIdents[name]; ok {
		return p.Ident(name)
	}
	return runtimePkg.Ident(name)
}

// SDK names the MCP server SDK the generated registration takes (the sdk
// parameter).
type SDK int

const (
	// SDKGo is github.com/modelcontextprotocol/go-sdk (sdk=go-sdk, the default).
	SDKGo SDK = iota
	// SDKMCPGo is github.com/mark3labs/mcp-go (sdk=mcp-go).
	SDKMCPGo
)

// With sdk=mcp-go: mark3labs/mcp-go's server and the runtime's adapter.
const (
	mcpGoServerPkg  = protogen.GoImportPath("github.com/mark3labs/mcp-go/server")
	mcpGoAdapterPkg = protogen.GoImportPath("github.com/mcpwrite/protoc-gen-mcpwrite/runtime/mcpgo")
	goSDKAdapterPkg = protogen.GoImportPath("github.com/mcpwrite/protoc-gen-mcpwrite/runtime/gosdk")
)
