#!/usr/bin/env bash
# Configures and builds perfgate into build/ (Release, warnings as errors): every target, or only
# the TARGETs given (ci/demo.sh builds `perfgate` alone, not the test suite).
# Usage: ci/build.sh [TARGET...]
set -euo pipefail
cd "$(dirname "$0")/.."
launcher=()
if command -v ccache >/dev/null; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DPERFGATE_WERROR=ON "${launcher[@]}" >/dev/null
targets=()
for target in "$@"; do targets+=(--target "$target"); done
cmake --build build -j "$(nproc)" "${targets[@]}"
