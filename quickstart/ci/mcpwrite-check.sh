#!/usr/bin/env bash
# ci/mcpwrite-check.sh of a capability repo (the mcpwrite workflow runs it;
# run it locally before a push): buf lint, buf generate, fail when gen/
# differs from what is committed, go test ./... (the tool-surface golden
# test among them), then mcpwrite-compat against the last release's gen/
# when there is one.
#
#   ci/mcpwrite-check.sh [<the last release's gen directory>]
set -euo pipefail
buf lint
buf generate
if [ -n "$(git status --porcelain -- gen)" ]; then
  echo "mcpwrite-check: gen/ differs from the protos: run buf generate and commit gen/" >&2
  git status --porcelain -- gen >&2
  exit 1
fi
go test ./...
released=${1:-}
if [ -z "$released" ] || [ ! -d "$released" ]; then
  echo "mcpwrite-check: no earlier release's gen/ (${released:-none given}): the surface is checked against its golden file only"
  exit 0
fi
mcpwrite-compat "$released" gen
