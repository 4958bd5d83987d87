#!/usr/bin/env bash
# ci/report-digests.sh --check fails when one report differs from the recorded digests: the
# recorded file with one digest changed (the example's JSON report) must not pass.
# Usage: report_digests_catch.sh SOURCE_DIR PERFGATE
set -euo pipefail
source_dir="$1" perfgate="$2"
planted="$(mktemp)"
trap 'rm -f "$planted"' EXIT
sed 's|^\(analyze:examples/small_training.pt.trace.json.gz report.json\) .*|\1 0000|' \
  "$source_dir/tests/real/report_digests.txt" >"$planted"
if cmp -s "$planted" "$source_dir/tests/real/report_digests.txt"; then
  echo "the example's JSON report is not among the recorded digests" >&2
  exit 1
fi
code=0
# That case alone: the whole set is Reports.SameAsRecorded's (a minute of the suite).
"$source_dir/ci/report-digests.sh" --check "$planted" --perfgate "$perfgate" \
  --only analyze:examples/small_training.pt.trace.json.gz 2>/dev/null || code=$?
case "$code" in
  1) echo "the changed digest was caught" ;;
  77) exit 77 ;;
  *) echo "ci/report-digests.sh --check exited $code on a changed digest, not 1" >&2; exit 1 ;;
esac
