#!/usr/bin/env bash
# Renders the bundled example's HTML report and photographs it in headless Chromium for
# docs/screenshots/ (desktop 1280 px and phone 390 px wide, light and dark), the pictures in the
# README. Needs a build (ci/build.sh) and Chromium (ci/setup.sh --tests).
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
    --window-size="$1,$2" --screenshot="$4" "file://$work/report.html" >/dev/null 2>&1
}
shoot 1280 1560 light "$out/report-desktop-light.png"
shoot 1280 1560 dark "$out/report-desktop-dark.png"
shoot 390 2400 light "$out/report-phone-light.png"
shoot 390 2400 dark "$out/report-phone-dark.png"
ls -l "$out"
