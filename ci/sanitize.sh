#!/usr/bin/env bash
# Builds the `sanitize` preset (CMakePresets.json: clang, AddressSanitizer + UBSan, any report fatal)
# into build-sanitize/ and runs the test suite there; the fuzz harnesses (ci/fuzz.sh) are built from
# the same objects. The preset leaves out the tests that only compare numbers on the shared traces
# with references or check the rules' arithmetic on them (PluginAgreement, GateOnRealTraces,
# RealTraces.TablesAddUp, GainInvariant, ReportInvariantsReal), the merge of the shared run folders split every way against
# the one-process report (MergeCli.SharedRunFoldersMergeToTheWholeReport; the hand-made ranks' splits
# and every refusal, a 32-rank merge among them, still run), the browser tests (Browser, Layout, ChartFit:
# Chromium measuring the page) and the kill test (KillTest: signals at random times, a property of
# the file writes, not of memory); the release suite runs them. Every shared trace is
# still loaded, analysed and written to every output under the sanitizers
# (RealTraces.EveryTraceLoadsAndKeepsItsInvariants, Outputs.EverySharedTrace), which keeps CI within
# 30 minutes. Needs clang and libclang-rt-14-dev: `ci/setup.sh --fuzz`.
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
  # The sanitizer build has line tables (-gline-tables-only), and with debug information ccache hashes the
  # build folder's absolute path unless told not to: every clean checkout in a new folder missed the cache
  # (the sanitizer build was about 1,090 s of a 2,002 s CI run). A cached object's line tables keep the
  # folder that first compiled it: a sanitizer report may print that folder before `../src/…`.
  export CCACHE_NOHASHDIR="${CCACHE_NOHASHDIR:-true}"
fi
cmake --preset sanitize "${launcher[@]}" >/dev/null
cmake --build --preset sanitize -j "$(nproc)"
ctest --preset sanitize -j "$(nproc)"
