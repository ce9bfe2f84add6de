#!/usr/bin/env bash
# Checks the module's exported API against a release with apidiff
# (golang.org/x/exp/cmd/apidiff, at the x/exp version go.mod already
# requires): every incompatible change of an exported package (a removed
# name, a changed signature, a new method on an interface users implement)
# fails, as a v0 minor release or a v1+ patch must not make them silently;
# a new v0 minor (runtime.Version) passes when CHANGELOG.md's section of it
# names every break. Tried: removing runtime.WithClock under 0.3.0 fails
# until the 0.3.0 section names `runtime.WithClock`, and under 0.2.0 fails.
# Internal packages and runtime/mcpwriteimpl (no compatibility promise:
# the names generated code calls) are left out.
#
#   .ci/apidiff.sh [BASE]   BASE: a tag or commit (default: the last tag,
#                           else the newest release .ci/releases records:
#                           a checkout without tags still has a base)
set -euo pipefail
cd "$(dirname "$0")/.."
module=github.com/mcpwrite/protoc-gen-mcpwrite
base=${1:-$(git describe --tags --abbrev=0 2>/dev/null || true)}
if [[ -z $base && -s .ci/releases ]]; then
  # "<version> <commit>" per line, newest last.
  read -r version commit < <(grep -v '^#' .ci/releases | tail -1)
  if ! git cat-file -e "$commit^{commit}" 2>/dev/null; then
    echo "apidiff: release $version names commit $commit, which this checkout does not have" >&2
    exit 1
  fi
  base=$commit
  echo "apidiff: no tag in this checkout; release $version is commit $commit (.ci/releases)"
fi
if [[ -z $base ]]; then
  echo "apidiff: no release yet: nothing to compare the API with"
  exit 0
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
GOBIN="$work/bin" go install "golang.org/x/exp/cmd/apidiff@$(go list -m -f '{{.Version}}' golang.org/x/exp)"
apidiff=$work/bin/apidiff
mkdir "$work/base"
git archive --format=tar "$base" | tar -x -C "$work/base"
# The whole module in one load each (apidiff -m leaves internal packages
# out); runtime/mcpwriteimpl's lines are dropped: no compatibility promise.
# Checked: a changed signature of redisstream.Fields is reported as
#   - ./runtime/outbox/redisstream.Fields: changed from func(...Message) []any to func(...Message, ...any) []any
quiet() { grep -v '^Ignoring internal package' >&2 || true; }
(cd "$work/base" && "$apidiff" -m -w "$work/base.api" "$module" 2> >(quiet))
# The examples, golden cases, benchmarks and other test beds are not the
# module's API: only runtime/..., compat and the annotations' Go package are.
out=$("$apidiff" -m -incompatible "$work/base.api" "$module" 2> >(quiet) |
  grep -vE '^[-+] \./(runtime/mcpwriteimpl|examples|golden|bench|realworld|quickstart|interop|tools)[./]' || true)
if [[ -z $out ]]; then
  echo "apidiff: the exported API is compatible with $base"
  exit 0
fi
# A new minor version of v0 may break the API, but only where CHANGELOG.md's
# section of that version names what broke: each reported package-level name
# (runtime.Register, redisstream.Fields, runtime.Preparer for a method of it)
# must appear in that section, so no break ships unannounced.
version() { sed -n 's/^const Version = "\(.*\)"$/\1/p' "$1/runtime/version.go"; }
cur=$(version .)
was=$(version "$work/base")
minor() { local v=${1#v}; v=${v#0.}; echo "${v%%.*}"; }
if [[ $cur == 0.* && $was == 0.* && $(minor "$cur") -gt $(minor "$was") ]]; then
  section=$(awk -v h="## $cur" 'index($0, h) == 1 { on = 1; next } on && /^## / { exit } on' CHANGELOG.md)
  if [[ -z $section ]]; then
    echo "apidiff: $cur breaks the API of $was, but CHANGELOG.md has no \"## $cur\" section naming the breaks:"
    echo "$out" | sed 's/^/  /'
    exit 1
  fi
  # The version constant itself changes with every release.
  out=$(grep -vF -- '- ./runtime.Version: value changed' <<<"$out" || true)
  missing=""
  while IFS= read -r line; do
    name=$(sed -n 's/^- \.\/\([^:]*\):.*/\1/p' <<<"$line")
    [[ -z $name ]] && continue
    name=${name##*/}
    name=${name//\(\*/}
    name=${name//)/}
    name=$(cut -d. -f1-2 <<<"$name")
    if ! grep -qF "$name" <<<"$section"; then
      missing+="  $line (name $name in the section)"$'\n'
    fi
  done <<<"$out"
  if [[ -n $missing ]]; then
    echo "apidiff: $cur breaks the API of $was where CHANGELOG.md's $cur section does not say so:"
    printf '%s' "$missing"
    exit 1
  fi
  echo "apidiff: $cur breaks the API of $was; CHANGELOG.md's $cur section names every break:"
  echo "$out" | sed 's/^/  /'
  exit 0
fi
echo "apidiff: the exported API is incompatible with $base ($was; this is $cur):"
echo "$out" | sed 's/^/  /'
exit 1
