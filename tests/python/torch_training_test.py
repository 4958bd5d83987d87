"""Real PyTorch (Debian's python3-torch: CPU, no Kineto, so the legacy profiler format) profiling a
small training loop with torch.profiler.schedule, gated by perfgate.torch.on_trace_ready from the
wheel in a throw-away venv (with the system's site packages, where torch and pandas are):
- the trace is read: steps found (the schedule's active steps), the ops table with the model's ops,
  their calls equal to what torch's own profiler counted, a CPU-only verdict with GPU metrics n/a;
- the run is recorded in a run history;
- a second run, slowed on purpose (a sleep in each step), fails the gate against the first's report;
- the DataFrames hold what the JSON report (written by the CLI itself) holds.

Usage: torch_training_test.py SOURCE_DIR WHEEL_DIR   (exit 77: python3-torch is not installed)
"""

import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from venv_support import make_venv, run_python, the_wheel  # noqa: E402

if subprocess.run(["/usr/bin/python3", "-c", "import torch, pandas"], capture_output=True).returncode != 0:
    print("python3-torch or python3-pandas is not installed (ci/setup.sh --tests): skipped")
    sys.exit(77)

source, wheel_dir = sys.argv[1:3]
venv = make_venv(the_wheel(wheel_dir), system_site_packages=True)

run_python(venv, r'''
import collections, json, math, subprocess, sys, tempfile, time
from pathlib import Path
import perfgate, perfgate.torch
assert "torch" not in sys.modules, "importing perfgate or perfgate.torch imported torch"
assert perfgate.__file__.startswith(sys.prefix), f"perfgate is not the venv's: {perfgate.__file__}"
import pandas, torch
from torch import nn

WAIT, WARMUP, ACTIVE = 1, 1, 6

def train(log_dir, sleep_s, **gate_options):
    """A two-layer MLP trained for WAIT + WARMUP + ACTIVE steps under the profiler's schedule;
    returns the gate and what torch's own profiler recorded of the window (names counted)."""
    torch.manual_seed(0)
    torch.set_num_threads(1)
    model = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    x, y = torch.randn(32, 64), torch.randint(0, 10, (32,))
    gate = perfgate.torch.on_trace_ready(log_dir, worker_name="worker0", **gate_options)
    seen = {}
    def ready(prof):
        # trace_name: the name the trace gets ("ProfilerStep#3"; `name` is "ProfilerStep*").
        seen["calls"] = collections.Counter(e.trace_name for e in prof.events())
        seen["steps"] = sorted((e.trace_name, e.time_range.elapsed_us()) for e in prof.events()
                               if e.trace_name.startswith("ProfilerStep#"))
        return gate(prof)
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU],
                                schedule=torch.profiler.schedule(wait=WAIT, warmup=WARMUP, active=ACTIVE, repeat=1),
                                on_trace_ready=ready, record_shapes=True) as prof:
        for _ in range(WAIT + WARMUP + ACTIVE):
            loss = nn.functional.cross_entropy(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            time.sleep(sleep_s)
            prof.step()
    return gate, seen

work = Path(tempfile.mkdtemp())
started = time.monotonic()
# A sleep in each step makes the step time mostly time that a loaded CI machine cannot stretch much
# (20 ms against ~1 ms of compute), so that the gate below compares like with like.
gate, seen = train(work / "base", 0.020, history=str(work / "perf.db"), branch="main")
report = gate.last
trace = Path(gate.traces[0])
head = trace.read_text()[:200]
assert head.startswith("[") and '"pid": "CPU functions"' in head and '"cat"' not in head, head
assert report.json["inputs"][0]["format"] == "pytorch-legacy-json", report.json["inputs"][0]

# Steps: the schedule's active steps, each as long as torch's ProfilerStep event (us).
window = report.json["workers"][0]["window"]
assert window["steps_total"] == ACTIVE == len(seen["steps"]), (window, seen["steps"])
steps = report.steps
assert isinstance(steps, pandas.DataFrame) and len(steps) == ACTIVE, steps
for (name, torch_us), (_, row) in zip(seen["steps"], steps.sort_values("number").iterrows()):
    assert row["name"] == name and abs(row["duration_us"] - torch_us) <= 1, (name, torch_us, row["duration_us"])
print(f"ok: {ACTIVE} steps found ({', '.join(steps['name'])}), durations as torch's ProfilerStep events")

# The ops table: the model's ops, each called as often as torch's profiler counted in the window.
ops = report.tables["ops"].set_index("name")
for name, per_step in [("aten::linear", 2), ("aten::addmm", 2), ("aten::relu", 1), ("aten::mm", 3),
                       ("aten::cross_entropy_loss", 1), ("AddmmBackward0", 2)]:
    assert name in ops.index, f"{name} not in the ops table: {list(ops.index)[:30]}"
    assert ops.loc[name, "calls"] == per_step * ACTIVE == seen["calls"][name], (name, ops.loc[name, "calls"], seen["calls"][name])
assert ops.loc["AddmmBackward0", "direction"] == "bprop", ops.loc["AddmmBackward0", "direction"]
print(f"ok: ops table, {len(ops)} ops; calls as torch counted: addmm {ops.loc['aten::addmm', 'calls']}, "
      f"relu {ops.loc['aten::relu', 'calls']}, mm {ops.loc['aten::mm', 'calls']}")

# CPU only: the verdict passes (nothing to compare yet), GPU metrics are n/a, no GPU rule applies.
assert report.exit_code == 0 and report.verdict in ("pass", "warn"), (report.exit_code, report.verdict)
gpu = {k: v for k, v in report.metrics.items() if k.startswith("gpu.") and k != "gpu.count"}
assert gpu and all(v is None for v in gpu.values()), gpu
flagged = report.failed_findings() + report.warned_findings()
assert not [f.id for f in flagged if f.id.startswith(("gpu.", "tensor-cores."))]
print(f"ok: CPU-only verdict {report.verdict} (exit {report.exit_code}); {len(gpu)} GPU metrics n/a")

# The run history got the window.
listed = subprocess.run([sys.prefix + "/bin/perfgate", "history", "list", str(work / "perf.db"), "--json"],
                        capture_output=True, text=True, check=True).stdout
runs = json.loads(listed)
assert len(runs) == 1 and runs[0]["branch"] == "main", listed
print("ok: recorded in the run history")

# The DataFrames hold the JSON report's rows, the report the CLI writes of the same trace.
cli = work / "cli.json"
subprocess.run([sys.prefix + "/bin/perfgate", "analyze", str(trace), "--json", str(cli)], check=True, capture_output=True)
data = json.loads(cli.read_text())
assert data["metrics"] == report.metrics
def plain(value):
    return None if isinstance(value, float) and math.isnan(value) else value
for name, table in data["workers"][0]["tables"].items():
    frame = report.tables[name]
    assert list(frame.columns) == [c["name"] for c in table["columns"]], name
    rows = [[plain(v) for v in row] for row in frame.astype(object).values.tolist()]
    assert rows == table["rows"], f"table {name} differs from the JSON report"
    assert frame.attrs["units"] == {c["name"]: c["unit"] for c in table["columns"]}
print(f"ok: {len(data['workers'][0]['tables'])} DataFrames equal the CLI's JSON report")
base = work / "base.json"
report.to_json(base)

# A second run, slowed on purpose (60 ms more per step: far beyond a loaded machine's noise), fails
# the gate against the first.
try:
    train(work / "slow", 0.080, baseline=str(base), fail=True)
    raise SystemExit("the slowed run passed the gate")
except perfgate.GateFailed as e:
    slow = e.report
assert slow.exit_code == 1 and slow.verdict == "fail", (slow.exit_code, slow.verdict)
failed = {f["id"]: f for f in slow.findings if f["status"] == "fail"}
assert "regression.step-time" in failed, list(failed)
print(f"ok: the slowed run fails the gate: {failed['regression.step-time']['problem'][:160]}")
print(f"PASS in {time.monotonic() - started:.1f} s")
''', source)
