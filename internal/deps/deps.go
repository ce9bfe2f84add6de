package deps

import (
	_ "github.com/bufbuild/protocompile"
	_ "github.com/invopop/jsonschema"
	_ "github.com/jackc/pgx/v5/pgxpool"
	_ "github.com/modelcontextprotocol/go-sdk/mcp"
	_ "github.com/redis/go-redis/v9"
	_ "github.com/santhosh-tekuri/jsonschema/v6"
	_ "google.golang.org/genproto/googleapis/api/annotations"
	_ "google.golang.org/genproto/googleapis/rpc/errdetails"
	_ "google.golang.org/grpc/status"
	_ "google.golang.org/protobuf/compiler/protogen"
)
