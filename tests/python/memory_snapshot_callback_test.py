"""perfgate.torch.on_trace_ready(memory_snapshot=True) from the wheel in a throw-away venv (issue 60):
- with Debian's python3-torch (1.13, CPU only) it refuses at once, saying that snapshots need CUDA
  (a UsageError, exit code 2), and records nothing;
- a torch without torch.cuda.memory._dump_snapshot (before 2.1) is told it needs 2.1 or later;
- with a stand-in torch module that has CUDA (its _dump_snapshot writes the H200 batch-32 snapshot of
  tests/data), each window's trace and snapshot are written and analysed: the snapshot's peak is
  6,059,193,344 block bytes (tests/real/memory_snapshot_expected.py) and its device memory the total_memory
  the stand-in reports (--device-memory), so the near-capacity rule applies.

Usage: memory_snapshot_callback_test.py SOURCE_DIR WHEEL_DIR
"""

import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from venv_support import make_venv, run_python, the_wheel  # noqa: E402

source, wheel_dir = sys.argv[1:3]
venv = make_venv(the_wheel(wheel_dir), system_site_packages=True)
have_torch = subprocess.run(["/usr/bin/python3", "-c", "import torch"], capture_output=True).returncode == 0

run_python(venv, r'''
import gzip, os, shutil, sys, tempfile, types
from pathlib import Path
import perfgate, perfgate.torch
from perfgate.errors import UsageError
source, have_torch = sys.argv[1], sys.argv[2] == "1"

def check(condition, message):
    if not condition:
        print(f"FAIL: {message}", file=sys.stderr)
        sys.exit(1)
    print(f"ok: {message}")

log = Path(tempfile.mkdtemp(prefix="perfgate-snap-"))
if have_torch:
    import torch
    check(not torch.cuda.is_available(), "Debian's torch has no CUDA")
    try:
        perfgate.torch.on_trace_ready(log / "cpu", memory_snapshot=True)
        check(False, "memory_snapshot=True on a CPU-only torch raises")
    except UsageError as e:
        check(e.exit_code == 2, "a UsageError, exit code 2")
        check("memory snapshots need CUDA" in e.message and torch.__version__ in e.message, e.message)
    check(not (log / "cpu").exists(), "nothing is written")
    del sys.modules["torch"]
else:
    print("python3-torch is not installed (ci/setup.sh --tests): the CPU-only part is skipped")

# Stand-ins for torch: one too old for snapshots, one with CUDA whose snapshot is the H200 one.
snapshot_gz = Path(source) / "tests/data/h200_snapshot_b32.pickle.gz"
calls = []
def fake_torch(version, with_dump):
    memory = types.SimpleNamespace(_record_memory_history=lambda **kw: calls.append(("record", kw)))
    if with_dump:
        def dump(path):
            calls.append(("dump", path))
            with gzip.open(snapshot_gz, "rb") as f, open(path, "wb") as out:
                shutil.copyfileobj(f, out)
        memory._dump_snapshot = dump
    props = types.SimpleNamespace(total_memory=6 * 2**30)  # the peak is 94.0 % of it
    cuda = types.SimpleNamespace(is_available=lambda: True, memory=memory, current_device=lambda: 0,
                                 get_device_properties=lambda d: props)
    return types.SimpleNamespace(__version__=version, cuda=cuda)

sys.modules["torch"] = fake_torch("2.0.1", with_dump=False)
try:
    perfgate.torch.on_trace_ready(log / "old", memory_snapshot=True)
    check(False, "memory_snapshot=True on torch 2.0 raises")
except UsageError as e:
    check("need torch 2.1 or later" in e.message and "2.0.1" in e.message, e.message)

sys.modules["torch"] = fake_torch("2.5.0", with_dump=True)
trace = Path(source) / "tests/data/h200_precision_mix.pt.trace.json.gz"
class Prof:
    def export_chrome_trace(self, path):
        with gzip.open(trace, "rb") as f, open(path, "wb") as out:
            shutil.copyfileobj(f, out)
gate = perfgate.torch.on_trace_ready(log / "gpu", worker_name="w0", memory_snapshot=True, print_summary=False)
check(calls and calls[0] == ("record", {"max_entries": 100000}), f"history recorded from the start: {calls}")
report = gate(Prof())
check(len(gate.snapshots) == 1 and gate.snapshots[0].endswith(".memory_snapshot.pickle"), str(gate.snapshots))
check(os.path.dirname(gate.snapshots[0]) == str(log / "gpu"), "the snapshot lies beside the trace")
snap = gate.snapshot_reports[0]
check(snap.metrics["memory.snapshot_peak_bytes"] == 6059193344, f"peak {snap.metrics['memory.snapshot_peak_bytes']}")
check(snap.metrics["memory.snapshot_capacity_bytes"] == 6 * 2**30, "the device's memory from torch")
pct = snap.metrics["memory.snapshot_peak_pct"]
check(abs(pct - 100 * 6059193344 / (6 * 2**30)) < 1e-6, f"peak share {pct} (the JSON report's 6 decimals)")
near = [f for f in snap.findings if f["id"] == "memory.snapshot-near-capacity"][0]
check(near["status"] == "warn", f"near capacity: {near['status']}")
check(report is gate.last and report.exit_code in (0, 1), "the trace's report is returned")
''', source, "1" if have_torch else "0")
print("ok: memory snapshot callback")
