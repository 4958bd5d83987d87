#!/usr/bin/env bash
# CTest Scheduler.Slurm (label `slurm`): examples/slurm/ runs for real on a throw-away one-node
# Slurm cluster, and the merged report is the one-process report byte for byte.
# - The cluster: Debian's slurmctld and slurmd (22.05), config, state and spool in a temporary
#   folder, auth/none and cred/none (no munge), ports the kernel picks, 127.0.0.1 only; SLURM_CONF
#   points at it and inherited SLURM_* and SBATCH_* variables are cleared. Both daemons are stopped
#   by their PIDs at the end, whatever happened.
# - Three submissions of examples/slurm/submit.sh at once, each waited for by polling
#   `scontrol show job` (sbatch --wait exits 0 even for a cancelled job):
#   a 32-rank folder (made from the shared 128-rank sample by make_ranks.py) in 4 array tasks; the
#   shared folder itself (2 of 128 ranks: --allow-missing-ranks) in 2 tasks, whose merged JSON and
#   Markdown must equal `perfgate analyze` of the same inputs in one process, with the same exit
#   code (the 32 ranks with --fail-on warning: 1, a failed gate); and the 32 ranks with one truncated file, whose task fails: the merge job must be
#   cancelled (DependencyNeverSatisfied) and write nothing. submit.sh refuses a folder that holds
#   partials already; `perfgate merge` of 2 of 128 ranks without --allow-missing-ranks exits 3.
# Skips (exit 77) without the Slurm programs or the shared traces.
# Usage: tests/scheduler/slurm_test.sh SOURCE_DIR PERFGATE [SHARED_TRACES]
# The shared traces: $PERFGATE_SHARED_TRACES, else SHARED_TRACES, else ../shared/traces beside the
# checkout (as the other tests find them).
set -euo pipefail
source_dir=$(cd "$1" && pwd)
perfgate=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
traces=${PERFGATE_SHARED_TRACES:-${3:-$source_dir/../shared/traces}}
sampled=$traces/distributed_128ranks_sampled
submit=$source_dir/examples/slurm/submit.sh

for program in slurmctld slurmd sbatch scontrol scancel python3; do
  if ! command -v "$program" >/dev/null; then
    echo "SKIP: $program not found (Debian: apt-get install slurmctld slurmd slurm-client; ci/setup.sh --tests)"
    exit 77
  fi
done
if [ ! -f "$sampled/rank-0.json.gz" ] || [ ! -f "$sampled/rank-1.json.gz" ]; then
  echo "SKIP: the shared traces are not at $traces (distributed_128ranks_sampled)"
  exit 77
fi

# The cluster is this test's alone: nothing from a surrounding Slurm job or a user's defaults.
while read -r name; do unset "$name"; done < <(compgen -e | grep -E '^(SLURM|SBATCH|SALLOC|SRUN)_' || true)

work=$(mktemp -d)
daemons=()
failures=0
pass() { echo "ok: $*"; }
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}
running() {  # PID...: one of them runs (an exited daemon not yet waited for is a zombie: state Z)
  local pid state
  for pid; do
    state=$(sed 's/.*) \([A-Za-z]\).*/\1/' "/proc/$pid/stat" 2>/dev/null) || continue
    if [ "$state" != Z ]; then return 0; fi
  done
  return 1
}
finish() {
  local status=$?
  set +e
  trap '' PIPE  # a reader gone (| head): writes fail, the cleanup goes on
  if [ ${#daemons[@]} -gt 0 ]; then
    # Jobs first (their steps end with them), then the daemons, each by its PID.
    timeout 5 scancel --quiet --full --user="$(id -un)" 2>/dev/null || true
    kill "${daemons[@]}" 2>/dev/null || true
    for _ in $(seq 1 50); do
      running "${daemons[@]}" || break
      sleep 0.1
    done
    kill -KILL "${daemons[@]}" 2>/dev/null || true
    for pid in "${daemons[@]}"; do wait "$pid" 2>/dev/null || true; done
  fi
  if [ "$status" != 0 ] || [ "$failures" != 0 ]; then
    for log in "$work"/slurmctld.log "$work"/slurmd.log "$work"/*/logs/*.out; do
      [ -f "$log" ] || continue
      echo "---- ${log#"$work"/}"
      tail -n 15 "$log"
    done
  fi
  rm -rf "$work"
}
trap finish EXIT
# Interrupted, terminated or its reader gone: exit, which runs finish, rather than die without it.
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 141' PIPE
trap 'exit 129' HUP
cd "$work"

# ---- the cluster ----
started=$SECONDS
read -r ctld_port slurmd_port < <(python3 -c '
import socket
a, b = socket.socket(), socket.socket()
a.bind(("127.0.0.1", 0)); b.bind(("127.0.0.1", 0))
print(a.getsockname()[1], b.getsockname()[1])')
user=$(id -un)
mkdir -p state spool
cat >slurm.conf <<EOF
ClusterName=perfgate-test
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=$user
SlurmdUser=$user
AuthType=auth/none
CredType=cred/none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
MailProg=/bin/true
SchedulerType=sched/builtin
# Dependent jobs start (or are cancelled) as soon as their dependency ends, not 3 s later.
SchedulerParameters=batch_sched_delay=0
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd.log
# As many CPUs as the submissions have tasks, whatever the machine has.
SlurmdParameters=config_overrides
NodeName=localhost NodeAddr=127.0.0.1 CPUs=8 State=UNKNOWN
PartitionName=test Nodes=localhost Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF=$work/slurm.conf
slurmctld -D -c >slurmctld.out 2>&1 &
daemons+=($!)
slurmd -D -N localhost >slurmd.out 2>&1 &
daemons+=($!)
node_state=""
for _ in $(seq 1 200); do
  node_state=$(scontrol -o show node localhost 2>/dev/null | grep -o 'State=[A-Z_+]*' | head -n 1 || true)
  [ "$node_state" = State=IDLE ] && break
  for pid in "${daemons[@]}"; do
    if ! running "$pid"; then
      echo "FAIL: a Slurm daemon exited at start"
      cat slurmctld.out slurmd.out
      exit 1
    fi
  done
  sleep 0.1
done
if [ "$node_state" != State=IDLE ]; then
  echo "FAIL: the node is not idle after 20 s (${node_state:-no answer})"
  exit 1
fi
pass "a one-node cluster (ports $ctld_port, $slurmd_port) is up in $((SECONDS - started)) s"

# ---- the inputs ----
python3 "$source_dir/tests/scheduler/make_ranks.py" "$sampled" ranks32 32
mkdir ranks32-broken
cp ranks32/* ranks32-broken/
# A truncated trace stops its task with exit 3 (rank-20 is in slice 2 of 4: ranks 16..23).
head -c 4000 ranks32/rank-20.json.gz >ranks32-broken/rank-20.json.gz

# ---- the submissions, all at once ----
export PERFGATE=$perfgate
submitted() {  # NAME: the array and merge job IDs that submit.sh printed
  read -r _ array <"$1.jobs"
  read -r _ merge < <(tail -n 1 "$1.jobs")
}
# --fail-on warning: the gate fails (the traces warn), and the merge job with it, reports written.
"$submit" -n 4 -d run32 ranks32 -- --fail-on warning --json run32/report.json --md run32/report.md >run32.jobs
"$submit" -n 2 -d run128 "$sampled" -- --allow-missing-ranks --json run128/report.json \
  --md run128/report.md >run128.jobs
# submit.sh's default merge options: --json broken/report.json --html broken/report.html.
"$submit" -n 4 -d broken ranks32-broken >broken.jobs
all_jobs=()
for run in run32 run128 broken; do
  submitted "$run"
  all_jobs+=("$array" "$merge")
done

# The one-process reports, while the jobs run.
set +e
"$perfgate" analyze ranks32 --fail-on warning --json one32.json --md one32.md >one32.out 2>&1
one32_status=$?
"$perfgate" analyze "$sampled" --json one128.json --md one128.md >one128.out 2>&1
one128_status=$?
set -e

ended() {  # JOB: every task of the job has ended
  local states
  states=$(scontrol -o show job "$1" | grep -o 'JobState=[A-Z_]*')
  ! grep -qE 'JobState=(PENDING|CONFIGURING|RUNNING|COMPLETING|SUSPENDED|REQUEUED|RESIZING|SIGNALING|STAGE_OUT)' <<<"$states"
}
deadline=$((SECONDS + 60))
waiting=1
while [ "$waiting" = 1 ]; do
  waiting=0
  for job in "${all_jobs[@]}"; do ended "$job" || waiting=1; done
  if [ "$waiting" = 1 ] && [ $SECONDS -ge $deadline ]; then
    fail "the jobs have not ended after 60 s"
    scontrol -o show job | grep -o 'JobId=[^ ]* .*JobState=[A-Z_]*' || true
    exit 1
  fi
  [ "$waiting" = 0 ] || sleep 0.2
done
pass "every job ended, $((SECONDS - started)) s after the cluster's start"

field() {  # JOB FIELD: the field of each of the job's records (an array's tasks), one a line
  scontrol -o show job "$1" | grep -o " $2=[^ ]*" | sed "s/^ $2=//"
}
# ---- the successful runs: one report, byte for byte ----
for run in run32 run128; do
  submitted "$run"
  if [ "$run" = run32 ]; then tasks=4 one=one32 status=$one32_status; else tasks=2 one=one128 status=$one128_status; fi
  states=$(field "$array" JobState | sort | uniq -c | xargs)
  if [ "$states" = "$tasks COMPLETED" ]; then pass "$run: the $tasks array tasks completed"; else fail "$run: array tasks: $states"; fi
  partials=$(find "$run/partials" -name '*.pgp' | wc -l)
  if [ "$partials" = "$tasks" ]; then pass "$run: $tasks partial reports"; else fail "$run: $partials partial reports, not $tasks"; fi
  exit_code=$(field "$merge" ExitCode)
  if [ "$exit_code" = "$status:0" ]; then
    pass "$run: the merge job ended with the one-process exit code ($status: $(field "$merge" JobState))"
  else
    fail "$run: the merge job: $(field "$merge" JobState) $exit_code; one process exited $status"
    tail -n 5 "$one.out"
  fi
  for format in json md; do
    if cmp -s "$run/report.$format" "$one.$format"; then
      pass "$run: the merged $format report is the one-process report"
    else
      fail "$run: the merged $format report differs from the one-process report"
      if [ -f "$run/report.$format" ]; then diff "$run/report.$format" "$one.$format" | head -n 20; fi
    fi
  done
done

if [ "$one32_status" != 1 ]; then fail "run32: one process exited $one32_status, not 1 (--fail-on warning)"; fi

# ---- the run with a failing slice: the merge job is cancelled, nothing is written ----
submitted broken
states=$(paste -d' ' <(field "$array" ArrayTaskId) <(field "$array" JobState) | sort -n | xargs)
if [ "$states" = "0 COMPLETED 1 COMPLETED 2 FAILED 3 COMPLETED" ]; then
  pass "broken: array task 2 (the truncated rank) failed, the others completed"
else
  fail "broken: array tasks: $states"
fi
merge_state="$(field "$merge" JobState) $(field "$merge" Reason)"
if [ "$merge_state" = "CANCELLED DependencyNeverSatisfied" ]; then
  pass "broken: the merge job was cancelled (DependencyNeverSatisfied), not left pending"
else
  fail "broken: the merge job is $merge_state"
fi
if [ ! -e broken/report.json ] && [ ! -e broken/report.html ] && [ ! -e broken/partials/part-2-of-4.pgp ]; then
  pass "broken: no report and no partial of the failed slice were written"
else
  fail "broken: written: $(cd broken && echo report.* partials/part-2-*)"
fi
# The slice's own message names the file.
if grep -q 'rank-20.json.gz' broken/logs/perfgate-slice-*_2.out; then
  pass "broken: the failed task's log names the truncated file"
else
  fail "broken: the failed task's log does not name rank-20.json.gz"
fi

# ---- submit.sh refuses a folder that holds partials already: the merge would read them too ----
if "$submit" -n 4 -d run32 ranks32 >again.jobs 2>again.err; then
  fail "submit.sh submitted into run32, which holds the partials of a run: $(cat again.jobs)"
elif grep -q 'not empty' again.err && [ "$(find run32/partials -name '*.pgp' | wc -l)" = 4 ]; then
  pass "submit.sh refuses a folder that holds partials already"
else
  fail "submit.sh into a used folder: $(cat again.err)"
fi

# ---- without --allow-missing-ranks, 2 of 128 ranks do not merge ----
set +e
"$perfgate" merge run128/partials --json missing.json >missing.out 2>&1
missing_status=$?
set -e
if [ "$missing_status" = 4 ] && [ ! -e missing.json ]; then
  pass "merging 2 of 128 ranks without --allow-missing-ranks exits 4 (refused) and writes nothing"
else
  fail "merging 2 of 128 ranks without --allow-missing-ranks exited $missing_status"
  cat missing.out
fi

echo "$failures failed, in $((SECONDS - started)) s"
[ "$failures" = 0 ]
