#!/usr/bin/env bash
# Builds the perfgate wheel (python/, docs/python.md) offline with Debian's python3-build,
# python3-wheel and python3-setuptools: the perfgate binary (ci/build.sh perfgate, or BINARY) and
# the libraries it needs that a machine with only Python lacks, bundled beside it. Where
# `auditwheel` is installed (the release workflow installs it; Debian 12 has no package), it
# bundles them (`auditwheel repair`: renamed copies, symbol versions checked against the manylinux
# policy, the wheel tagged manylinux_2_X); otherwise python/setup.py bundles them with patchelf.
# PERFGATE_WHEEL_REPAIR=patchelf or auditwheel chooses. Needs patchelf, strip (binutils) and ldd
# either way: a missing tool is named before anything is built.
# Usage: ci/wheel.sh [BINARY [OUT_DIR]]   (default: build/perfgate, dist/)
# Prints the wheel's path. The build runs in a temporary copy of python/, so the tree stays clean.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
binary="${1:-$root/build/perfgate}"
out="${2:-$root/dist}"
repair=${PERFGATE_WHEEL_REPAIR:-}
if [ -z "$repair" ]; then
  if command -v auditwheel >/dev/null; then repair=auditwheel; else repair=patchelf; fi
fi
case $repair in patchelf | auditwheel) ;; *) echo "ci/wheel.sh: PERFGATE_WHEEL_REPAIR must be patchelf or auditwheel, not '$repair'" >&2; exit 2 ;; esac
missing=()
for tool in patchelf strip ldd $([ "$repair" = auditwheel ] && echo auditwheel); do command -v "$tool" >/dev/null || missing+=("$tool"); done
/usr/bin/python3 -c 'import build, wheel, setuptools' 2>/dev/null || missing+=("python3-build, python3-wheel, python3-setuptools")
if ((${#missing[@]})); then
  echo "ci/wheel.sh: the wheel's build needs ${missing[*]}, not found (Debian: apt-get install patchelf binutils" \
    "python3-build python3-wheel python3-setuptools, or ci/setup.sh --tests; auditwheel comes from pip)" >&2
  exit 2
fi
if [ -z "${1:-}" ] && [ ! -x "$binary" ]; then "$root/ci/build.sh" perfgate; fi
[ -x "$binary" ] || { echo "ci/wheel.sh: $binary: no perfgate binary" >&2; exit 2; }
binary="$(realpath "$binary")"
mkdir -p "$out"
out="$(realpath "$out")"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cp -r "$root/python" "$work/python"
version="$(sed -n 's/^project(perfgate VERSION \([0-9.]*\).*/\1/p' "$root/CMakeLists.txt")"
rm -f "$out"/perfgate-"$version"-*.whl
# Debian's python3 (/usr/bin), whose build, wheel and setuptools modules the packages install.
built=$out
if [ "$repair" = auditwheel ]; then built=$work/unrepaired; fi
(cd "$work/python" && PERFGATE_BINARY="$binary" PERFGATE_VERSION="$version" PERFGATE_WHEEL_REPAIR="$repair" \
  /usr/bin/python3 -m build --wheel --no-isolation --outdir "$built" >"$work/build.log" 2>&1) ||
  { cat "$work/build.log" >&2; exit 1; }
if [ "$repair" = auditwheel ]; then
  wheel=("$built"/perfgate-"$version"-*.whl)
  # The most compatible manylinux tag the binary's symbol versions allow (auditwheel show says it).
  platform=$(auditwheel show "${wheel[0]}" | tr '\n' ' ' | grep -o 'platform tag to "[^"]*"' | cut -d'"' -f2)
  [ -n "$platform" ] || { auditwheel show "${wheel[0]}" >&2; echo "ci/wheel.sh: auditwheel named no platform tag" >&2; exit 1; }
  auditwheel repair --plat "$platform" -w "$out" "${wheel[0]}" >"$work/repair.log" 2>&1 ||
    { cat "$work/repair.log" >&2; exit 1; }
fi
ls "$out"/perfgate-"$version"-*.whl
