#!/usr/bin/env bash
# The GitHub Action in action.yml: a container action on perfgate's image (ci/action.Containerfile),
# whose entry point this is: `ci/action.sh run` gates the profiles and publishes the results.
# Inputs come as INPUT_* variables (GitHub sets INPUT_<NAME> for each input of a container action,
# the name in capitals with its hyphens kept, e.g. INPUT_FAIL-ON; INPUT_FAIL_ON is read too), never
# as the script's text, so that an input cannot run a command. Results go where GitHub reads them:
# step outputs to $GITHUB_OUTPUT, variables for later steps to $GITHUB_ENV, and perfgate --github
# appends its Markdown summary to $GITHUB_STEP_SUMMARY.
#
# run  runs `perfgate analyze` on the `profiles` input with the inputs' options, writes the reports
#      and the outputs; with `github-token`, posts the pull-request comment (`comment: true`) and the
#      check run from the JUnit report (`check: true`) with ci/post_report.py; exits with perfgate's
#      exit code (1: the gate failed).
# tests/package/action_test.sh runs it locally with GitHub's files in a temporary folder.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
runner_temp=${RUNNER_TEMP:-${TMPDIR:-/tmp}}

# An input's value: INPUT_<NAME> as GitHub names it for a container action (hyphens kept), else
# with underscores (as a composite step's env: would name it).
input() {  # NAME [DEFAULT]
  local name=INPUT_${1^^} value
  value=$(printenv "$name" || printenv "${name//-/_}" || true)
  printf '%s' "${value:-${2:-}}"
}

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

# A field of the report's verdict ("status", "exit_code", "warnings", "failures").
verdict_field() {  # JSON FIELD
  awk -v field="\"$2\":" '/^  "verdict": \{/ {on = 1; next} on && /^  \}/ {exit}
    on && $1 == field {v = $2; gsub(/[",]/, "", v); print v; exit}' "$1"
}

# Posts what the inputs ask for with ci/post_report.py; a failure to post is an error of the step
# (exit 3), after the gate's own result is written.
publish() {  # JUNIT PR_COMMENT
  local token code=0
  token=$(input github-token)
  [ -n "$token" ] || { echo "perfgate: no github-token: no comment, no check run"; return 0; }
  if [ "$(input comment false)" = true ] && [ -s "$2" ]; then
    GITHUB_TOKEN=$token python3 "$here/post_report.py" github-comment "$2" --key "$(input comment-key perfgate)" \
      --author "$(input comment-author 'github-actions[bot]')" || code=$?
  fi
  if [ "$(input check false)" = true ] && [ -s "$1" ]; then
    GITHUB_TOKEN=$token python3 "$here/post_report.py" github-check "$1" --name "$(input check-name perfgate)" ||
      code=$?
  fi
  return "$code"
}

run() {
  local -a profiles baselines rules extra args
  lines profiles "$(input profiles)"
  ((${#profiles[@]})) || { echo "::error::perfgate: no profiles given"; exit 2; }
  lines baselines "$(input baseline)"
  lines rules "$(input rules)"
  # One argument a line, as written: a value with spaces stays one argument.
  lines extra "$(input args)"
  args=(analyze "${profiles[@]}")
  local item history record fail_on
  for item in "${baselines[@]}"; do args+=(--baseline "$item"); done
  for item in "${rules[@]}"; do args+=(--rules "$item"); done
  # --history names where --record writes; unless `record` is true the history is only read (baseline).
  history=$(input history)
  record=$(input record false)
  case $record in true | false) ;; *) echo "::error::perfgate: record must be true or false, not '$record'"; exit 2 ;; esac
  if [ -n "$history" ] && [ "$record" = true ]; then args+=(--history "$history" --record); fi
  fail_on=$(input fail-on error)
  case $fail_on in
    error | warning | inconclusive | never) ;;
    *) echo "::error::perfgate: fail-on must be error, warning, inconclusive or never, not '$fail_on'"; exit 2 ;;
  esac
  args+=(--fail-on "$fail_on")
  if [ "$(input annotations true)" = true ]; then args+=(--github); fi
  # The JSON report is always written: the outputs are read from it; so is the PR comment when
  # one is posted.
  local json pr_comment junit
  json=$(input json "$runner_temp/perfgate-report.json")
  pr_comment=$(input pr-comment)
  if [ -z "$pr_comment" ] && [ "$(input comment false)" = true ]; then pr_comment=$runner_temp/perfgate-pr-comment.md; fi
  junit=$(input junit)
  if [ -z "$junit" ] && [ "$(input check false)" = true ]; then junit=$runner_temp/perfgate-junit.xml; fi
  local option name path
  for option in json:"$json" html:"$(input html)" xlsx:"$(input xlsx)" md:"$(input md)" \
    junit:"$junit" pr-comment:"$pr_comment"; do
    name=${option%%:*}
    path=${option#*:}
    [ -n "$path" ] || continue
    mkdir -p "$(dirname "$path")"
    args+=("--$name" "$path")
  done
  args+=("${extra[@]}")
  echo "perfgate: running $(command -v perfgate)$(printf ' %q' "${args[@]}")"
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
  # Published whatever the verdict: a failed gate is what the comment and the check must show.
  if [ -s "$json" ]; then publish "$junit" "$pr_comment" || { ((code != 0)) || code=3; }; fi
  exit "$code"
}

case "${1:-}" in
  run) run ;;
  *) echo "usage: ci/action.sh run" >&2; exit 2 ;;
esac
