#!/usr/bin/env bash
# Photographs each kind of HTML page perfgate writes, in headless Chromium, for docs/screenshots/
# (the pictures in the README and docs/reports.md), at a desktop's 1280 px and a phone's 390 px:
#   report-*     the bundled example's report (light and dark);
#   compare-*    ResNet-50 with 4 DataLoader workers gated against the one with none (shared);
#   trend-*      the trend page of a history of those two runs, three of each (shared);
#   memory-resnet50, timeline-resnet50: two sections of the shared ResNet-50 report.
# The shared ones need ../shared/traces beside the checkout (skipped without it). Needs a build
# (ci/build.sh) and Chromium (ci/setup.sh --tests).
# Usage: ci/screenshots.sh [--out DIR] [--perfgate BINARY] [--only report]
#   --only report: the example's report alone (the suite's ChartFit.ScreenshotScriptRuns runs that).
set -euo pipefail
cd "$(dirname "$0")/.."
out=docs/screenshots
only=""
perfgate_arg=""
while [ $# -gt 0 ]; do
  case "$1" in
    --out) out="$2"; shift 2 ;;
    --only) only="$2"; shift 2 ;;
    --perfgate) perfgate_arg="$2"; shift 2 ;;
    *) echo "ci/screenshots.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
perfgate="${perfgate_arg:-$PWD/build/perfgate}"
shoot() {  # width height scheme file [page]
  local profile
  profile=$(mktemp -d -p "$work")
  local dark=()
  if [ "$3" = dark ]; then dark=(--force-dark-mode); fi
  timeout 120 chromium --headless=new --no-sandbox --disable-gpu --user-data-dir="$profile" --no-first-run \
    --disable-background-networking --disable-component-update --hide-scrollbars "${dark[@]}" \
    --window-size="$1,$2" --screenshot="$4" "file://$work/${5:-report.html}" >/dev/null 2>&1
  test -s "$4" || { echo "ci/screenshots.sh: no picture $4" >&2; exit 1; }
}
# One section of a page as a page of its own (headless screenshots do not scroll to an anchor).
section() {  # page id out
  awk '/<body/{exit} {print}' "$1" >"$3"
  echo '<body><main>' >>"$3"
  awk -v id="$2" 'index($0, "<section id=\"" id "\""){on=1} on{print} on && /<\/section>/{exit}' "$1" >>"$3"
  # The page's script, so that the section's charts are laid out for the width they get.
  awk '/<script>$/{on=1} on{print} /<\/script>/{on=0}' "$1" >>"$3"
  echo '</main></body></html>' >>"$3"
}
"$perfgate" analyze examples/small_training.pt.trace.json.gz -q --html "$work/report.html" || true
shoot 1280 1560 light "$out/report-desktop-light.png"
shoot 390 2400 light "$out/report-phone-light.png"
if [ "$only" = report ]; then ls -l "$out"; exit 0; fi
shoot 1280 1560 dark "$out/report-desktop-dark.png"
shoot 390 2400 dark "$out/report-phone-dark.png"
shared=../shared/traces
if [ -f "$shared/resnet50_v100_workers0.pt.trace.json.gz" ]; then
  workers0="$shared/resnet50_v100_workers0.pt.trace.json.gz" workers4="$shared/resnet50_v100_workers4.pt.trace.json.gz"
  "$perfgate" analyze "$workers0" -q --html "$work/resnet.html" --json "$work/workers0.json" || true
  section "$work/resnet.html" memory "$work/memory.html"
  section "$work/resnet.html" timeline "$work/timeline.html"
  shoot 1280 560 light "$out/memory-resnet50.png" memory.html
  shoot 1280 560 light "$out/timeline-resnet50.png" timeline.html
  "$perfgate" analyze "$workers4" --baseline "$workers0" -q --fail-on never --html "$work/compare.html" \
    --json "$work/workers4.json" || true
  shoot 1280 1560 light "$out/compare-desktop-light.png" compare.html
  shoot 390 2400 light "$out/compare-phone-light.png" compare.html
  for k in 1 2 3 4 5 6; do  # three runs without DataLoader workers, then three with 4
    report="$work/workers0.json"
    if [ "$k" -gt 3 ]; then report="$work/workers4.json"; fi
    "$perfgate" history import "$work/history.db" "$report" --branch main --commit "run$k" >/dev/null
  done
  (cd "$work" && "$perfgate" history trend history.db --html trend.html -q) || true  # the page names history.db
  shoot 1280 1560 light "$out/trend-desktop-light.png" trend.html
  shoot 390 2400 light "$out/trend-phone-light.png" trend.html
fi
ls -l "$out"
