#!/usr/bin/env bash
# Measures the README's two commands and writes bench/results/commands.txt:
# make demo with an empty Go build cache and again warm, make test with an
# empty build cache and again warm (with the stores set, so nothing is
# skipped), the counts of the warm make test, the date, the machine and its
# load. Each warm run uses its cold run's build cache, so it measures what a
# repeated command costs, not the compiling the default cache still lacks. Run it on an idle machine, then commit the file and put the figures
# in the README ("Try it: two commands"; internal/readmecheck says which).
#
#   MCPWRITE_TEST_POSTGRES_DSN=... MCPWRITE_TEST_REDIS_ADDR=... .ci/measure-commands.sh
set -euo pipefail
cd "$(dirname "$0")/.."
: "${MCPWRITE_TEST_POSTGRES_DSN:?set it: the store tests are part of make test}"
: "${MCPWRITE_TEST_REDIS_ADDR:?set it: the store tests are part of make test}"
out=bench/results/commands.txt
summary=.test-output/summary.txt
cache=$(mktemp -d)
trap 'chmod -R u+w "$cache"; rm -rf "$cache"' EXIT
load() { cut -d' ' -f1-3 /proc/loadavg; }
# took SECONDS: "0.3 s", "55 s", "2 min 6 s", as the README writes durations.
took() {
  awk -v s="$1" 'BEGIN { if (s < 10) printf "%.1f s", s; else if (s < 60) printf "%d s", s + 0.5;
    else { t = int(s + 0.5); if (t % 60) printf "%d min %d s", t / 60, t % 60; else printf "%d min", t / 60 } }'
}
# time_of CMD...: runs the command, prints its wall-clock seconds.
time_of() { local t0; t0=$(date +%s.%N); "$@" >/dev/null; echo "$(date +%s.%N) - $t0" | bc; }
start_load=$(load)
demo_cold=$(time_of env GOCACHE="$cache/demo" make demo)
demo_warm=$(time_of env GOCACHE="$cache/demo" make demo)
test_first=$(time_of env GOCACHE="$cache/test" make test TESTREPORT_FLAGS="-require-stores")
test_warm=$(time_of env GOCACHE="$cache/test" make test TESTREPORT_FLAGS="-require-stores")
end_load=$(load)
{
  sed -n '1,5p' "$out"
  echo "# date: $(date -u +%Y-%m-%d)"
  echo "# machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(go env GOOS)/$(go env GOARCH)"
  echo "# load: load average $start_load at the start, $end_load at the end"
  echo "# make demo cold: an empty Go build cache, modules already downloaded"
  echo "# make test first run: an empty Go build cache; warm: the same command again"
  echo "# counts: the warm make test"
  echo "make demo (cold): $(took "$demo_cold")"
  echo "make demo (warm): $(took "$demo_warm")"
  echo "make test (first run): $(took "$test_first")"
  echo "make test (warm): $(took "$test_warm")"
  cat "$summary"
} > "$out.new"
mv "$out.new" "$out"
cat "$out"
