#!/usr/bin/env bash
# Times perfgate beside its peers in one run (issue 77, item 4): the PyTorch Profiler TensorBoard
# plugin and HTA as ../shared/tools/peers.sh sets them up, and TraceLens's PyTorch report where its
# source is given. Each peer runs in turn with perfgate writing every report (farm-bench --vs: peer,
# perfgate, peer, perfgate, ...), and the ratio peer / perfgate is taken pair by pair, in CPU seconds
# (user + system) and in wall seconds; the machine's load average is printed before and after, since
# this VM is shared. docs/performance.md ("Against the peers") holds a run's figures.
#
# usage: bench/peers.sh PEERS_DIR [RUNS] INPUT...
#   PEERS_DIR  the OUT_DIR of ../shared/tools/peers.sh (hta-run, tb-run), and tracelens-run where
#              TraceLens is set up (optional: skipped when absent)
#   RUNS       pairs per peer and input (default 5)
#   INPUT      a Kineto trace (.json or .json.gz), or a folder of them (a run of several ranks: HTA
#              reads the folder, the plugin and TraceLens each worker in turn, as their users would)
# PERFGATE (default build/perfgate) names the binary. Needs farm-bench (the timing tool of this
# workplace) on the PATH.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
[[ $# -ge 2 ]] || { sed -n '2,17p' "$0"; exit 2; }
peers="$(cd "$1" && pwd)"
shift
runs=5
if [[ "$1" =~ ^[0-9]+$ ]]; then
  runs=$1
  shift
fi
perfgate="${PERFGATE:-$root/build/perfgate}"
[ -x "$perfgate" ] || { echo "bench/peers.sh: no perfgate binary at $perfgate" >&2; exit 2; }
command -v farm-bench >/dev/null || { echo "bench/peers.sh: farm-bench is not on the PATH" >&2; exit 2; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# A peer over a folder: HTA takes the folder; the plugin and TraceLens one worker at a time.
peer_command() {  # PEER INPUT
  local run="$peers/$1-run" input="$2"
  if [ ! -d "$input" ]; then
    echo "/usr/bin/python3 $run $input"
  elif [ "$1" = hta ]; then
    echo "/usr/bin/python3 $peers/hta-dir-run $input"
  else
    echo "sh -c 'for f in $input/*.json*; do /usr/bin/python3 $run \"\$f\" || exit 1; done'"
  fi
}

# HTA's own reading of a folder: its TraceAnalysis over the folder, the same four analyses.
sed -e 's|^d = tempfile.mkdtemp()$|d = sys.argv[1]|' -e '/os.symlink/d' "$peers/hta-run" >"$peers/hta-dir-run"

echo "load before: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
for input in "$@"; do
  every_report=("$perfgate" analyze "$input" -q --no-progress --fail-on never --json "$work/r.json"
    --html "$work/r.html" --md "$work/r.md" --xlsx "$work/r.xlsx" --junit "$work/r.xml")
  for peer in tb hta tracelens; do
    [ -x "$peers/$peer-run" ] || { echo "== $peer: not set up in $peers, skipped"; continue; }
    echo "== $(basename "$input"): $peer against perfgate (every report), $runs pairs"
    # farm-bench runs A (the peer) and B (perfgate) in turn; its ratio line is A/B.
    eval "command=($(peer_command "$peer" "$input"))"
    farm-bench -n "$runs" --warmup 1 --timeout 3600 --vs "${every_report[*]}" -- "${command[@]}" |
      tee "$work/last" || true
    # One summary line: the medians of the peer's and perfgate's CPU, and of the paired ratios.
    awk -v input="$(basename "$input")" -v peer="$peer" '
      $1 == "A" && $2 == "cpu" { a = $5 } $1 == "B" && $2 == "cpu" { b = $5 }
      $1 == "A/B" && $2 == "cpu" { rc = $4 } $1 == "A/B" && $2 == "wall" { rw = $4 }
      END { printf "| %s | %s | %s s | %s s | %.1fx | %.1fx |\n", input, peer, a, b, rc, rw }' "$work/last" >>"$work/summary"
  done
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
echo
echo "| input | peer | peer CPU (median) | perfgate CPU, every report | CPU ratio (paired median) | wall ratio |"
echo "|---|---|---|---|---|---|"
cat "$work/summary"
