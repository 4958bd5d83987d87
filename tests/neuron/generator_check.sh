#!/usr/bin/env bash
# The Neuron reader against an independent reading (issues 39, 54): profiles written by
# bench/make_neuron_profile.py (the structure of real neuron-profile 2.27 files: metadata as a list,
# instruction_usage, nc_mem_usage, keys in any order), three seeds and metadata first, read by
# perfgate and checked by bench/check_neuron_profile.py, which reads the profile with Python's json
# module alone. Usage: generator_check.sh SOURCE_DIR PERFGATE
set -euo pipefail
src="$1" perfgate="$2"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
for run in "1 metadata" "2 instruction_usage" "3 nc_mem_usage"; do
  read -r seed first <<<"$run"
  python3 "$src/bench/make_neuron_profile.py" "$work/p$seed.json" 1 "$seed" "$first"
  "$perfgate" analyze "$work/p$seed.json" --json "$work/r$seed.json" -q
  python3 "$src/bench/check_neuron_profile.py" "$work/p$seed.json" "$work/r$seed.json"
done
