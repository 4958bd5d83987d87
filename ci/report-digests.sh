#!/usr/bin/env bash
# Every report of every shared input, as digests: a change that should not change what perfgate
# says (a refactoring, a speed-up) is checked against the digests recorded before it.
#
#   ci/report-digests.sh [--perfgate BIN] [--shared DIR]            prints "CASE FILE SHA256" lines
#   ci/report-digests.sh --check FILE [--perfgate BIN] [--shared DIR] compares with FILE; exit 1 on a
#                                                                      difference, 77 without DIR
#   ci/report-digests.sh --update [--perfgate BIN]                    rewrites tests/real/report_digests.txt
#   --only CASE                                                       one case ("analyze:examples/…"):
#                                                                      its lines alone printed or checked
#
# The cases: `analyze` of every trace, export and reference in ../shared (traces/, references/),
# the project's own real files (tests/data/) and the example, each with every output (JSON, HTML,
# Markdown, PR comment, XLSX unpacked, JUnit, GitLab, GitHub annotations, the terminal summary);
# gated runs against a profile, a JSON report and a run history; partial reports and their merge.
# GitLab's entries are put on train.py (--gitlab-path): by default they name the first profile
# relative to the working folder, which depends on where the checkout is (the default is tested in
# tests/render/). A report of a run is the same bytes for the same input (no --timestamp), so any difference is a
# change of what perfgate says. The suite runs --check (Reports.SameAsRecorded); a change that
# changes a report runs --update and says why in its commit.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
perfgate="$here/build/perfgate"
shared="$here/../shared"
mode=print
only=""
recorded="$here/tests/real/report_digests.txt"
while (($#)); do
  case "$1" in
    --perfgate) perfgate="$(realpath "$2")"; shift 2 ;;
    --shared) shared="$2"; shift 2 ;;
    --check) mode=check; recorded="$(realpath "$2")"; shift 2 ;;
    --update) mode=update; shift ;;
    --only) only="$2"; shift 2 ;;
    *) echo "usage: ci/report-digests.sh [--check FILE|--update] [--perfgate BIN] [--shared DIR] [--only CASE]" >&2
      exit 2 ;;
  esac
done
if [ -n "$only" ] && [ "$mode" = update ]; then
  echo "ci/report-digests.sh: --update records every case, not --only one" >&2
  exit 2
fi
if [ ! -d "$shared/traces" ] || [ ! -d "$shared/references" ]; then
  echo "ci/report-digests.sh: $shared/traces and $shared/references are not here: nothing to compare" >&2
  exit 77
fi
shared="$(cd "$shared" && pwd)"
command -v unzip >/dev/null || { echo "ci/report-digests.sh: needs unzip (ci/setup.sh --tests)" >&2; exit 2; }

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# The reports name their inputs as given: the same relative names whatever the checkout's folder.
mkdir -p "$work/in"
ln -s "$shared" "$work/in/shared"
ln -s "$here/tests/data" "$work/in/data"
ln -s "$here/examples" "$work/in/examples"
cd "$work/in"
# Nothing from the CI system or the locale may enter a report.
unset GITHUB_ACTIONS GITHUB_STEP_SUMMARY GITHUB_SHA GITHUB_REF_NAME GITLAB_CI CI_COMMIT_SHA CI_COMMIT_REF_NAME \
  CI BUILDKITE JENKINS_URL PERFGATE_MAX_MEMORY PERFGATE_MAX_INPUT_MEMORY NO_COLOR
export TZ=UTC LC_ALL=C.UTF-8

out="$work/digests"
: >"$out"
# digest CASE FOLDER: one line per file the case wrote (an XLSX workbook by its unpacked parts).
digest() {
  local name="$1" dir="$2" f
  while IFS= read -r f; do
    case "$f" in
      *.xlsx)
        local x="$work/xlsx"
        rm -rf "$x" && mkdir -p "$x" && unzip -q -o "$dir/$f" -d "$x"
        (cd "$x" && find . -type f | LC_ALL=C sort | while IFS= read -r p; do
          printf '%s %s:%s %s\n' "$name" "$f" "${p#./}" "$(sha256sum <"$p" | cut -c1-64)"
        done) >>"$out" ;;
      *) printf '%s %s %s\n' "$name" "$f" "$(sha256sum <"$dir/$f" | cut -c1-64)" >>"$out" ;;
    esac
  done < <(cd "$dir" && find . -type f | sed 's|^\./||' | LC_ALL=C sort)
}

wanted() { [ -z "$only" ] || [ "$only" = "$1" ]; }

# run CASE PERFGATE-ARGS...: the run with every output into its own folder; its exit code, stdout
# (the terminal summary and GitHub's annotations) and stderr are part of what it says.
run() {
  local name="$1" dir="cases/${1//\//_}"
  shift
  wanted "$name" || return 0
  mkdir -p "$dir/gitlab"
  local code=0
  "$perfgate" "$@" --no-progress --no-color --github --json "$dir/report.json" --html "$dir/report.html" \
    --md "$dir/summary.md" --pr-comment "$dir/comment.md" --xlsx "$dir/report.xlsx" --junit "$dir/junit.xml" \
    --gitlab "$dir/gitlab" --gitlab-path train.py >"$dir/stdout.txt" 2>"$dir/stderr.txt" || code=$?
  echo "$code" >"$dir/exit-code"
  digest "$name" "$dir"
}

cases=()
for f in shared/traces/*.json.gz shared/traces/nsys/*.sqlite shared/references/hta_critical_path/*.json.gz \
  shared/references/xplane/*.pb shared/references/tpu/*.pb shared/references/rocprofv3/*.json.gz shared/references/nsys_2026/*.sqlite \
  shared/references/memory_snapshots/*.pickle data/*.xplane.pb.gz data/*.pickle.gz data/*.pt.trace.json.gz \
  examples/*.json.gz; do
  [ -e "$f" ] && cases+=("$f")
done
for f in shared/references/serving_graphs/*/*.json.gz; do cases+=("$f"); done  # with their capture traces
cases+=(shared/traces/distributed_128ranks_sampled)
for f in "${cases[@]}"; do
  run "analyze:$f" analyze "$f"
done

# Gated runs: a profile, a JSON report and a history as the baseline.
run "gate:fsdp-after-vs-before" analyze shared/traces/nsys/h100x2_fsdp_training_after.sqlite \
  --baseline shared/traces/nsys/h100x2_fsdp_training_before.sqlite --fail-on warning
run "gate:resnet-workers4-vs-report" analyze shared/traces/resnet50_v100_workers4.pt.trace.json.gz \
  --baseline "cases/analyze:shared_traces_resnet50_v100_workers0.pt.trace.json.gz/report.json"
history=history.db
wanted "gate:example-vs-history" && for k in 1 2 3; do
  "$perfgate" analyze examples/small_training.pt.trace.json.gz --history "$history" --record --branch main \
    --commit "c$k" -q --no-progress >/dev/null 2>&1 || true
done
run "gate:example-vs-history" analyze examples/small_training.pt.trace.json.gz --baseline "$history" \
  --baseline-branch main
# A run folder as two partial reports, merged.
parts=parts
mkdir -p "$parts"
wanted "merge:distributed_128ranks_sampled" && for k in 0 1; do
  "$perfgate" analyze shared/traces/distributed_128ranks_sampled --partial "$parts/part$k.pgp" --slice "$k/2" \
    -q --no-progress >/dev/null 2>&1 || echo "partial $k failed" >>"$out"
done
run "merge:distributed_128ranks_sampled" merge "$parts" --allow-missing-ranks

case "$mode" in
  print) cat "$out" ;;
  update) cp "$out" "$recorded" && echo "ci/report-digests.sh: $(wc -l <"$out") digests written to $recorded" >&2 ;;
  check)
    if [ -n "$only" ]; then  # the recorded lines of that case alone
      awk -v c="$only" '$1 == c' "$recorded" >"$work/recorded"
      recorded="$work/recorded"
    fi
    if diff -u "$recorded" "$out" >"$work/diff"; then
      echo "ci/report-digests.sh: $(wc -l <"$out") reports as recorded" >&2
    else
      echo "ci/report-digests.sh: reports differ from $recorded (- recorded, + now):" >&2
      # The first 100 changed lines, read to the end (a `head` would end grep with SIGPIPE: exit 141).
      awk '/^[-+][^-+]/ && shown++ < 100' "$work/diff" >&2
      exit 1
    fi ;;
esac
