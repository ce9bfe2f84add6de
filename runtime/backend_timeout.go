package runtime

// Bottom layer: the options of the generated client adapters.

import (
	"github.com/mcpwrite/protoc-gen-mcpwrite/runtime/internal/impl"
)

// AdapterOption configures a generated client adapter
// (New<Service>ClientAdapter, New<Service>ConnectAdapter).
type AdapterOption = impl.ForwardOption

// DefaultBackendTimeout is the deadline of every call a generated client
// adapter forwards to its backend: a backend that has not answered by then
// is answered UNAVAILABLE with a retry hint (docs/production.md, "Backend
// errors"). A tool call's own earlier deadline stays.
const DefaultBackendTimeout = impl.DefaultBackendTimeout
