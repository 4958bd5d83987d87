#!/usr/bin/env bash
# Configures and builds perfgate into build/ (Release, warnings as errors): every target, or only
# the TARGETs given (ci/demo.sh builds `perfgate` alone, not the test suite).
# Usage: ci/build.sh [TARGET...]
set -euo pipefail
cd "$(dirname "$0")/.."
launcher=()
# ccache (where installed) rewrites the paths under the checkout as relative ones, so that two
# checkouts of the same sources, in any folders, share its cache.
if command -v ccache >/dev/null; then
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$PWD}"
  # The tests' precompiled header (tests/CMakeLists.txt) is cached only with these settings.
  export CCACHE_SLOPPINESS="${CCACHE_SLOPPINESS:-pch_defines,time_macros,include_file_mtime,include_file_ctime}"
fi
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DPERFGATE_WERROR=ON "${launcher[@]}" >/dev/null
targets=()
for target in "$@"; do targets+=(--target "$target"); done
cmake --build build -j "$(nproc)" "${targets[@]}"
