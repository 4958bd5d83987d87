#!/usr/bin/env bash
# Writes ci/test-costs.txt, the test costs that ci/test.sh gives ctest on a clean checkout so that it
# starts the costliest tests first (CTestCostData.txt's format: name, runs, seconds; then "---").
# Run after a whole release suite and a whole sanitizer suite; a test in both takes its larger cost.
# Usage: ci/record-test-costs.sh [BUILD_DIR...]   (default: build build-sanitize)
set -euo pipefail
cd "$(dirname "$0")/.."
dirs=("$@")
((${#dirs[@]})) || dirs=(build build-sanitize)
files=()
for d in "${dirs[@]}"; do
  f="$d/Testing/Temporary/CTestCostData.txt"
  [ -s "$f" ] || { echo "ci/record-test-costs.sh: no costs in $f: run its suite first" >&2; exit 2; }
  files+=("$f")
done
# The lines before each file's "---" (the failed tests' names follow it).
awk '/^---/ { nextfile } NF == 3 && $3 + 0 > cost[$1] { cost[$1] = $3 + 0 }
     END { for (t in cost) printf "%s 1 %.1f\n", t, cost[t] }' "${files[@]}" | sort -k3,3 -g -r >ci/test-costs.txt
echo "---" >>ci/test-costs.txt
echo "ci/record-test-costs.sh: $(($(wc -l <ci/test-costs.txt) - 1)) tests' costs in ci/test-costs.txt" >&2
