#!/usr/bin/env bash
# perfgate's instructions over the bare parse's, per shared Kineto trace (issue 77: "<= 2.0x the
# bare parse in instructions with --json"). Each trace is inflated to a plain .json in a temporary
# folder; valgrind's cachegrind counts `perfgate-bare-parse TRACE.json` (Boost.JSON with a no-op
# handler, bench/bare_parse.cpp) and `perfgate analyze TRACE.json -q --threads 1 --json OUT`
# (perfgate's own process, as ci/cost-budget.sh counts it). docs/performance.md.
# Usage: bench/bare_parse_ratios.sh [BUILD_DIR] [TRACES_DIR]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$root/build}"
traces="${2:-$root/../shared/traces}"
for tool in "$build/perfgate" "$build/perfgate-bare-parse"; do
  [ -x "$tool" ] || { echo "bench/bare_parse_ratios.sh: no $tool (ci/build.sh)" >&2; exit 2; }
done
command -v valgrind >/dev/null || { echo "bench/bare_parse_ratios.sh: valgrind is not installed" >&2; exit 2; }
[ -d "$traces" ] || { echo "bench/bare_parse_ratios.sh: no traces folder at $traces" >&2; exit 2; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# The instructions ("I refs") of a command, its children not counted.
count() {
  valgrind --tool=cachegrind --cache-sim=no --child-silent-after-fork=yes --cachegrind-out-file=/dev/null \
    --log-file="$work/log" "$@" >/dev/null 2>&1 || true
  sed -n 's/.*I *refs: *//p' "$work/log" | tr -d ','
}

printf '%-48s %10s %14s %14s %7s\n' trace "JSON bytes" "bare parse" "perfgate" ratio
find "$traces" -maxdepth 2 -name '*.json.gz' | sort | while read -r gz; do
  name="${gz#"$traces"/}"
  zcat "$gz" >"$work/trace.json"
  bare="$(count "$build/perfgate-bare-parse" "$work/trace.json")"
  full="$(count "$build/perfgate" analyze "$work/trace.json" -q --threads 1 --no-progress --json "$work/r.json")"
  printf '%-48s %10s %14s %14s %7s\n' "$name" "$(stat -c %s "$work/trace.json")" "$bare" "$full" \
    "$(awk -v a="$full" -v b="$bare" 'BEGIN { printf "%.2fx", a / b }')"
done
