#!/usr/bin/env bash
# The README's first command: install dependencies, build perfgate (only the binary: the test suite
# is ci/test.sh's), and analyse the bundled example trace with the default rules. Prints the
# summary and writes every report into out/.
set -euo pipefail
cd "$(dirname "$0")/.."
ci/setup.sh
ci/build.sh perfgate
mkdir -p out/gitlab
build/perfgate analyze examples/small_training.pt.trace.json.gz \
  --json out/report.json --html out/report.html --xlsx out/report.xlsx --md out/summary.md \
  --pr-comment out/pr-comment.md --junit out/junit.xml --gitlab out/gitlab
