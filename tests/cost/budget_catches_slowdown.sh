#!/usr/bin/env bash
# The speed budget must fail on a slowdown of 5%: the example is counted against a budget 5% below
# its own committed figure (the same as a binary that costs 5.3% more), and must exit 1 naming it;
# against the committed figure it must pass. Usage: budget_catches_slowdown.sh SOURCE_DIR PERFGATE
set -euo pipefail
src="$1" perfgate="$2"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
committed=$(awk -F'\t' '$1 == "example" { print $2 }' "$src/bench/cost-budget.tsv")
[ -n "$committed" ] || { echo "no 'example' line in bench/cost-budget.tsv" >&2; exit 1; }
printf 'example\t%d\n' "$((committed * 95 / 100))" >"$work/tight.tsv"
status=0
"$src/ci/cost-budget.sh" --perfgate "$perfgate" --only example --budget "$work/tight.tsv" >"$work/out" 2>&1 || status=$?
cat "$work/out"
if [ "$status" -ne 1 ] || ! grep -q 'example .*OVER' "$work/out"; then
  echo "FAIL: a 5% slowdown was not caught (exit $status)" >&2
  exit 1
fi
echo "a 5% slowdown of the example fails the budget (exit 1)"
