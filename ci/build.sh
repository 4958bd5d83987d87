#!/usr/bin/env bash
# Configures and builds perfgate into build/ (Release, warnings as errors).
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DPERFGATE_WERROR=ON >/dev/null
cmake --build build -j "$(nproc)"
