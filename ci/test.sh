#!/usr/bin/env bash
# The README's second command: install dependencies and build if needed, then run every test:
# the release build's, the sanitizer build's, and a short fuzz run. Each phase's time goes to stderr,
# so that a CI log shows where its 30 minutes go.
set -euo pipefail
cd "$(dirname "$0")/.."
phase() {  # NAME COMMAND...: runs COMMAND, then prints how long it took
  local name="$1" start="$SECONDS"
  shift
  "$@"
  echo "ci/test.sh: $name took $((SECONDS - start)) s (${SECONDS} s in all)" >&2
}
# ctest starts the costliest tests first where it knows their costs (Testing/Temporary/CTestCostData.txt,
# written by each run); a clean checkout has none, and its longest tests (the browser's, valgrind's)
# started last and ran alone at the end. ci/test-costs.txt seeds it (ci/record-test-costs.sh).
seed_costs() {  # BUILD_DIR
  local costs="$1/Testing/Temporary/CTestCostData.txt"
  [ -s "$costs" ] || { mkdir -p "$(dirname "$costs")" && cp ci/test-costs.txt "$costs"; }
}
phase setup ci/setup.sh --tests --fuzz
phase build ci/build.sh
seed_costs build
phase tests ctest --test-dir build --output-on-failure -j "$(nproc)"
# The same suite under AddressSanitizer + UBSan (clang, build-sanitize/), then each fuzz harness for
# 10 s from the same build (15 harnesses, two at a time: about 80 s), so that CI ends within
# 30 minutes on 2 cores (PERFGATE_FUZZ_SECONDS=0 skips them; longer runs: ci/fuzz.sh SECONDS).
# Both reuse ccache across checkouts in any folder (CCACHE_NOHASHDIR in ci/sanitize.sh, ci/fuzz.sh).
seed_costs build-sanitize
phase sanitize ci/sanitize.sh
if [ "${PERFGATE_FUZZ_SECONDS:-10}" -gt 0 ]; then phase fuzz ci/fuzz.sh "${PERFGATE_FUZZ_SECONDS:-10}"; fi
