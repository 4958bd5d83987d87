#!/usr/bin/env bash
# CTest Action.StepsWithGitHubFiles: runs action.yml's steps (ci/action.sh prepare, install,
# analyze) as a runner would, with GitHub's file-based variables (GITHUB_OUTPUT, GITHUB_ENV,
# GITHUB_PATH, GITHUB_STEP_SUMMARY) in a temporary folder, on the package Package.Build made:
# - an install-only use from a release URL (file://) unpacks it and puts it on PATH;
# - a second use of the action in the same job finds it installed (through GITHUB_ENV) and gates the
#   bundled example: reports where the inputs say, outputs from the report, the job summary, a run
#   recorded in a history; `fail-on: warning` fails the step with exit code 1;
# - without a URL, the cache key follows the action's sources, and a package restored by the cache
#   is installed without building;
# - inputs never run as commands.
# Usage: tests/package/action_test.sh SOURCE_DIR PACKAGE_DIR VERSION
set -euo pipefail
source_dir=$(realpath "$1")
package_dir=$(realpath "$2")
version=$3
source "$(dirname "$0")/built_package.sh"
deb=$(built_package "$package_dir" "$version")

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
passes=0
pass() { echo "ok: $*"; passes=$((passes + 1)); }
fail() {  # shows the step's log (step.log of the current job) under the failure
  echo "FAIL: $*"
  failures=$((failures + 1))
  if [ -f "${job:-}/step.log" ]; then tail -n 25 "$job/step.log" | sed 's/^/    | /'; fi
}
expect() {  # DESCRIPTION ACTUAL EXPECTED
  if [ "$2" = "$3" ]; then pass "$1"; else fail "$1: got '$2', expected '$3'"; fi
}
check() {  # DESCRIPTION COMMAND...
  local what=$1
  shift
  if "$@"; then pass "$what"; else fail "$what"; fi
}

# Reads a file of GitHub's file commands (name=value lines, or name<<DELIMITER, the value's lines,
# DELIMITER) into the associative array NAME; a malformed file fails.
read_file_command() {  # NAME FILE
  local -n into=$1
  local line name delimiter value
  while IFS= read -r line; do
    if [[ $line =~ ^([A-Za-z_][A-Za-z0-9_-]*)\<\<(.+)$ ]]; then
      name=${BASH_REMATCH[1]}
      delimiter=${BASH_REMATCH[2]}
      value=""
      while true; do
        IFS= read -r line || { echo "$2: no closing $delimiter for $name"; return 1; }
        [ "$line" = "$delimiter" ] && break
        value+="${value:+$'\n'}$line"
      done
      into[$name]=$value
    elif [[ $line =~ ^([A-Za-z_][A-Za-z0-9_-]*)=(.*)$ ]]; then
      into[${BASH_REMATCH[1]}]=${BASH_REMATCH[2]}
    else
      echo "$2: malformed line: $line"
      return 1
    fi
  done <"$2"
}

# A job: its runner's temp folder, workspace and files.
new_job() {
  job=$work/job$1
  mkdir -p "$job/temp" "$job/workspace"
  export RUNNER_TEMP=$job/temp GITHUB_ENV=$job/env GITHUB_PATH=$job/path GITHUB_STEP_SUMMARY=$job/summary
  : >"$GITHUB_ENV"
  : >"$GITHUB_PATH"
  : >"$GITHUB_STEP_SUMMARY"
}

# Runs `ci/action.sh STEP` as the runner runs a step: in the workspace, with the variables that
# earlier steps wrote to GITHUB_ENV, the folders of GITHUB_PATH before PATH (the last added
# first) and a fresh GITHUB_OUTPUT; INPUTS are NAME=VALUE. Sets out[] and step_code; log in step.log.
declare -A out
step() {  # ACTION_PATH STEP INPUT...
  local action_path=$1 name=$2
  shift 2
  export GITHUB_OUTPUT=$job/output.$name
  : >"$GITHUB_OUTPUT"
  local -A job_env=()
  read_file_command job_env "$GITHUB_ENV"
  local -a vars=()
  local key dir path=$PATH
  for key in "${!job_env[@]}"; do vars+=("$key=${job_env[$key]}"); done
  while IFS= read -r dir; do path=$dir:$path; done <"$GITHUB_PATH"
  step_code=0
  (cd "$job/workspace" && env "${vars[@]}" PATH="$path" GITHUB_ACTION_PATH="$action_path" "$@" \
    "$action_path/ci/action.sh" "$name") >"$job/step.log" 2>&1 || step_code=$?
  out=()
  read_file_command out "$GITHUB_OUTPUT"
}

# ---- 0. action.yml, its script and the example workflow agree ----
# The inputs action.yml declares ("  name:" lines under "inputs:").
inputs=$(awk '/^[a-z]/ {on = ($0 == "inputs:")} on && /^  [a-z0-9-]+:$/ {sub(/:$/, ""); print $1}' "$source_dir/action.yml")
for input in $inputs; do
  variable=INPUT_$(tr 'a-z-' 'A-Z_' <<<"$input")
  check "input $input is passed to the steps as $variable" \
    grep -q "^        $variable: \${{ inputs.$input }}\$" "$source_dir/action.yml"
  check "ci/action.sh reads $variable" grep -q "$variable" "$source_dir/ci/action.sh"
done
# The keys under `with:` of each `uses: OWNER/perfgate@v1` step of ci/github-actions.yml.
used=$(awk '/uses: OWNER\/perfgate@v1/ {action = 1; next} action && /^ *with:$/ {with = 1; next}
  with && /^          [a-z0-9-]+:/ {sub(/:.*/, ""); print $1; next} {if (with || /^      - /) {action = 0; with = 0}}' \
  "$source_dir/ci/github-actions.yml" | sort -u)
check "ci/github-actions.yml uses the action with inputs" test -n "$used"
for input in $used; do
  check "ci/github-actions.yml's input $input is one of action.yml's" grep -qx "$input" <<<"$inputs"
done

# ---- 1. install only, from a release URL ----
new_job 1
step "$source_dir" prepare INPUT_DEB_URL="file://$deb"
expect "prepare: a URL installs the downloaded package" "${out[mode]}" url
step "$source_dir" install INPUT_DEB_URL="file://$deb" INPUT_INSTALL=user PERFGATE_MODE="${out[mode]}" \
  PERFGATE_IDENTITY="${out[identity]}"
expect "install: exit 0" "$step_code" 0
expect "install: the version output" "${out[version]:-}" "$version"
expect "install: the prefix output" "${out[prefix]:-}" "$RUNNER_TEMP/perfgate-root/usr"
check "install: the smoke test script is under the prefix" test -f "${out[prefix]:-}/share/perfgate/examples/profile_smoke_test.py"
expect "install: PATH gets the unpacked package's bin folder" "$(cat "$GITHUB_PATH")" "$RUNNER_TEMP/perfgate-root/usr/bin"
check "install: GITHUB_ENV says what was installed" grep -qx "PERFGATE_ACTION_INSTALLED=url:file://$deb" "$GITHUB_ENV"

# deb-url: https only; deb-sha256, when given, must match before anything is installed.
step "$source_dir" prepare INPUT_DEB_URL="http://example.com/perfgate.deb"
expect "prepare: an http URL is refused (exit 2)" "$step_code" 2
check "prepare: the refusal says https" grep -q 'must be an https:// URL' "$job/step.log"
digest=$(sha256sum "$deb" | cut -d' ' -f1)
wrong=$(printf '%064d' 0)
job_path=$(cat "$GITHUB_PATH")
step "$source_dir" install INPUT_DEB_URL="file://$deb" INPUT_DEB_SHA256="$wrong" INPUT_INSTALL=user \
  PERFGATE_MODE=url PERFGATE_IDENTITY="url:file://$deb"
expect "install: another SHA-256 is refused (exit 3)" "$step_code" 3
check "install: the refusal names both digests" grep -q "has SHA-256 $digest, not deb-sha256 $wrong" "$job/step.log"
expect "install: a refused package adds nothing to PATH" "$(cat "$GITHUB_PATH")" "$job_path"
step "$source_dir" install INPUT_DEB_URL="file://$deb" INPUT_DEB_SHA256="${digest^^}" INPUT_INSTALL=user \
  PERFGATE_MODE=url PERFGATE_IDENTITY="url:file://$deb"
expect "install: the right SHA-256 (any case) installs" "$step_code" 0
check "install: the digest is reported as checked" grep -q "SHA-256 $digest checked" "$job/step.log"
: >"$GITHUB_PATH"
echo "$job_path" >"$GITHUB_PATH"

# ---- 2. the same job uses the action again, to gate the example ----
step "$source_dir" prepare INPUT_DEB_URL="file://$deb"
expect "prepare again: already installed" "${out[mode]}" installed
step "$source_dir" install INPUT_DEB_URL="file://$deb" PERFGATE_MODE="${out[mode]}" PERFGATE_IDENTITY="${out[identity]}"
expect "install again: nothing to do" "$step_code" 0
expect "install again: the same prefix output" "${out[prefix]:-}" "$RUNNER_TEMP/perfgate-root/usr"
check "install again: nothing added to PATH" test "$(wc -l <"$GITHUB_PATH")" = 1
cp "$source_dir/examples/small_training.pt.trace.json.gz" "$job/workspace/"
gate_inputs=(INPUT_PROFILES=$'small_training.pt.trace.json.gz\n' INPUT_BASELINE=perfgate.db INPUT_HISTORY=perfgate.db
  INPUT_JSON=reports/report.json INPUT_HTML=reports/report.html INPUT_XLSX=reports/report.xlsx
  INPUT_MD=reports/summary.md INPUT_JUNIT=reports/junit.xml INPUT_PR_COMMENT=reports/pr-comment.md
  INPUT_ARGS=$'--label\nci=action-test')
step "$source_dir" analyze "${gate_inputs[@]}"
expect "analyze: exit 0 (the example passes with warnings; no history yet)" "$step_code" 0
check "analyze: ran the unpacked perfgate" grep -q "running $RUNNER_TEMP/perfgate-root/usr/bin/perfgate" "$job/step.log"
expect "analyze: verdict output" "${out[verdict]:-}" warn
expect "analyze: exit-code output" "${out[exit-code]:-}" 0
expect "analyze: warnings output (README: 6)" "${out[warnings]:-}" 6
expect "analyze: failures output" "${out[failures]:-}" 0
expect "analyze: json output" "${out[json]:-}" reports/report.json
for report in report.json report.html report.xlsx summary.md junit.xml pr-comment.md; do
  check "analyze: wrote reports/$report" test -s "$job/workspace/reports/$report"
done
check "analyze: GitHub annotations for the warnings" grep -q '^::warning' "$job/step.log"
check "analyze: the job summary has perfgate's Markdown summary" grep -q 'dataloader.bottleneck' "$GITHUB_STEP_SUMMARY"
check "analyze: GITHUB_ENV carries the verdict" grep -qx 'PERFGATE_VERDICT=warn' "$GITHUB_ENV"
history_runs() { "$RUNNER_TEMP/perfgate-root/usr/bin/perfgate" history list "$job/workspace/perfgate.db" | grep -c 'ci=action-test'; }
expect "analyze: the run is recorded in the history, with its label" "$(history_runs)" 1

step "$source_dir" analyze "${gate_inputs[@]}" INPUT_FAIL_ON=warning INPUT_RECORD=false INPUT_ANNOTATIONS=false
expect "fail-on warning: the step fails with exit code 1" "$step_code" 1
expect "fail-on warning: exit-code output" "${out[exit-code]:-}" 1
check "record false: the history keeps one run" test "$(history_runs)" = 1
check "annotations false: none" bash -c "! grep -q '^::warning' '$job/step.log'"

step "$source_dir" analyze INPUT_PROFILES='missing.json' INPUT_JSON=reports/missing.json
expect "a missing profile: exit 3" "$step_code" 3
expect "a missing profile: verdict error" "${out[verdict]:-}" error
step "$source_dir" analyze INPUT_PROFILES=''
expect "no profiles: a usage error" "$step_code" 2

# `args` is split on whitespace, as action.yml says: one line or one word per line, the same.
for args in '--skip-first 2' $'--skip-first\n2\n'; do
  step "$source_dir" analyze INPUT_PROFILES=small_training.pt.trace.json.gz INPUT_JSON=reports/args.json \
    INPUT_ANNOTATIONS=false INPUT_ARGS="$args"
  expect "args ${args@Q}: exit 0" "$step_code" 0
  check "args ${args@Q}: passed as two arguments" grep -q -- '--json reports/args.json --skip-first 2$' "$job/step.log"
done

# Inputs are data: a command in one is never run.
step "$source_dir" analyze INPUT_PROFILES='$(touch pwned)' INPUT_ARGS='`touch pwned2`' INPUT_HTML='x;touch pwned3'
check "inputs never run as commands" bash -c "! ls '$job/workspace' | grep -q pwned"

# ---- 3. no URL: built from the action's source once, then from the cache ----
new_job 3
copy=$work/action
mkdir -p "$copy/ci"
cp -r "$source_dir"/{CMakeLists.txt,cmake,src,rules,templates,tools,packaging,examples} "$copy/"
cp "$source_dir"/ci/{action.sh,profile_smoke_test.py,setup.sh} "$copy/ci/"
step "$copy" prepare
expect "prepare without a URL: build" "${out[mode]}" build
key=${out[cache-key]}
os=$(. /etc/os-release && echo "$ID-$VERSION_ID")
check "the cache key names the system and the sources' digest ($key)" \
  bash -c "[[ '$key' =~ ^perfgate-deb-$os-$(uname -m)-[0-9a-f]{16}\$ ]]"
expect "the package folder is in the runner's temp folder" "${out[package-dir]}" "$RUNNER_TEMP/perfgate-deb"
step "$copy" prepare
expect "the same sources, the same key" "${out[cache-key]}" "$key"
echo "# changed" >>"$copy/rules/tb-plugin.yaml"
step "$copy" prepare
check "a changed rule file, another key" test "${out[cache-key]}" != "$key"
# What actions/cache restores on a hit: the package, in the package folder.
mkdir -p "$RUNNER_TEMP/perfgate-deb"
cp "$deb" "$RUNNER_TEMP/perfgate-deb/"
step "$copy" install INPUT_INSTALL=user PERFGATE_MODE=build PERFGATE_IDENTITY="build:${out[cache-key]}"
expect "install from the cache: exit 0" "$step_code" 0
check "install from the cache: nothing built" bash -c "grep -q 'using the cached package' '$job/step.log' && [ ! -e '$RUNNER_TEMP/perfgate-build' ]"
expect "install from the cache: the version output" "${out[version]:-}" "$version"

echo "$passes passed, $failures failed"
[ "$failures" = 0 ]
