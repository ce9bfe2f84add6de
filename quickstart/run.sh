#!/usr/bin/env bash
# The capability-repo quickstart, as a user runs it, in a fresh directory
# outside this checkout: install the plugin, vendor the annotations, write a
# small booking service, generate with buf, register the tools next to a
# hand-written tool in an existing MCP server, call both through the
# official Go SDK client, and keep the tool surface under a golden test and
# a breaking-change check. The steps are the README's "Use it in your repo";
# every answer is checked exactly and the script fails otherwise.
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
buf() { "$checkout/tools/node_modules/.bin/buf" "$@"; }
fail() { echo "quickstart: $*" >&2; exit 1; }
# expect NAME WANT GOT: the step answered exactly WANT.
expect() { [[ $3 == "$2" ]] || fail "$1 answered"$'\n'"$3"$'\n'"want"$'\n'"$2"; }

echo "== 1. Install the plugin, mcpwrite-compat and protoc-gen-go"
# From a checkout (or a release tag); once the module is published:
#   go install github.com/mcpwrite/protoc-gen-mcpwrite/cmd/...@latest
(cd "$checkout" && go install ./cmd/protoc-gen-mcpwrite ./cmd/mcpwrite-compat)
go install google.golang.org/protobuf/cmd/protoc-gen-go@v1.36.12
expect "protoc-gen-mcpwrite --version" "protoc-gen-mcpwrite $(sed -n 's/^const Version = "\(.*\)"$/\1/p' "$checkout/runtime/version.go")" "$(protoc-gen-mcpwrite --version)"
protoc-gen-mcpwrite --version

echo "== 2. Vendor the annotations"
cd "$repo"
buf export "$checkout/annotations" --output third_party/mcpwrite
expect "buf export" "third_party/mcpwrite/mcpwrite/v1/mcpwrite.proto" "$(find third_party -type f | sort)"

echo "== 3. The capability: buf.yaml, buf.gen.yaml, the service"
cp "$checkout/quickstart/booking.proto" proto/booking/v1/booking.proto
cat > buf.yaml <<'YAML'
version: v2
modules:
  - path: proto
  - path: third_party/mcpwrite
    lint:
      except:
        - ENUM_VALUE_PREFIX
        - ENUM_ZERO_VALUE_SUFFIX
YAML
cat > buf.gen.yaml <<'YAML'
version: v2
inputs:
  - directory: proto # only your protos: no stray annotations .pb.go
plugins:
  - local: protoc-gen-go
    out: gen
    opt: paths=source_relative
  - local: protoc-gen-mcpwrite
    out: gen
    opt: paths=source_relative
YAML

buf lint   # buf's default rules; the vendored annotations except their two enum-naming rules
echo "buf lint: clean"

echo "== 4. Generate"
buf generate
expect "buf generate" "gen/booking/v1/booking.pb.go
gen/booking/v1/bookingv1mcpwrite/booking.mcpwrite.go
gen/booking/v1/bookingv1mcpwrite/booking.mcpwrite.json" "$(find gen -type f | sort)"
find gen -type f | sort

echo "== 5. Register next to a hand-written tool and call both through the Go SDK client"
go mod init example.com/booking >/dev/null 2>&1
# Once the module is published: go get github.com/mcpwrite/protoc-gen-mcpwrite@latest
go mod edit -require=github.com/mcpwrite/protoc-gen-mcpwrite@v0.0.0 -replace=github.com/mcpwrite/protoc-gen-mcpwrite="$checkout"
mkdir -p cmd/booking-server
cp "$checkout/quickstart/main.go.txt" cmd/booking-server/main.go
cp "$checkout/quickstart/surface_test.go.txt" surface_test.go
go mod tidy >/dev/null 2>&1 || go mod tidy
go run ./cmd/booking-server

echo "== 6. Keep the tool surface under a golden test and check changes for breaks"
MCPWRITE_UPDATE_SURFACE=1 go test ./... >/dev/null
go test ./...
cp -r gen "$work/release-1.0"     # the surface of the last release, as CI would check it out

echo "-- a compatible change: an optional notes field"
sed -i 's|^  string title = 7 \(.*\)$|&\n  string notes = 8 [(mcpwrite.v1.field).agent = {description: "Agenda or notes"}];|' proto/booking/v1/booking.proto
grep -q 'string notes = 8' proto/booking/v1/booking.proto || fail "could not add the notes field"
buf generate
if out=$(go test ./... 2>&1); then fail "the golden test accepted a changed surface"; fi
grep -qxF "        compatible: tool book_room: notes: new optional field" <<<"$out" || fail "golden test answered"$'\n'"$out"
MCPWRITE_UPDATE_SURFACE=1 go test -count=1 ./... >/dev/null
go test -count=1 ./...
expect "mcpwrite-compat (compatible)" "compatible: tool book_room: notes: new optional field
mcpwrite-compat: compatible (1 changes)" "$(mcpwrite-compat "$work/release-1.0" gen)"
mcpwrite-compat "$work/release-1.0" gen

echo "-- a breaking change: meetings of at least 30 minutes"
sed -i 's|minimum: 15 maximum: 480|minimum: 30 maximum: 480|' proto/booking/v1/booking.proto
buf generate
if out=$(go test -count=1 ./... 2>&1); then fail "the golden test accepted a narrowed constraint"; fi
grep -qxF "        BREAKING: tool book_room: minutes: minimum 15 -> 30" <<<"$out" || fail "golden test answered"$'\n'"$out"
code=0; out=$(mcpwrite-compat "$work/release-1.0" gen) || code=$?
expect "mcpwrite-compat (breaking)" "1: BREAKING: tool book_room: minutes: minimum 15 -> 30
compatible: tool book_room: notes: new optional field
mcpwrite-compat: the new surface breaks agents prompted with the old one" "$code: $out"
echo "$out"

echo "quickstart: PASS in $(( $(date +%s) - start ))s"
