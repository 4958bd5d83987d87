#!/usr/bin/env bash
# CTest Package.CppApiExample: examples/cpp/ (a program on perfgate's public C++ API, docs/api.md)
# builds against the Debian package's files alone, unpacked with `dpkg -x` into a temporary root
# (find_package(perfgate) from there, no build tree on any path), and on the bundled example prints
# the verdict and metrics that the package's own perfgate writes in its JSON report, and ends with
# its exit code.
# Usage: tests/package/cpp_api_test.sh SOURCE_DIR PACKAGE_DIR VERSION
set -euo pipefail
source_dir=$1
package_dir=$2
version=$3
source "$(dirname "$0")/built_package.sh"
deb=$(built_package "$package_dir" "$version")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

dpkg-deb -x "$deb" "$work/root"
for file in usr/include/perfgate/engine.h usr/include/perfgate/report.h usr/include/perfgate/metrics.h; do
  [ -f "$work/root/$file" ] || { echo "FAIL: the package has no /$file"; exit 1; }
done
config=$(find "$work/root/usr/lib" -name perfgateConfig.cmake)
[ -n "$config" ] || { echo "FAIL: the package has no perfgateConfig.cmake"; exit 1; }

# The example copied out of the source tree, so that nothing of it is found relative to the source.
cp -r "$source_dir/examples/cpp" "$work/example"
cmake -S "$work/example" -B "$work/build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$work/root/usr" >"$work/configure.log" 2>&1 ||
  { echo "FAIL: configuring examples/cpp against the package"; cat "$work/configure.log"; exit 1; }
cmake --build "$work/build" >"$work/build.log" 2>&1 ||
  { echo "FAIL: building examples/cpp against the package"; cat "$work/build.log"; exit 1; }
if grep -q "$source_dir/src\|$source_dir/include" "$work/build/build.ninja"; then
  echo "FAIL: the example's build reads perfgate's source tree, not the package"; exit 1
fi
echo "ok: examples/cpp builds against the package's headers, libperfgate.a and CMake package"

example=$source_dir/examples/small_training.pt.trace.json.gz
set +e
"$work/build/perfgate-verdict" "$example" >"$work/verdict.txt" 2>&1
verdict_code=$?
"$work/root/usr/bin/perfgate" analyze -q --json "$work/report.json" "$example" >"$work/cli.txt" 2>&1
cli_code=$?
set -e
cat "$work/verdict.txt"
[ "$verdict_code" = "$cli_code" ] ||
  { echo "FAIL: perfgate-verdict ended $verdict_code, the package's perfgate $cli_code"; cat "$work/cli.txt"; exit 1; }
# The program's lines against the package's own JSON report, read independently here.
python3 - "$work/verdict.txt" "$work/report.json" <<'PY'
import json, re, sys
lines = open(sys.argv[1]).read().splitlines()
report = json.load(open(sys.argv[2]))
status = {"pass": "pass", "warn": "pass with warnings", "fail": "fail"}[report["verdict"]["status"]]
assert re.match(r"perfgate \S+: " + re.escape(status) + "$", lines[0]), (lines[0], status)
metrics = report["metrics"]
for name in ("steps.median_us", "gpu.utilization_pct", "gpu.idle_pct"):
    line = next(l for l in lines if "(" + name + ")" in l)
    value = metrics.get(name)
    shown = line.split("): ", 1)[1].split(" ")[0]
    if value is None:
        assert shown == "n/a", line
    else:
        assert abs(float(shown) - value) <= 1e-5 * max(1.0, abs(value)), (line, value)
fired = sorted(f["id"] for f in report["findings"] if f["status"] in ("warn", "fail"))
printed = sorted(l.split(": ")[1] for l in lines if l.startswith(("warning: ", "error: ")))
assert fired == printed, (fired, printed)
print("ok: the verdict, 3 metrics and %d fired findings agree with the package's JSON report" % len(fired))
PY
