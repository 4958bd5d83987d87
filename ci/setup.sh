#!/usr/bin/env bash
# Installs perfgate's build and test dependencies from Debian packages (bookworm).
# Idempotent: runs `apt-get update` and installs only when something is missing.
# `ci/setup.sh --tests` also installs what only the tests need (Chromium, for the HTML checks).
set -euo pipefail

packages=(
  cmake ninja-build g++ pkg-config git
  libboost-json1.81-dev libfmt-dev libcli11-dev libyaml-cpp-dev libre2-dev
  zlib1g-dev libsqlite3-dev libgtest-dev clang-format
  libkainjow-mustache-dev libxlsxwriter-dev
)
if [ "${1:-}" = "--tests" ]; then
  packages+=(chromium unzip)
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done

if ((${#missing[@]})); then
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  echo "ci/setup.sh: installing ${missing[*]}" >&2
  $sudo apt-get update
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y --no-install-recommends "${missing[@]}"
fi
