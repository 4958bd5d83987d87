#!/usr/bin/env bash
# Every shared input and reference analysed with every prose output, then checked for terms of
# another capture (tests/real/foreign_terms.py; issue 89: a report speaks of the capture in front of
# it). Usage: capture_words_test.sh SOURCE_DIR PERFGATE [SHARED]; exit 77 where ../shared is absent.
set -euo pipefail
here="$1"
perfgate="$2"
shared="${3:-$here/../shared}"
if [ ! -d "$shared/traces" ] || [ ! -d "$shared/references" ]; then
  echo "capture_words_test.sh: $shared/traces and $shared/references are not here: nothing to check" >&2
  exit 77
fi
python3 "$here/tests/real/foreign_terms.py" --self-test
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
unset GITHUB_ACTIONS GITHUB_STEP_SUMMARY GITLAB_CI CI NO_COLOR
shopt -s nullglob
inputs=("$shared"/traces/*.json.gz "$shared"/traces/nsys/*.sqlite "$shared"/traces/distributed_128ranks_sampled
  "$shared"/references/rocprofv3/*.json.gz "$shared"/references/memory_snapshots/*.pickle
  "$shared"/references/nsys_2026/*.sqlite "$shared"/references/serving_graphs/*/*.json.gz
  "$shared"/references/tpu/*.pb "$shared"/references/xplane/*.pb "$shared"/references/hta_critical_path/*.json.gz)
for input in "${inputs[@]}"; do
  name="$(basename "$input")"
  name="${name%%.*}"
  # Two inputs of one name (a folder's traces): the second keeps its parent's name too.
  [ -e "$work/$name.json" ] && name="$(basename "$(dirname "$input")")_$name"
  rc=0
  "$perfgate" analyze "$input" --json "$work/$name.json" --html "$work/$name.html" --md "$work/$name.md" \
    --pr-comment "$work/$name.pr.md" --junit "$work/$name.junit.xml" --no-color --no-progress \
    >"$work/$name.txt" 2>"$work/$name.err" || rc=$?
  if [ "$rc" -gt 1 ]; then
    echo "capture_words_test.sh: perfgate analyze $input exited $rc:" >&2
    cat "$work/$name.err" >&2
    exit 1
  fi
done
python3 "$here/tests/real/foreign_terms.py" "$work"
