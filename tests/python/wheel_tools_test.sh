#!/usr/bin/env bash
# CTest Python.WheelNamesMissingTools: building the wheel without one of the programs it runs says
# which one and its Debian package (exit 2), before anything is built, instead of Python's raw
# "[Errno 2] No such file or directory: 'patchelf'": ci/wheel.sh, and python/setup.py when the
# build is run without ci/wheel.sh (`python3 -m build` in python/, as docs/python.md shows).
# Usage: tests/python/wheel_tools_test.sh SOURCE_DIR BINARY
set -euo pipefail
source_dir=$(realpath "$1")
binary=$(realpath "$2")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
passes=0
expect() {  # DESCRIPTION CONDITION...
  local what=$1
  shift
  if "$@"; then echo "ok: $what"; passes=$((passes + 1)); else echo "FAIL: $what"; failures=$((failures + 1)); fi
}

# A PATH with what a build machine has, less patchelf (and auditwheel, absent here anyway).
mkdir "$work/bin"
for tool in bash sh python3 strip ldd cat sed ls mkdir mktemp cp rm realpath dirname tr grep cut env; do
  if command -v "$tool" >/dev/null; then ln -s "$(command -v "$tool")" "$work/bin/$tool"; fi
done
bare=$work/bin

code=0
PATH=$bare bash "$source_dir/ci/wheel.sh" "$binary" "$work/out" >"$work/wheel.log" 2>&1 || code=$?
expect "ci/wheel.sh without patchelf: exit 2" test "$code" = 2
expect "  names patchelf and its package" grep -q "needs patchelf, not found (Debian: apt-get install patchelf" "$work/wheel.log"
expect "  builds nothing" test ! -e "$work/out"

code=0
PATH=$bare PERFGATE_WHEEL_REPAIR=auditwheel bash "$source_dir/ci/wheel.sh" "$binary" "$work/out" >"$work/audit.log" 2>&1 ||
  code=$?
expect "PERFGATE_WHEEL_REPAIR=auditwheel without auditwheel: exit 2, naming it" \
  bash -c "[ $code = 2 ] && grep -q 'needs patchelf auditwheel, not found' '$work/audit.log'"

if /usr/bin/python3 -c 'import build, wheel, setuptools' 2>/dev/null; then
  cp -r "$source_dir/python" "$work/python"
  code=0
  (cd "$work/python" && PATH=$bare PERFGATE_BINARY="$binary" PERFGATE_VERSION=0.0.0 \
    /usr/bin/python3 -m build --wheel --no-isolation --outdir "$work/direct" >"$work/direct.log" 2>&1) || code=$?
  expect "python -m build in python/ without patchelf fails" test "$code" != 0
  expect "  setup.py names patchelf and its package" \
    grep -q "setup.py: the wheel's build needs patchelf, not found on PATH (Debian: apt-get install patchelf)" "$work/direct.log"
  expect "  not Python's raw [Errno 2]" bash -c "! grep -q \"Errno 2\\] No such file or directory: 'patchelf'\" '$work/direct.log'"
else
  echo "note: no python3-build, python3-wheel, python3-setuptools: setup.py's own check not run"
fi

echo "$passes passed, $failures failed"
[ "$failures" = 0 ]
