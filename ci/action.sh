#!/usr/bin/env bash
# The steps of the GitHub Action in action.yml: `ci/action.sh prepare|install|analyze`.
# Inputs come as INPUT_* variables (action.yml passes them through `env:`, never into the script's
# text, so that an input cannot run a command); results go where GitHub reads them: step outputs
# to $GITHUB_OUTPUT, variables for later steps to $GITHUB_ENV, folders for PATH to $GITHUB_PATH,
# and perfgate --github appends its Markdown summary to $GITHUB_STEP_SUMMARY.
# tests/package/action_test.sh runs these steps locally with those files in a temporary folder.
#
# prepare  decides how perfgate gets installed: from INPUT_DEB_URL (a release's .deb), else built
#          from this action's source once and kept in the Actions cache under `cache-key`, or not
#          at all when an earlier step of the job installed the same one.
# install  installs it: `apt-get install` of the .deb (as root or with sudo), or, with
#          INPUT_INSTALL=user or without either, unpacked into $RUNNER_TEMP and put on PATH.
# analyze  runs `perfgate analyze` on INPUT_PROFILES with the inputs' options, writes the reports
#          and the outputs, and exits with perfgate's exit code (1: the gate failed).
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
runner_temp=${RUNNER_TEMP:-${TMPDIR:-/tmp}}
package_dir=$runner_temp/perfgate-deb

# name=value, or name<<DELIMITER ... DELIMITER when the value has a newline (GitHub's file format).
write_variable() {  # FILE NAME VALUE
  if [[ $3 == *$'\n'* ]]; then
    local delimiter
    delimiter="perfgate_$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')"
    printf '%s<<%s\n%s\n%s\n' "$2" "$delimiter" "$3" "$delimiter" >>"$1"
  else
    printf '%s=%s\n' "$2" "$3" >>"$1"
  fi
}
set_output() { write_variable "${GITHUB_OUTPUT:?GITHUB_OUTPUT is not set}" "$1" "$2"; }
set_env() { write_variable "${GITHUB_ENV:?GITHUB_ENV is not set}" "$1" "$2"; }

# Non-empty lines of a multi-line input, one per array element.
lines() {  # NAME VALUE: sets the array NAME
  local -n into=$1
  into=()
  local line
  while IFS= read -r line; do
    line=${line#"${line%%[![:space:]]*}"}
    line=${line%"${line##*[![:space:]]}"}
    if [ -n "$line" ]; then into+=("$line"); fi
  done <<<"$2"
}

# Whitespace-separated words of an input, over all its lines (the `args` input): no quoting, no
# globbing, nothing expanded.
words() {  # NAME VALUE: sets the array NAME
  local -n into_words=$1
  into_words=()
  local line
  local -a split
  while IFS= read -r line; do
    read -ra split <<<"$line"
    into_words+=("${split[@]}")
  done <<<"$2"
}

# A package URL perfgate downloads: https (or file:// for a package already on the runner); plain
# http, which anyone on the path can replace, is refused.
check_deb_url() {  # URL
  case $1 in
    https://* | file://*) ;;
    *) echo "::error::perfgate: deb-url must be an https:// URL (or file://), not '$1'"; exit 2 ;;
  esac
  if [ -n "${INPUT_DEB_SHA256:-}" ] && ! [[ ${INPUT_DEB_SHA256,,} =~ ^[0-9a-f]{64}$ ]]; then
    echo "::error::perfgate: deb-sha256 must be 64 hexadecimal digits, not '$INPUT_DEB_SHA256'"
    exit 2
  fi
}

as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"; else sudo -n "$@"; fi
}
can_be_root() { [ "$(id -u)" = 0 ] || sudo -n true 2>/dev/null; }

# What the package is built from: a build made from other sources gets another cache entry.
source_digest() {
  (cd "$root" && find CMakeLists.txt cmake src rules templates tools packaging examples \
    ci/profile_smoke_test.py -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum) | sha256sum | cut -c1-16
}

prepare() {
  local os mode identity key
  os=$(. /etc/os-release && echo "${ID:-linux}-${VERSION_ID:-unknown}")
  if [ -n "${INPUT_DEB_URL:-}" ]; then
    check_deb_url "$INPUT_DEB_URL"
    mode=url
    identity="url:$INPUT_DEB_URL"
    key=""
  else
    mode=build
    key="perfgate-deb-$os-$(uname -m)-$(source_digest)"
    identity="build:$key"
  fi
  # The job installed this very package in an earlier step (GITHUB_ENV carries that to this one).
  if [ "${PERFGATE_ACTION_INSTALLED:-}" = "$identity" ] && command -v perfgate >/dev/null; then mode=installed; fi
  set_output mode "$mode"
  set_output identity "$identity"
  set_output cache-key "$key"
  set_output package-dir "$package_dir"
  echo "perfgate: install mode $mode${key:+ (cache key $key)}"
}

# Builds the package from this action's source into $package_dir: only the perfgate binary and its
# man pages, not the test suite.
build_package() {
  local build=$runner_temp/perfgate-build
  echo "perfgate: building the package from $root (cached afterwards)"
  # The build's Debian packages (ci/setup.sh uses sudo when not root).
  if can_be_root; then "$root/ci/setup.sh"; fi
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DPERFGATE_BUILD_TESTS=OFF >/dev/null
  cmake --build "$build" --target perfgate perfgate-man perfgate-changelog
  mkdir -p "$package_dir"
  cpack -G DEB --config "$build/CPackConfig.cmake" -B "$package_dir" >/dev/null
  rm -rf "$package_dir/_CPack_Packages"
}

install_perfgate() {
  local mode=${1:?} identity=${2:?} deb how=${INPUT_INSTALL:-auto} perfgate
  if [ "$mode" = installed ]; then
    echo "perfgate: $(perfgate --version) is installed by an earlier step"
    set_output version "$(perfgate --version | awk '{print $2}')"
    set_output prefix "$(dirname "$(dirname "$(command -v perfgate)")")"
    return
  fi
  mkdir -p "$package_dir"
  if [ "$mode" = url ]; then
    deb=$package_dir/perfgate.deb
    check_deb_url "$INPUT_DEB_URL"
    echo "perfgate: downloading $INPUT_DEB_URL"
    # --proto: no redirect to plain http either.
    curl -fsSL --proto '=https,file' --proto-redir '=https' --retry 3 -o "$deb" "$INPUT_DEB_URL"
    if [ -n "${INPUT_DEB_SHA256:-}" ]; then
      local digest
      digest=$(sha256sum "$deb" | cut -d' ' -f1)
      if [ "$digest" != "${INPUT_DEB_SHA256,,}" ]; then
        rm -f "$deb"
        echo "::error::perfgate: $INPUT_DEB_URL has SHA-256 $digest, not deb-sha256 $INPUT_DEB_SHA256: not installed"
        exit 3
      fi
      echo "perfgate: SHA-256 $digest checked"
    fi
  else
    local cached=("$package_dir"/perfgate_*.deb)
    if [ -f "${cached[0]}" ]; then
      echo "perfgate: using the cached package $(basename "${cached[0]}")"
    else
      build_package
      cached=("$package_dir"/perfgate_*.deb)
    fi
    deb=${cached[0]}
  fi
  case $how in
    auto) if can_be_root; then how=system; else how=user; fi ;;
    system | user) ;;
    *) echo "::error::perfgate: install must be auto, system or user, not '$how'"; exit 2 ;;
  esac
  if [ "$how" = system ]; then
    # apt-get resolves the package's dependencies; a runner image may ship without package lists.
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "$deb" ||
      { as_root apt-get update && as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "$deb"; }
    perfgate=/usr/bin/perfgate
  else
    # No root: unpacked where the runner may write; the libraries it needs must be installed.
    local unpacked=$runner_temp/perfgate-root
    rm -rf "$unpacked"
    dpkg-deb -x "$deb" "$unpacked"
    echo "$unpacked/usr/bin" >>"${GITHUB_PATH:?GITHUB_PATH is not set}"
    perfgate=$unpacked/usr/bin/perfgate
    echo "perfgate: unpacked into $unpacked (dependencies: $(dpkg-deb -f "$deb" Depends))"
  fi
  "$perfgate" --version
  set_output version "$("$perfgate" --version | awk '{print $2}')"
  # Where the package's files are: PREFIX/share/perfgate/examples, PREFIX/share/perfgate/rules.
  set_output prefix "$(dirname "$(dirname "$perfgate")")"
  set_env PERFGATE_ACTION_INSTALLED "$identity"
}

# A field of the report's verdict ("status", "exit_code", "warnings", "failures").
verdict_field() {  # JSON FIELD
  awk -v field="\"$2\":" '/^  "verdict": \{/ {on = 1; next} on && /^  \}/ {exit}
    on && $1 == field {v = $2; gsub(/[",]/, "", v); print v; exit}' "$1"
}

analyze() {
  local -a profiles baselines rules extra args
  lines profiles "${INPUT_PROFILES:-}"
  ((${#profiles[@]})) || { echo "::error::perfgate: no profiles given"; exit 2; }
  lines baselines "${INPUT_BASELINE:-}"
  lines rules "${INPUT_RULES:-}"
  words extra "${INPUT_ARGS:-}"
  args=(analyze "${profiles[@]}")
  local item
  for item in "${baselines[@]}"; do args+=(--baseline "$item"); done
  for item in "${rules[@]}"; do args+=(--rules "$item"); done
  # --history names where --record writes; with record false the history is only read (baseline).
  if [ -n "${INPUT_HISTORY:-}" ] && [ "${INPUT_RECORD:-true}" = true ]; then
    args+=(--history "$INPUT_HISTORY" --record)
  fi
  args+=(--fail-on "${INPUT_FAIL_ON:-error}")
  if [ "${INPUT_ANNOTATIONS:-true}" = true ]; then args+=(--github); fi
  # The JSON report is always written: the outputs are read from it.
  local json=${INPUT_JSON:-$runner_temp/perfgate-report.json}
  local option name path
  for option in json:"$json" html:"${INPUT_HTML:-}" xlsx:"${INPUT_XLSX:-}" md:"${INPUT_MD:-}" \
    junit:"${INPUT_JUNIT:-}" pr-comment:"${INPUT_PR_COMMENT:-}"; do
    name=${option%%:*}
    path=${option#*:}
    [ -n "$path" ] || continue
    mkdir -p "$(dirname "$path")"
    args+=("--$name" "$path")
  done
  args+=("${extra[@]}")
  echo "perfgate: running $(command -v perfgate) ${args[*]}"
  local code=0
  perfgate "${args[@]}" || code=$?
  set_output exit-code "$code"
  set_output json "$json"
  if [ -s "$json" ]; then
    set_output verdict "$(verdict_field "$json" status)"
    set_output failures "$(verdict_field "$json" failures)"
    set_output warnings "$(verdict_field "$json" warnings)"
    set_env PERFGATE_VERDICT "$(verdict_field "$json" status)"
  else
    set_output verdict error  # no report: the inputs or the options were wrong (exit 2 or 3)
    set_env PERFGATE_VERDICT error
  fi
  exit "$code"
}

case "${1:-}" in
  prepare) prepare ;;
  install) install_perfgate "${PERFGATE_MODE:-}" "${PERFGATE_IDENTITY:-}" ;;
  analyze) analyze ;;
  *) echo "usage: ci/action.sh prepare|install|analyze" >&2; exit 2 ;;
esac
