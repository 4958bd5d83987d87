#!/usr/bin/env bash
# CTest fixture Package.Build: makes the Debian package from the already-built build tree (cpack
# installs what the build made; nothing is compiled unless perfgate or its man pages are out of date).
# Usage: tests/package/build_deb.sh BUILD_DIR OUT_DIR
set -euo pipefail
build=$1
out=$2
cmake --build "$build" --target perfgate-man perfgate-changelog
rm -rf "$out"
mkdir -p "$out"
cpack -G DEB --config "$build/CPackConfig.cmake" -B "$out" >"$out/cpack.log" 2>&1 || {
  cat "$out/cpack.log" >&2
  exit 1
}
rm -rf "$out/_CPack_Packages"
ls "$out"/perfgate_*.deb
