#!/usr/bin/env bash
# The README's second command: install dependencies and build if needed, then run every test.
set -euo pipefail
cd "$(dirname "$0")/.."
ci/setup.sh --tests
ci/build.sh
ctest --test-dir build --output-on-failure -j "$(nproc)"
