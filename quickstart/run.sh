#!/usr/bin/env bash
# The capability-repo quickstart, as a user runs it, in a fresh directory
# outside this checkout: vendor the annotations, install the plugin, write a
# small booking service, generate with buf, register the tools next to a
# hand-written tool in an existing MCP server, and call both through the
# official Go SDK client. The steps are the README's "Use it in your repo".
#
#   quickstart/run.sh            (make quickstart; CI runs it)
set -euo pipefail
checkout=$(cd "$(dirname "$0")/.." && pwd)
buf=$checkout/tools/node_modules/.bin/buf
[[ -x $buf ]] || { echo "quickstart: buf not installed; run make tools" >&2; exit 2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/mcpwrite-quickstart.XXXXXX")
trap 'rm -rf "$work"' EXIT
start=$(date +%s)
repo=$work/booking
mkdir -p "$repo/proto/booking/v1" "$work/bin"
export GOBIN=$work/bin PATH=$work/bin:$PATH

echo "== 1. Install the plugin and protoc-gen-go"
# From a checkout (or a release tag); once the module is published:
#   go install github.com/mcpwrite/protoc-gen-mcpwrite/cmd/protoc-gen-mcpwrite@latest
(cd "$checkout" && go install ./cmd/protoc-gen-mcpwrite)
go install google.golang.org/protobuf/cmd/protoc-gen-go@v1.36.12
protoc-gen-mcpwrite --version

echo "== 2. Vendor the annotations"
"$buf" export "$checkout/annotations" --output "$repo/third_party/mcpwrite"
find "$repo/third_party" -name '*.proto' | sed "s|$repo/||"

echo "== 3. The capability: buf.yaml, buf.gen.yaml, the service"
cp "$checkout/quickstart/booking.proto" "$repo/proto/booking/v1/booking.proto"
cat > "$repo/buf.yaml" <<'YAML'
version: v2
modules:
  - path: proto
  - path: third_party/mcpwrite
YAML
cat > "$repo/buf.gen.yaml" <<'YAML'
version: v2
inputs:
  - directory: proto
plugins:
  - local: protoc-gen-go
    out: gen
    opt: paths=source_relative
  - local: protoc-gen-mcpwrite
    out: gen
    opt: paths=source_relative
YAML

echo "== 4. Generate"
(cd "$repo" && "$buf" generate)
(cd "$repo" && find gen -type f | sort)

echo "== 5. Register next to a hand-written tool and call both"
cd "$repo"
go mod init example.com/booking >/dev/null 2>&1
go mod edit -require=github.com/mcpwrite/protoc-gen-mcpwrite@v0.0.0 -replace=github.com/mcpwrite/protoc-gen-mcpwrite="$checkout"
mkdir -p cmd/booking-server
cp "$checkout/quickstart/main.go.txt" cmd/booking-server/main.go
go mod tidy >/dev/null 2>&1 || go mod tidy
go run ./cmd/booking-server

echo "== 6. Keep the tool surface under test: a change that breaks agents fails"
cp gen/booking/v1/bookingv1mcpwrite/booking.mcpwrite.json "$work/surface-before.json"
(cd "$checkout" && go run ./cmd/mcpwrite-compat "$work/surface-before.json" "$repo/gen/booking/v1/bookingv1mcpwrite/booking.mcpwrite.json")
sed -i 's/  int32 minutes = 6 \[(mcpwrite.v1.field).agent = {required: true description: "Length in minutes" minimum: 15 maximum: 480}\];/  int32 minutes = 6 [(mcpwrite.v1.field).agent = {required: true description: "Length in minutes" minimum: 30 maximum: 480}];/' proto/booking/v1/booking.proto
"$buf" generate
if (cd "$checkout" && go run ./cmd/mcpwrite-compat "$work/surface-before.json" "$repo/gen/booking/v1/bookingv1mcpwrite/booking.mcpwrite.json"); then
  echo "quickstart: the compatibility check accepted a narrowed constraint" >&2
  exit 1
fi

echo "quickstart: PASS in $(( $(date +%s) - start ))s"
