#!/usr/bin/env bash
# The speed budget: counts the instructions `perfgate analyze` (and `merge`) executes on a fixed set of
# inputs with valgrind's cachegrind and compares each with bench/cost-budget.tsv. Instruction counts
# are deterministic for a given binary and input, whatever else the machine is doing, so a change
# that makes perfgate slower fails the suite instead of going unnoticed (the way SQLite tracks its
# speed). docs/performance.md#the-speed-budget.
#
# Usage: ci/cost-budget.sh [--perfgate PATH] [--margin PCT] [--budget FILE] [--only NAME] [--update]
#   --margin PCT   allowed growth over the budget per input, in percent (default 3)
#   --only NAME    count one input of the set (its name in the budget file)
#   --update       measure and rewrite the budget file; commit it with a message that says why
# Exit status: 0 within budget, 1 over budget on some input, 2 usage or setup error.
# Inputs from ../shared/traces are skipped (and said so) where that folder is absent.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
perfgate="$root/build/perfgate"
budget="$root/bench/cost-budget.tsv"
margin=3
update=0
only=""
while (($#)); do
  case "$1" in
    --perfgate) perfgate="$2"; shift 2 ;;
    --margin) margin="$2"; shift 2 ;;
    --budget) budget="$2"; shift 2 ;;
    --only) only="$2"; shift 2 ;;
    --update) update=1; shift ;;
    *) echo "usage: ci/cost-budget.sh [--perfgate PATH] [--margin PCT] [--budget FILE] [--only NAME] [--update]" >&2
      exit 2 ;;
  esac
done
[[ "$margin" =~ ^[0-9]+(\.[0-9]+)?$ ]] || { echo "ci/cost-budget.sh: --margin takes a percentage, not '$margin'" >&2; exit 2; }
if ((update)) && [ -n "$only" ]; then
  echo "ci/cost-budget.sh: --update measures the whole set, not --only one input" >&2
  exit 2
fi
command -v valgrind >/dev/null || { echo "ci/cost-budget.sh: valgrind is not installed (ci/setup.sh --tests)" >&2; exit 2; }
[ -x "$perfgate" ] || { echo "ci/cost-budget.sh: no perfgate binary at $perfgate (ci/build.sh)" >&2; exit 2; }
shared="${PERFGATE_SHARED:-$root/../shared}/traces"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# One thread: the counts of a parallel parse depend on how the pieces were cut between threads.
# Every report is written, so rendering is in the budget too.
outputs=(--threads 1 --no-progress --json "$work/r.json" --html "$work/r.html" --md "$work/r.md"
  --xlsx "$work/r.xlsx" --junit "$work/r.xml")

# Prints the instructions (cachegrind's "I refs") that a command executed. perfgate forks a child that
# renames the outputs into place; its count (the parent's up to the fork, plus its own) went to the
# same log, and whichever process ended first was read: 0.3-1% apart from run to run. Only the
# parent's is counted.
count() {
  local log="$work/cachegrind.log" status=0
  valgrind --tool=cachegrind --cache-sim=no --child-silent-after-fork=yes --cachegrind-out-file=/dev/null \
    --log-file="$log" "$@" \
    >/dev/null 2>"$work/stderr" || status=$?
  # 0 pass, 1 gate failed: both are complete runs; anything else is not a run to count, but for
  # the status an input expects (refused_status: the empty trace's 3, "no profiled activity").
  if ((status > 1 && status != ${refused_status:-0})); then
    echo "ci/cost-budget.sh: '$*' exited $status:" >&2
    cat "$work/stderr" >&2
    exit 2
  fi
  sed -n 's/.*I *refs: *\([0-9,]*\).*/\1/p' "$log" | tr -d , | head -n 1
}

names=()
declare -A measured=()
wanted() { [ -z "$only" ] || [ "$only" = "$1" ]; }
measure() {  # NAME COMMAND...
  local name="$1"
  shift
  wanted "$name" || return 0
  names+=("$name")
  measured[$name]="$(count "$@")"
}

# A run's fixed cost: an empty trace's JSON report (issue 96: at most 3 M instructions; 5.81 M before).
! wanted empty-trace || echo '{"traceEvents": []}' >"$work/empty.json"
# perfgate refuses it (exit 3) after the start-up, the rule book and the check of the rules' patterns.
refused_status=3 measure empty-trace "$perfgate" analyze "$work/empty.json" --threads 1 --no-progress --json "$work/r.json"
measure example "$perfgate" analyze "$root/examples/small_training.pt.trace.json.gz" "${outputs[@]}"
! wanted neuron-json || python3 "$root/bench/make_neuron_profile.py" "$work/neuron.json" 1 >/dev/null
measure neuron-json "$perfgate" analyze "$work/neuron.json" "${outputs[@]}"
# Scale: 4,000 nested ops and 4,000 graph captures, whose costs were quadratic (issue 55, item 4:
# 374 M and 1,254 M instructions before, 65 M and 267 M linear).
# And 666 units of inferred iterations whose longest-run search was cubic (issue 58: 1,195 M
# instructions with the JSON alone before, 199 M after).
if wanted nested-ops-4000 || wanted graph-captures-4000 || wanted inferred-units-666; then
  python3 "$root/bench/make_scale_trace.py" "$work/scale" 4000
fi
measure nested-ops-4000 "$perfgate" analyze "$work/scale/nested.json" "${outputs[@]}"
measure graph-captures-4000 "$perfgate" analyze "$work/scale/captures/trace.json" "${outputs[@]}"
measure inferred-units-666 "$perfgate" analyze "$work/scale/inferred.json" "${outputs[@]}"
# What a rank costs whatever its size: 512 tiny ranks (issue 78: 65,536 of them took 135 s of CPU), with
# the JSON report alone, as the issue measured them (every report of 512 workers is another input's cost).
! wanted tiny-ranks-512 || python3 "$root/bench/make_tiny_ranks.py" "$work/tiny" 512
measure tiny-ranks-512 "$perfgate" analyze "$work/tiny" --threads 1 --no-progress --json "$work/r.json"
if [ -d "$shared" ]; then
  # A plain .json (memory-mapped), a .json.gz (inflated as read), an nsys export, a run folder, and
  # the merge of that folder's two partial reports.
  ! wanted a100-alexnet-json || gzip -dc "$shared/a100_alexnet.json.gz" >"$work/a100_alexnet.json"
  measure a100-alexnet-json "$perfgate" analyze "$work/a100_alexnet.json" "${outputs[@]}"
  measure resnet50-v100-json.gz "$perfgate" analyze "$shared/resnet50_v100_workers0.pt.trace.json.gz" "${outputs[@]}"
  measure nsys-fsdp-sqlite "$perfgate" analyze "$shared/nsys/h100x2_fsdp_training_before.sqlite" "${outputs[@]}"
  measure run-folder-2-ranks "$perfgate" analyze "$shared/distributed_128ranks_sampled" \
    "${outputs[@]}"
  for k in 0 1; do
    wanted merge-2-parts || break
    "$perfgate" analyze "$shared/distributed_128ranks_sampled" --threads 1 --no-progress --slice "$k/2" \
      --partial "$work/part$k.pgp" >/dev/null 2>&1 || true
  done
  measure merge-2-parts "$perfgate" merge "$work/part0.pgp" "$work/part1.pgp" --allow-missing-ranks "${outputs[@]}"
else
  echo "ci/cost-budget.sh: $shared is absent: only the inputs of the project itself are counted" >&2
fi

if ((${#names[@]} == 0)); then
  echo "ci/cost-budget.sh: no input is named '$only'" >&2
  exit 2
fi
if ((update)); then
  {
    echo "# input	instructions	(ci/cost-budget.sh --update; commit with a message that says why the cost changed)"
    for name in "${names[@]}"; do printf '%s\t%s\n' "$name" "${measured[$name]}"; done
  } >"$budget"
  echo "ci/cost-budget.sh: wrote $budget"
  column -t -s $'\t' "$budget"
  exit 0
fi

[ -f "$budget" ] || { echo "ci/cost-budget.sh: no budget file $budget (ci/cost-budget.sh --update)" >&2; exit 2; }
declare -A allowed=()
while IFS=$'\t' read -r name instructions _; do
  [[ "$name" == \#* || -z "$name" ]] && continue
  allowed[$name]="$instructions"
done <"$budget"

over=0
printf '%-24s %16s %16s %9s\n' input budget measured change
for name in "${names[@]}"; do
  if [ -z "${allowed[$name]:-}" ]; then
    echo "ci/cost-budget.sh: $name has no budget in $budget (ci/cost-budget.sh --update)" >&2
    over=1
    continue
  fi
  read -r change verdict < <(awk -v b="${allowed[$name]}" -v m="${measured[$name]}" -v lim="$margin" \
    'BEGIN { c = 100 * (m - b) / b; printf "%+.2f%% %s\n", c, (c > lim ? "OVER" : "ok") }')
  printf '%-24s %16s %16s %9s  %s\n' "$name" "${allowed[$name]}" "${measured[$name]}" "$change" "$verdict"
  [ "$verdict" = ok ] || over=1
done
if ((over)); then
  echo "ci/cost-budget.sh: over the speed budget (margin +${margin}%): find what costs more, or, if the cost is" \
    "worth it, run ci/cost-budget.sh --update and say why in the commit" >&2
  exit 1
fi
echo "ci/cost-budget.sh: every input within +${margin}% of its budget"
