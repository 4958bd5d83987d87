#!/usr/bin/env bash
# Builds the perfgate wheel (python/, docs/python.md) offline with Debian's python3-build,
# python3-wheel and python3-setuptools: the perfgate binary (ci/build.sh perfgate, or BINARY) and
# the libraries it needs that a machine with only Python lacks, bundled beside it (patchelf).
# Usage: ci/wheel.sh [BINARY [OUT_DIR]]   (default: build/perfgate, dist/)
# Prints the wheel's path. The build runs in a temporary copy of python/, so the tree stays clean.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
binary="${1:-$root/build/perfgate}"
out="${2:-$root/dist}"
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
(cd "$work/python" && PERFGATE_BINARY="$binary" PERFGATE_VERSION="$version" \
  /usr/bin/python3 -m build --wheel --no-isolation --outdir "$out" >"$work/build.log" 2>&1) ||
  { cat "$work/build.log" >&2; exit 1; }
ls "$out"/perfgate-"$version"-*.whl
