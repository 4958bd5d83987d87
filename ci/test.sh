#!/usr/bin/env bash
# The README's second command: install dependencies and build if needed, then run every test:
# the release build's, the sanitizer build's, and a short fuzz run.
set -euo pipefail
cd "$(dirname "$0")/.."
ci/setup.sh --tests --fuzz
ci/build.sh
ctest --test-dir build --output-on-failure -j "$(nproc)"
# The same suite under AddressSanitizer + UBSan (clang, build-sanitize/), then each fuzz harness for
# 30 s from the same build, so that CI ends within 30 minutes on 2 cores (PERFGATE_FUZZ_SECONDS=0
# skips them; longer runs: ci/fuzz.sh SECONDS).
ci/sanitize.sh
if [ "${PERFGATE_FUZZ_SECONDS:-30}" -gt 0 ]; then ci/fuzz.sh "${PERFGATE_FUZZ_SECONDS:-30}"; fi
