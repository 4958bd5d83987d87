#!/usr/bin/env bash
# CTest Action.StepsWithGitHubFiles: runs the GitHub Action's entry point (ci/action.sh run, as
# installed by the package Package.Build made, with the image's python3) as a runner runs a
# container action, with GitHub's file-based variables (GITHUB_OUTPUT, GITHUB_ENV,
# GITHUB_STEP_SUMMARY) in a temporary folder and the inputs as INPUT_<NAME> variables, hyphens kept:
# - action.yml's inputs are all documented and read by the script, and ci/github-actions.yml passes
#   only inputs that exist; `record` defaults to false and `fail-on`'s description names inconclusive;
# - it gates the bundled example: reports where the inputs say, outputs from the report, the job
#   summary, a run recorded in a history only with record true; `fail-on: warning` fails the step
#   with exit code 1;
# - `args` is one argument a line: a value with spaces stays one argument;
# - with a token, comment and check, it posts the comment and the check run (to a local server);
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
# (`into` names the caller's array: what is assigned to it is used there.)
# shellcheck disable=SC2034
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


# The package, unpacked as the image has it installed: perfgate on PATH, the entry point and the
# posting script in share/perfgate/ci.
root=$work/root
dpkg-deb -x "$deb" "$root"
entry=$root/usr/share/perfgate/ci/action.sh
check "the package holds the action's entry point, executable" test -x "$entry"
check "the package holds the posting script" test -f "$root/usr/share/perfgate/ci/post_report.py"

# A job: its runner's temp folder, workspace and files.
job=$work/job
mkdir -p "$job/temp" "$job/workspace"
export RUNNER_TEMP=$job/temp GITHUB_ENV=$job/env GITHUB_STEP_SUMMARY=$job/summary
: >"$GITHUB_ENV"
: >"$GITHUB_STEP_SUMMARY"

# Runs the container's entry point as GitHub runs a container action: in the workspace, with a
# fresh GITHUB_OUTPUT, the inputs as INPUT_<NAME>=VALUE (name in capitals, hyphens kept, which
# `env` passes and bash cannot name). Sets out[] and step_code; log in step.log.
declare -A out
step() {  # INPUT...
  export GITHUB_OUTPUT=$job/output
  : >"$GITHUB_OUTPUT"
  step_code=0
  (cd "$job/workspace" && env PATH="$root/usr/bin:$PATH" "$@" "$entry" run) >"$job/step.log" 2>&1 || step_code=$?
  out=()
  read_file_command out "$GITHUB_OUTPUT"
}

# ---- 0. action.yml, its script and the example workflow agree ----
inputs=$(python3 -c 'import sys, yaml; print("\n".join(yaml.safe_load(open(sys.argv[1]))["inputs"]))' "$source_dir/action.yml")
for input in $inputs; do
  check "ci/action.sh reads the input $input" grep -q "input $input\\b" "$source_dir/ci/action.sh"
done
check "action.yml: record defaults to false" \
  python3 -c 'import sys, yaml; sys.exit(yaml.safe_load(open(sys.argv[1]))["inputs"]["record"]["default"] != "false")' "$source_dir/action.yml"
check "action.yml: fail-on's description names inconclusive" \
  python3 -c 'import sys, yaml; sys.exit("inconclusive" not in yaml.safe_load(open(sys.argv[1]))["inputs"]["fail-on"]["description"])' "$source_dir/action.yml"
check "action.yml: every input is described" \
  python3 -c 'import sys, yaml; sys.exit(not all(i.get("description") for i in yaml.safe_load(open(sys.argv[1]))["inputs"].values()))' "$source_dir/action.yml"
# The keys under `with:` of each step of ci/github-actions.yml that uses the action.
used=$(python3 -c 'import sys, yaml
w = yaml.safe_load(open(sys.argv[1]))
print("\n".join(k for j in w["jobs"].values() for s in j.get("steps", []) if str(s.get("uses", "")).startswith("OWNER/perfgate@") for k in s.get("with", {})))' \
  "$source_dir/ci/github-actions.yml")
check "ci/github-actions.yml uses the action with inputs" test -n "$used"
for input in $used; do
  check "ci/github-actions.yml's input $input is one of action.yml's" grep -qx "$input" <<<"$inputs"
done

# ---- 1. the gate ----
cp "$source_dir/examples/small_training.pt.trace.json.gz" "$job/workspace/"
gate_inputs=(INPUT_PROFILES=$'small_training.pt.trace.json.gz\n' INPUT_BASELINE=perfgate.db INPUT_HISTORY=perfgate.db
  INPUT_JSON=reports/report.json INPUT_HTML=reports/report.html INPUT_XLSX=reports/report.xlsx
  INPUT_MD=reports/summary.md INPUT_JUNIT=reports/junit.xml INPUT_PR-COMMENT=reports/pr-comment.md
  INPUT_ARGS=$'--label\nci=action test\n')
history_runs() { "$root/usr/bin/perfgate" history list "$job/workspace/perfgate.db" 2>/dev/null | grep -c 'ci=action test' || true; }
step "${gate_inputs[@]}"
expect "run: exit 0 (the example passes with warnings; no history yet)" "$step_code" 0
check "run: ran the package's perfgate" grep -q "running $root/usr/bin/perfgate" "$job/step.log"
expect "run: verdict output" "${out[verdict]:-}" warn
expect "run: exit-code output" "${out[exit-code]:-}" 0
expect "run: warnings output (README: 6)" "${out[warnings]:-}" 6
expect "run: failures output" "${out[failures]:-}" 0
expect "run: json output" "${out[json]:-}" reports/report.json
for report in report.json report.html report.xlsx summary.md junit.xml pr-comment.md; do
  check "run: wrote reports/$report" test -s "$job/workspace/reports/$report"
done
check "run: GitHub annotations for the warnings" grep -q '^::warning' "$job/step.log"
check "run: the job summary has perfgate's Markdown summary" grep -q 'dataloader.bottleneck' "$GITHUB_STEP_SUMMARY"
check "run: GITHUB_ENV carries the verdict" grep -qx 'PERFGATE_VERDICT=warn' "$GITHUB_ENV"
expect "record unset (false): nothing recorded" "$(history_runs)" 0
check "no token given: it says nothing is posted" grep -q 'no github-token' "$job/step.log"

step "${gate_inputs[@]}" INPUT_RECORD=true
expect "record true: the run is recorded, its label one argument with its space" "$(history_runs)" 1
step "${gate_inputs[@]}" INPUT_FAIL-ON=warning INPUT_ANNOTATIONS=false
expect "fail-on warning: the step fails with exit code 1" "$step_code" 1
expect "fail-on warning: exit-code output" "${out[exit-code]:-}" 1
expect "record unset again: the history keeps one run" "$(history_runs)" 1
check "annotations false: none" bash -c "! grep -q '^::warning' '$job/step.log'"
step "${gate_inputs[@]}" INPUT_FAIL-ON=inconclusive
expect "fail-on inconclusive: accepted (no inconclusive finding: exit 0)" "$step_code" 0
step "${gate_inputs[@]}" INPUT_FAIL-ON=sometimes
expect "fail-on sometimes: a usage error (exit 2)" "$step_code" 2
step "${gate_inputs[@]}" INPUT_RECORD=yes
expect "record yes: a usage error (exit 2)" "$step_code" 2

step INPUT_PROFILES='missing.json' INPUT_JSON=reports/missing.json
expect "a missing profile: exit 3" "$step_code" 3
expect "a missing profile: verdict error" "${out[verdict]:-}" error
step INPUT_PROFILES=''
expect "no profiles: a usage error" "$step_code" 2

# `args`: one argument a line, as written.
step INPUT_PROFILES=small_training.pt.trace.json.gz INPUT_JSON=reports/args.json INPUT_ANNOTATIONS=false \
  INPUT_ARGS=$'--skip-first\n2\n'
expect "args on two lines: exit 0" "$step_code" 0
check "args on two lines: passed as two arguments" grep -q -- '--json reports/args.json --skip-first 2$' "$job/step.log"
step INPUT_PROFILES=small_training.pt.trace.json.gz INPUT_JSON=reports/args.json INPUT_ANNOTATIONS=false \
  INPUT_ARGS='--skip-first 2'
expect "'--skip-first 2' on one line is one argument, which perfgate refuses (exit 2)" "$step_code" 2

# Inputs are data: a command in one is never run.
step INPUT_PROFILES='$(touch pwned)' INPUT_ARGS='`touch pwned2`' INPUT_HTML='x;touch pwned3'
check "inputs never run as commands" bash -c "! ls '$job/workspace' | grep -q pwned"

# ---- 2. posting: a local server stands for GitHub's API and logs the requests ----
cat >"$work/api.py" <<'PY'
import http.server, json, sys
class H(http.server.BaseHTTPRequestHandler):
    def answer(self):
        n = int(self.headers.get("Content-Length") or 0)
        body = json.loads(self.rfile.read(n)) if n else {}
        with open(sys.argv[1], "a") as log:
            log.write(f"{self.command} {self.path} {self.headers.get('Authorization')} {body.get('conclusion', '')}\n")
        data = json.dumps([] if self.command == "GET" else {"id": 1}).encode()
        self.send_response(200 if self.command == "GET" else 201)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
    do_GET = do_POST = do_PATCH = answer
    def log_message(self, *a): pass
s = http.server.HTTPServer(("127.0.0.1", 0), H)
print(s.server_address[1], flush=True)
s.serve_forever()
PY
python3 "$work/api.py" "$work/api.log" >"$work/api.port" &
api_pid=$!
for _ in $(seq 50); do [ -s "$work/api.port" ] && break; sleep 0.1; done
echo '{"pull_request": {"number": 3, "head": {"sha": "abc123"}}}' >"$work/event.json"
step "${gate_inputs[@]}" INPUT_GITHUB-TOKEN=ghs_job INPUT_COMMENT=true INPUT_CHECK=true \
  GITHUB_API_URL="http://127.0.0.1:$(cat "$work/api.port")" GITHUB_REPOSITORY=acme/train \
  GITHUB_EVENT_PATH="$work/event.json" GITHUB_SHA=merge GITHUB_WORKFLOW_REF=acme/train/.github/workflows/p.yml@refs/pull/3/merge
kill "$api_pid"
wait "$api_pid" 2>/dev/null || true
expect "comment and check: exit 0" "$step_code" 0
expect "comment and check: the requests, with the job's token" "$(cat "$work/api.log" 2>/dev/null)" \
  "GET /repos/acme/train/issues/3/comments?per_page=100&page=1 Bearer ghs_job 
POST /repos/acme/train/issues/3/comments Bearer ghs_job 
POST /repos/acme/train/check-runs Bearer ghs_job success"

echo "$passes passed, $failures failed"
[ "$failures" = 0 ]
