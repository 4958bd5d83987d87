#!/usr/bin/env bash
# The README's first command: install dependencies, build, and analyse the bundled example trace
# with the default rules. Prints the summary and writes out/report.json.
set -euo pipefail
cd "$(dirname "$0")/.."
ci/setup.sh
ci/build.sh
mkdir -p out
build/perfgate analyze examples/small_training.pt.trace.json.gz --json out/report.json
echo "JSON report: out/report.json"
