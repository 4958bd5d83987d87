#!/usr/bin/env python3
"""Issue 55, item 7: the Python API keeps the CLI's guarantees (docs/python.md, "Errors and outputs").

Usage: api_guarantees_test.py SOURCE_DIR PERFGATE_BINARY

Before: json=, html= and md= were written by Path.write_text after the CLI's own outputs (a kill
left a torn r.json beside a new r.xlsx); paths went to the CLI without `--` (a file named -rf.json
was "unknown option"); json= in a missing folder raised FileNotFoundError, a folder
IsADirectoryError, print_effective_rules=True FileNotFoundError; json= naming the input overwrote it.
"""

import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

source, binary = Path(sys.argv[1]), sys.argv[2]
os.environ["PERFGATE_BINARY"] = binary
sys.path.insert(0, str(source / "python"))
import perfgate  # noqa: E402

EXAMPLE = source / "examples" / "small_training.pt.trace.json.gz"
failures = []


def check(condition, what):
    if not condition:
        failures.append(what)
        print("FAIL:", what)


def raises(kind, call):
    try:
        call()
    except kind as e:
        return e
    except Exception as e:  # noqa: BLE001 - the point is which kind
        check(False, f"{type(e).__name__} instead of {kind.__name__}: {e}")
        return None
    check(False, f"no {kind.__name__} raised")
    return None


work = Path(tempfile.mkdtemp(prefix="perfgate-api-"))
os.chdir(work)

# A path that starts with '-' is a path: it goes after `--`, and options are joined with '='.
shutil.copy(EXAMPLE, work / "-rf.json.gz")
report = perfgate.analyze("-rf.json.gz", json="-out.json")
check(report.exit_code in (0, 1) and (work / "-out.json").is_file(), "a file named -rf.json.gz is read")

# Outputs are the CLI's: its checks and messages, as PerfgateError with its exit code.
e = raises(perfgate.PerfgateError, lambda: perfgate.analyze(EXAMPLE, json=work / "missing" / "r.json"))
check(e is not None and e.exit_code in (2, 3) and "missing" in e.message, f"missing folder: {e and e.message}")
(work / "folder").mkdir()
e = raises(perfgate.PerfgateError, lambda: perfgate.analyze(EXAMPLE, json=work / "folder"))
check(e is not None and e.exit_code in (2, 3), f"a folder as json=: {e and e.message}")
trace = work / "t.json.gz"
shutil.copy(EXAMPLE, trace)
before = trace.read_bytes()
e = raises(perfgate.UsageError, lambda: perfgate.analyze(trace, json=trace))
check(e is not None and "never writes over its inputs" in e.message, f"json= the input: {e and e.message}")
check(trace.read_bytes() == before, "the input is left as it was")
e = raises(perfgate.UsageError, lambda: perfgate.analyze(EXAMPLE, print_effective_rules=True))
check(e is not None and "perfgate.effective_rules" in e.message, f"print_effective_rules: {e and e.message}")
check("rules:" in perfgate.effective_rules(), "effective_rules() gives the YAML")
saved = os.environ["PERFGATE_BINARY"]
os.environ["PERFGATE_BINARY"] = str(work / "no-such-binary")
e = raises(perfgate.PerfgateError, lambda: perfgate.analyze(EXAMPLE))
check(e is not None and e.exit_code == 127, f"a missing binary: {e and e.message}")
os.environ["PERFGATE_BINARY"] = saved

# Killed at any moment, perfgate.analyze leaves the previous set of outputs or the new one, whole.
out = work / "kill"
out.mkdir()
names = ["r.json", "r.html", "r.md", "r.xlsx"]
program = (
    "import sys, perfgate\n"
    f"sys.path.insert(0, {str(source / 'python')!r})\n"
    "skip = int(sys.argv[1])\n"
    f"perfgate.analyze({str(EXAMPLE)!r}, skip_first=skip, fail_on='never', json='r.json', html='r.html',"
    " md='r.md', xlsx='r.xlsx')\n"
)
env = dict(os.environ, PYTHONPATH=str(source / "python"))


def analyze_in_child(skip):
    return subprocess.Popen([sys.executable, "-c", program, str(skip)], cwd=out, env=env,
                            start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def kill_python_and_its_perfgate(child):
    """SIGKILL to the Python process and the perfgate it runs, as the kill test of the CLI does: a
    perfgate killed during its renames leaves a process that finishes them (docs/reports.md), which
    is waited for, not killed."""
    try:
        children = Path(f"/proc/{child.pid}/task/{child.pid}/children").read_text().split()
    except OSError:
        children = []
    for pid in children:
        try:
            os.kill(int(pid), signal.SIGKILL)
        except ProcessLookupError:
            pass
    child.kill()
    child.wait()
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            os.killpg(child.pid, 0)  # anything of the run's left?
        except ProcessLookupError:
            return
        time.sleep(0.05)


def outputs():
    return [(out / n).read_bytes() if (out / n).exists() else None for n in names]


sets = []
for skip in (0, 1):
    start = time.monotonic()
    check(analyze_in_child(skip).wait() == 0, f"a whole run (skip_first={skip})")
    took = time.monotonic() - start
    sets.append(outputs())
check(sets[0] != sets[1] and all(sets[0]) and all(sets[1]), "two different whole sets")
rng = random.Random(55)
whole = 0
for attempt in range(12):
    skip = attempt % 2  # the set on disk is the other one's
    child = analyze_in_child(skip)
    time.sleep(rng.uniform(0.0, took))
    kill_python_and_its_perfgate(child)
    now = outputs()
    check(now in sets, f"kill {attempt}: a mixed or torn set of outputs")
    if now != sets[skip]:  # killed before the new set landed: finish it, for the next attempt
        check(analyze_in_child(skip).wait() == 0, "the rerun")
    whole += 1
print(f"{whole} kills, each leaving one whole set")

# Issue 76, item 9. Before: skip_first="x" raised "unknown option '--', did you mean '-h'?";
# failed_findings() returned the warnings too; a Report as the baseline was named in the reports by
# a temporary file gone after the call; findings were plain dicts.
e = raises(perfgate.UsageError, lambda: perfgate.analyze(EXAMPLE, skip_first="x"))
check(e is not None and e.message.startswith("--skip-first: 'x' is not a whole number (0 or more)"),
      f"skip_first='x': {e and e.message}")
first = perfgate.analyze(EXAMPLE)
statuses = {f.status for f in first.findings}
check("warn" in statuses and "fail" not in statuses, f"the example warns and does not fail: {statuses}")
check(first.failed_findings() == [], f"failed_findings() holds no warning: {first.failed_findings()}")
warned = first.warned_findings()
check(warned and all(f.status == "warn" for f in warned)
      and len(warned) == sum(1 for f in first.json["findings"] if f["status"] == "warn"), "warned_findings()")
one = first.findings[0]
check(isinstance(one, perfgate.Finding) and one["id"] == one.id == first.json["findings"][0]["id"]
      and one.get("source") == first.json["findings"][0]["source"], "a Finding is typed and reads as its object")
again = perfgate.analyze(EXAMPLE, baseline=first, md=work / "again.md")
name = f"a perfgate.Report of {EXAMPLE}"
check(again.json["baseline"]["path"] == name, f"baseline named {again.json['baseline']['path']!r}")
check("perfgate-baseline-" not in (work / "again.md").read_text(), "the Markdown names no temporary file")
named = perfgate.analyze(EXAMPLE, baseline=first, baseline_name="main, last night")
check(named.json["baseline"]["path"] == "main, last night", "baseline_name= names it")

# Issue 60, item 5: a PyTorch memory snapshot through the Python API, as a trace is (the batch-32 H200
# snapshot of tests/data, gzipped): its peak and the live-at-peak rows adding up to it, as
# tests/real/memory_snapshot_expected.py gives them (6,059,193,344 block bytes).
snapshot = perfgate.analyze(source / "tests" / "data" / "h200_snapshot_b32.pickle.gz")
check(snapshot.metrics.get("memory.snapshot_peak_bytes") == 6059193344,
      f"snapshot peak {snapshot.metrics.get('memory.snapshot_peak_bytes')}")
live = snapshot.tables.get("memory_live_at_peak")
rows = live.to_dict("records") if hasattr(live, "to_dict") else (live or [])
check(len(rows) > 0 and sum(row["bytes"] for row in rows) == 6059193344, "the live-at-peak rows add up to the peak")

shutil.rmtree(work, ignore_errors=True)
if failures:
    print(f"{len(failures)} failures")
    sys.exit(1)
print("ok")
