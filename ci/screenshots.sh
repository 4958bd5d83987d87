#!/usr/bin/env bash
# Renders the bundled example's HTML report and photographs it in headless Chromium for
# docs/screenshots/ (desktop 1280 px and phone 390 px wide, light and dark), the pictures in the
# README; where ../shared/traces is beside the checkout, also the GPU memory section and the
# timeline of the shared ResNet-50 trace (the example has no [memory] events). Needs a build
# (ci/build.sh) and Chromium (ci/setup.sh --tests).
set -euo pipefail
cd "$(dirname "$0")/.."
out=docs/screenshots
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
build/perfgate analyze examples/small_training.pt.trace.json.gz -q --html "$work/report.html" || true
shoot() {  # width height scheme file
  local profile
  profile=$(mktemp -d -p "$work")
  local dark=()
  if [ "$3" = dark ]; then dark=(--force-dark-mode); fi
  timeout 120 chromium --headless=new --no-sandbox --disable-gpu --user-data-dir="$profile" --no-first-run \
    --disable-background-networking --disable-component-update --hide-scrollbars "${dark[@]}" \
    --window-size="$1,$2" --screenshot="$4" "file://$work/${5:-report.html}" >/dev/null 2>&1
}
# One section of a page as a page of its own (headless screenshots do not scroll to an anchor).
section() {  # page id out
  awk -v id="$2" '/<body/{exit} {print}' "$1" >"$3"
  echo '<body><main>' >>"$3"
  awk -v id="$2" 'index($0, "<section id=\"" id "\""){on=1} on{print} on && /<\/section>/{exit}' "$1" >>"$3"
  echo '</main></body></html>' >>"$3"
}
shoot 1280 1560 light "$out/report-desktop-light.png"
shoot 1280 1560 dark "$out/report-desktop-dark.png"
shoot 390 2400 light "$out/report-phone-light.png"
shoot 390 2400 dark "$out/report-phone-dark.png"
shared=../shared/traces/resnet50_v100_workers0.pt.trace.json.gz
if [ -f "$shared" ]; then
  build/perfgate analyze "$shared" -q --html "$work/resnet.html" || true
  section "$work/resnet.html" memory "$work/memory.html"
  section "$work/resnet.html" timeline "$work/timeline.html"
  shoot 1280 560 light "$out/memory-resnet50.png" memory.html
  shoot 1280 560 light "$out/timeline-resnet50.png" timeline.html
fi
ls -l "$out"
