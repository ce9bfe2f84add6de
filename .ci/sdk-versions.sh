#!/usr/bin/env bash
# Builds the example servers make interop drives and the server of the
# capability generated with sdk=mcp-go (golden/e2e/mcpgoonly), and runs the
# tests of the SDK adapters (runtime/mcpgo, runtime/httpfront, the tasks
# example served from both SDKs, the mcp-go-only case: its calls through
# an mcp-go client and its build without go-sdk) against the oldest
# supported release of each MCP SDK (.ci/sdk-versions) and against the
# newest release the module proxy has.
# go.mod is left as it is: each run uses a copy (-modfile).
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
pkgs=(./runtime/mcpgo ./runtime/httpfront ./examples/tasks ./golden/e2e/mcpgoonly) # the runtime is tested at go.mod's versions by make test
run() { # label, then module@version pairs
  local label=$1; shift
  cp go.mod "$work/go.mod"; cp go.sum "$work/go.sum"
  go get -modfile="$work/go.mod" "$@" >/dev/null 2>&1 || go get -modfile="$work/go.mod" "$@"
  echo "sdk-versions: $label: $(grep -hE 'modelcontextprotocol/go-sdk |mark3labs/mcp-go ' "$work/go.mod" | awk '{print $1 "@" $2}' | tr '\n' ' ')"
  go build -modfile="$work/go.mod" -o /dev/null ./examples/*/cmd/*-server
  go build -modfile="$work/go.mod" -o /dev/null ./golden/e2e/mcpgoonly/cmd/parking-server
  # Through GOFLAGS, so the go commands the tests run (the mcp-go-only
  # build's go list -deps) see these versions too.
  GOFLAGS="-modfile=$work/go.mod" go test -count=1 "${pkgs[@]}" >"$work/test.out" 2>&1 || { cat "$work/test.out"; exit 1; }
  grep -E '^(ok|FAIL)' "$work/test.out"
}
oldest=()
while read -r mod ver; do
  [[ -z $mod || $mod == \#* ]] && continue
  oldest+=("$mod@$ver")
done < .ci/sdk-versions
[[ ${#oldest[@]} == 2 ]] || { echo "sdk-versions: .ci/sdk-versions must name go-sdk and mcp-go" >&2; exit 1; }
run oldest "${oldest[@]}"
newest=()
for m in "${oldest[@]}"; do newest+=("${m%@*}@latest"); done
run newest "${newest[@]}"
