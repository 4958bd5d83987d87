#!/usr/bin/env bash
# Package.CpackAfterDemoBuild (issue 55, item 2): `cpack -G DEB` after ci/demo.sh, which builds the
# perfgate binary alone, failed: "file INSTALL cannot find .../packaging/changelog.gz" (the changelog
# and the man pages were made by the full build only). The build tree's copies are removed, as a
# `ci/build.sh perfgate` tree lacks them; cpack must make them and the package must hold them.
# Usage: tests/package/cpack_after_demo.sh BUILD_DIR OUT_DIR
set -euo pipefail
build=$1
out=$2
rm -f "$build/packaging/changelog.gz"
rm -rf "$build/man"
rm -rf "$out"
mkdir -p "$out"
cpack -G DEB --config "$build/CPackConfig.cmake" -B "$out" >"$out/cpack.log" 2>&1 || {
  cat "$out/cpack.log" >&2
  exit 1
}
deb=$(ls "$out"/perfgate_*.deb)
contents=$(dpkg-deb -c "$deb")
for wanted in ./usr/share/doc/perfgate/changelog.gz ./usr/share/man/man1/perfgate.1.gz; do
  if ! grep -q " $wanted\$" <<<"$contents"; then
    echo "$deb lacks $wanted" >&2
    exit 1
  fi
done
rm -rf "$out"
echo "ok: cpack made the changelog and the man pages it packs"
