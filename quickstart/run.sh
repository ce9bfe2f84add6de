#!/usr/bin/env bash
# The capability-repo quickstart, as a user runs it, in a fresh directory
# outside this checkout: install the plugin, vendor the annotations, write a
# small booking service, generate with buf, register the tools next to a
# hand-written tool in an existing MCP server, call both through the
# official Go SDK client, and keep the tool surface under a golden test and
# a breaking-change check, run the capability repo's CI workflow, and wire the
# PostgreSQL and Redis stores into the server. The steps are those of
# docs/getting-started.md and docs/own-server.md; every answer is checked
# exactly and the script fails otherwise.
#
#   quickstart/run.sh [--require-stores]   (make quickstart; CI runs it with --require-stores)
set -euo pipefail
require_stores=0
case "${1:-}" in
  --require-stores) require_stores=1 ;;
  "") ;;
  *) echo "usage: quickstart/run.sh [--require-stores]" >&2; exit 2 ;;
esac
checkout=$(cd "$(dirname "$0")/.." && pwd)
buf=$checkout/tools/node_modules/.bin/buf
[[ -x $buf ]] || { echo "quickstart: buf not installed; run make tools" >&2; exit 2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/mcpwrite-quickstart.XXXXXX")
trap 'rm -rf "$work"' EXIT
start=$(date +%s)
repo=$work/booking
mkdir -p "$repo/proto/booking/v1" "$work/bin"
export GOBIN=$work/bin PATH=$work/bin:$PATH
ln -s "$buf" "$work/bin/buf"   # on PATH for the scripts the steps run
buf() { "$checkout/tools/node_modules/.bin/buf" "$@"; }
fail() { echo "quickstart: $*" >&2; exit 1; }
# expect NAME WANT GOT: the step answered exactly WANT.
expect() { [[ $3 == "$2" ]] || fail "$1 answered"$'\n'"$3"$'\n'"want"$'\n'"$2"; }

echo "== 1. Install the plugin, mcpwrite-compat and protoc-gen-go"
# From the checkout, so the quickstart tests the code it checks out; at a release:
#   CGO_ENABLED=0 go install github.com/mcpwrite/protoc-gen-mcpwrite/cmd/protoc-gen-mcpwrite@v0.3.0 .../cmd/mcpwrite-compat@v0.3.0
(cd "$checkout" && CGO_ENABLED=0 go install ./cmd/protoc-gen-mcpwrite ./cmd/mcpwrite-compat)
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
# At a release: go get github.com/mcpwrite/protoc-gen-mcpwrite@v0.3.0 (docs/getting-started.md)
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

echo "== 7. The capability repo's CI (quickstart/ci): the workflow's steps, run as CI runs them"
mkdir -p .github/workflows ci
cp "$checkout/quickstart/ci/mcpwrite.yml" .github/workflows/mcpwrite.yml
cp "$checkout/quickstart/ci/mcpwrite-check.sh" ci/mcpwrite-check.sh
# The plugins as tools of the module, at the version of its runtime (docs/getting-started.md).
# From a checkout (the replace of step 5): go mod edit -tool, then go mod tidy; at a release:
#   go get -tool github.com/mcpwrite/protoc-gen-mcpwrite/cmd/protoc-gen-mcpwrite@v0.3.0 ...
go mod edit -tool=github.com/mcpwrite/protoc-gen-mcpwrite/cmd/protoc-gen-mcpwrite \
  -tool=github.com/mcpwrite/protoc-gen-mcpwrite/cmd/mcpwrite-compat -tool=google.golang.org/protobuf/cmd/protoc-gen-go
go mod tidy >/dev/null 2>&1 || go mod tidy
install=$(sed -n 's/^      - run: \(go install .*\)$/\1/p' .github/workflows/mcpwrite.yml)
expect "the workflow's install step" "go install tool" "$install"
eval "$install"   # (here the module's replace points at the checkout)
expect "go install tool" "mcpwrite-compat
protoc-gen-go
protoc-gen-mcpwrite" "$(ls "$GOBIN" | grep -v '^buf$' | sort)"
buf generate
MCPWRITE_UPDATE_SURFACE=1 go test -count=1 ./... >/dev/null   # the narrowed surface, recorded
git init -q && git add -A && git -c user.name=ci -c user.email=ci@example.invalid commit -qm "booking with a breaking change"
echo "-- the breaking change against the release: the check fails"
code=0; out=$(ci/mcpwrite-check.sh "$work/release-1.0" 2>&1) || code=$?
expect "ci/mcpwrite-check.sh (breaking) exit code" 1 "$code"
expect "ci/mcpwrite-check.sh (breaking) last line" "mcpwrite-compat: the new surface breaks agents prompted with the old one" "$(tail -1 <<<"$out")"
echo "-- the compatible change only: the check passes"
sed -i 's|minimum: 30 maximum: 480|minimum: 15 maximum: 480|' proto/booking/v1/booking.proto
buf generate
MCPWRITE_UPDATE_SURFACE=1 go test -count=1 ./... >/dev/null
git -c user.name=ci -c user.email=ci@example.invalid commit -qam "booking: meetings of 15 minutes again"
out=$(ci/mcpwrite-check.sh "$work/release-1.0")
expect "ci/mcpwrite-check.sh (compatible) last line" "mcpwrite-compat: compatible (1 changes)" "$(tail -1 <<<"$out")"
echo "-- a proto changed without buf generate: the check fails on the drift"
sed -i 's|description: "Meeting title"|description: "Title of the meeting"|' proto/booking/v1/booking.proto
git -c user.name=ci -c user.email=ci@example.invalid commit -qam "booking: proto only"
code=0; out=$(ci/mcpwrite-check.sh "$work/release-1.0" 2>&1) || code=$?
expect "ci/mcpwrite-check.sh (drift) exit code" 1 "$code"
expect "ci/mcpwrite-check.sh (drift)" "mcpwrite-check: gen/ differs from the protos: run buf generate and commit gen/
 M gen/booking/v1/booking.pb.go
 M gen/booking/v1/bookingv1mcpwrite/booking.mcpwrite.json" "$(grep -v '^buf' <<<"$out")"
git checkout -q -- proto gen
echo "ci/mcpwrite-check.sh: a breaking change fails, a compatible one passes, drift fails"

echo "== 8. Stores in your own server (docs/own-server.md): PostgreSQL, Redis, migrations, the outbox relay, secrets"
if [[ -z ${MCPWRITE_TEST_POSTGRES_DSN:-} || -z ${MCPWRITE_TEST_REDIS_ADDR:-} ]]; then
  [[ $require_stores == 0 ]] || fail "--require-stores: set MCPWRITE_TEST_POSTGRES_DSN and MCPWRITE_TEST_REDIS_ADDR"
  echo "not run: set MCPWRITE_TEST_POSTGRES_DSN and MCPWRITE_TEST_REDIS_ADDR (a throwaway database) to run it; CI does"
else
  mkdir -p cmd/booking-stores
  for f in main rooms checks; do cp "$checkout/quickstart/stores/$f.go.txt" "cmd/booking-stores/$f.go"; done
  go mod tidy >/dev/null 2>&1 || go mod tidy
  go build -o "$work/bin/booking-stores" ./cmd/booking-stores
  # Tables and stream of this run only; the same secrets for both processes.
  export BOOKING_PREFIX="quickstart_$$_$RANDOM"
  MCPWRITE_ID_SECRET=$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')
  MCPWRITE_SIGNING_KEY=$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')
  export MCPWRITE_ID_SECRET MCPWRITE_SIGNING_KEY
  trap 'booking-stores cleanup >/dev/null || true; rm -rf "$work"' EXIT
  booking-stores first
  booking-stores restart   # a second process: the cache in memory is gone, the stores are not
  booking-stores cleanup
fi

echo "quickstart: PASS in $(( $(date +%s) - start ))s"
