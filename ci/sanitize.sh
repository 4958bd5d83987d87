#!/usr/bin/env bash
# Builds the `sanitize` preset (CMakePresets.json: clang, AddressSanitizer + UBSan, any report fatal)
# into build-sanitize/ and runs the whole test suite there; the fuzz harnesses (ci/fuzz.sh) are
# built from the same objects. Needs clang and libclang-rt-14-dev: `ci/setup.sh --fuzz`.
set -euo pipefail
cd "$(dirname "$0")/.."
launcher=()
if command -v ccache >/dev/null; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
cmake --preset sanitize "${launcher[@]}" >/dev/null
cmake --build --preset sanitize -j "$(nproc)"
ctest --preset sanitize -j "$(nproc)"
