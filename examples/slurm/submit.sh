#!/usr/bin/env bash
# Submits perfgate's analysis of a large run to Slurm: an array job of N tasks, each analysing its
# slice of the ranks into a partial report (perfgate-slice.sbatch), and a merge job that combines
# the partials into the run's report and applies the gate (perfgate-merge.sbatch). The merge job
# depends on the array job with afterok and --kill-on-invalid-dep=yes: it runs once every task
# succeeded, and is cancelled (writing nothing) when one failed, instead of pending forever.
#
# Usage: submit.sh [-n N] -d DIR INPUT... [-- MERGE_OPTION...]
#   -n N     array tasks, one slice of the inputs' rank files each (default 4; at most one per file)
#   -d DIR   a new or empty folder on a file system every node sees: DIR/partials/ gets the
#            partial reports, DIR/logs/ the jobs' output
#   INPUT    trace files or run folders (a folder: one trace per rank); relative paths are
#            relative to this folder, where the jobs run
#   MERGE_OPTION  perfgate merge's options (reports, rules, baseline, --fail-on,
#            --allow-missing-ranks); default: --json DIR/report.json --html DIR/report.html
# Prints "slices ARRAY_JOB_ID" and "merge MERGE_JOB_ID". The merge job's exit code is the gate's.
# Environment: PERFGATE (the perfgate the jobs run, default perfgate on PATH) and sbatch's own
# SBATCH_PARTITION, SBATCH_ACCOUNT, SBATCH_TIMELIMIT, ... (both jobs).
set -euo pipefail

usage() {
  echo "usage: $0 [-n N] -d DIR INPUT... [-- MERGE_OPTION...]" >&2
  exit 2
}
here=$(cd "$(dirname "$0")" && pwd)
tasks=4
dir=""
while getopts "n:d:h" opt; do
  case $opt in
    n) tasks=$OPTARG ;;
    d) dir=$OPTARG ;;
    *) usage ;;
  esac
done
shift $((OPTIND - 1))
inputs=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
  inputs+=("$1")
  shift
done
[ $# -gt 0 ] && shift  # the "--"
merge_options=("$@")
if [ -z "$dir" ] || [ ${#inputs[@]} -eq 0 ]; then usage; fi
if ! [[ $tasks =~ ^[1-9][0-9]*$ ]]; then
  echo "submit.sh: -n wants a positive number of tasks, not '$tasks'" >&2
  exit 2
fi

mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
partials=$dir/partials
logs=$dir/logs
# The merge reads every *.pgp of the folder: another run's partials there would be merged too.
if [ -d "$partials" ] && [ -n "$(ls -A "$partials")" ]; then
  echo "submit.sh: $partials is not empty (a previous run's partials would be merged); use a new -d DIR" >&2
  exit 2
fi
mkdir -p "$partials" "$logs"
if [ ${#merge_options[@]} -eq 0 ]; then merge_options=(--json "$dir/report.json" --html "$dir/report.html"); fi

# --parsable prints "ID" or, on a federation, "ID;CLUSTER".
array=$(sbatch --parsable --array="0-$((tasks - 1))" --output="$logs/%x-%A_%a.out" \
  "$here/perfgate-slice.sbatch" "$partials" "${inputs[@]}")
array=${array%%;*}
if ! merge=$(sbatch --parsable --dependency="afterok:$array" --kill-on-invalid-dep=yes \
  --output="$logs/%x-%j.out" "$here/perfgate-merge.sbatch" "$partials" "${merge_options[@]}"); then
  scancel "$array" || true
  echo "submit.sh: the merge job was not submitted; array job $array cancelled" >&2
  exit 1
fi
merge=${merge%%;*}
echo "slices $array"
echo "merge $merge"
