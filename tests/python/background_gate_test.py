"""perfgate.torch.on_trace_ready(background=True) in one process, without torch (a stand-in profiler
whose export_chrome_trace writes the bundled example), from the source tree with the build's binary:
- the callback returns before the analysis ends (the perfgate process runs on);
- raise_at="step": the failed verdict (a rule of the test's that every step fails) is raised by a
  later prof.step(), once, and gate.close() then raises nothing more;
- named ranks (ranks=[0], the one process): its report recorded once in the history;
- raise_at="end": nothing raised in the loop, GateFailed from close();
- an option of the background gate without it is a UsageError.

Usage: background_gate_test.py SOURCE_DIR PERFGATE_BINARY
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

source, binary = Path(sys.argv[1]), sys.argv[2]
os.environ["PERFGATE_BINARY"] = binary
sys.path.insert(0, str(source / "python"))
import perfgate  # noqa: E402
import perfgate.torch  # noqa: E402

EXAMPLE = source / "examples" / "small_training.pt.trace.json.gz"
RULES = """\
rules:
  - id: test.step-budget
    title: A step takes longer than 1 us
    metric: steps.mean_us
    family: [gpu, cpu-only]
    better: lower
    fail: 1
    severity: error
    problem: "A step takes {value}."
    recommendation: "None: the test's own rule, which every step fails."
"""


def check(condition, what):
    if not condition:
        print(f"FAIL: {what}")
        sys.exit(1)
    print(f"ok: {what}")


class StandInProfiler:
    """What the callback uses of torch.profiler.profile: export_chrome_trace and step."""

    def __init__(self):
        self.steps = 0

    def export_chrome_trace(self, path):
        shutil.copyfile(EXAMPLE, path)

    def step(self):
        self.steps += 1


started = time.monotonic()
work = Path(tempfile.mkdtemp(prefix="perfgate-background-"))
(work / "budget.yaml").write_text(RULES)
history = work / "perf.db"

gate = perfgate.torch.on_trace_ready(work / "log", background=True, history=str(history), branch="main", fail=True,
                                     rules=str(work / "budget.yaml"), use_gzip=True, print_summary=False)
check(type(gate).__name__ == "BackgroundGate" and gate.raise_at == "step", "background=True: a BackgroundGate")
prof = StandInProfiler()
called = time.monotonic()
gate(prof)
returned = time.monotonic() - called
check(gate._threads[0].is_alive() and not gate.reports, f"the callback returned in {returned * 1000:.0f} ms, the "
      "analysis still running")
raised = 0
deadline = time.monotonic() + 60
while time.monotonic() < deadline:
    try:
        prof.step()
    except perfgate.GateFailed as e:
        raised += 1
        failed = e.report
        break
    time.sleep(0.01)
check(raised == 1 and failed.verdict == "fail" and [f.id for f in failed.failed_findings()] == ["test.step-budget"],
      f"the failed verdict raised by prof.step() number {prof.steps + 1}")
gate.close()
check(len(gate.reports) == 1 and gate.verdict == "fail", "close() raises it no second time")
runs = json.loads(subprocess.run([binary, "history", "list", str(history), "--json"], capture_output=True,
                                 text=True, check=True).stdout)
check(len(runs) == 1 and runs[0]["branch"] == "main", "one record in the history")
check(len(gate.traces) == 1 and gate.traces[0].endswith(".pt.trace.json.gz"), f"the trace: {Path(gate.traces[0]).name}")

end = perfgate.torch.on_trace_ready(work / "log2", background=True, raise_at="end", fail=True,
                                    rules=str(work / "budget.yaml"), print_summary=False)
prof = StandInProfiler()
end(prof)
for _ in range(5):
    prof.step()
end._threads[0].join(60)
prof.step()  # the verdict came: raise_at="end" holds it
try:
    end.close()
    check(False, "close() raised GateFailed")
except perfgate.GateFailed as e:
    check(e.report.verdict == "fail", "raise_at='end': GateFailed from close(), none in the loop")

try:
    perfgate.torch.on_trace_ready(work / "log3", background=False, raise_at="end")
    check(False, "raise_at= without background raised")
except perfgate.UsageError as e:
    check("background=True" in e.message and e.exit_code == 2, f"raise_at= without background: {e.message}")
os.chdir("/")
shutil.rmtree(work, ignore_errors=True)
print(f"PASS in {time.monotonic() - started:.1f} s")
