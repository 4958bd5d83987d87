"""Report.events and perfgate.events (issue 94, item 4), from the source tree with the build's binary:
- the bundled example's kernels: in the window, as many of each name, and as long in all, as the
  kernels table of the CLI's own JSON report says; every ProfilerStep#N annotation in step N; the
  step filter keeps that step's rows only; the steps are the report's;
- collectives (the shared A100 NCCL trace, where present): every NCCL kernel is a collective row,
  with the type its op recorded;
- progress reaches the callback, ending at the total; errors are the CLI's (a missing file: exit 3
  naming it; a kind that does not exist: 2);
- without pandas, a list of dicts with the same rows;
- the notebook's cell: kilobytes, with the verdict and a link to the full page written beside it;
- the peak memory of Report.events on the largest shared trace (this process and the binary's),
  printed and checked against the CLI's default memory budget (half the machine's memory).

Usage: events_test.py SOURCE_DIR PERFGATE_BINARY   (exit 77: pandas is not installed)
"""

import collections
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

source, binary = Path(sys.argv[1]), sys.argv[2]
os.environ["PERFGATE_BINARY"] = binary
sys.path.insert(0, str(source / "python"))
try:
    import pandas  # noqa: F401
except ImportError:
    print("pandas is not installed (python3-pandas, ci/setup.sh --tests): skipped")
    sys.exit(77)
import perfgate  # noqa: E402

EXAMPLE = source / "examples" / "small_training.pt.trace.json.gz"
SHARED = source.parent / "shared" / "traces"
started = time.monotonic()


def check(condition, what):
    if not condition:
        print(f"FAIL: {what}")
        sys.exit(1)
    print(f"ok: {what}")


work = Path(tempfile.mkdtemp(prefix="perfgate-events-"))
cli_json = work / "cli.json"
subprocess.run([binary, "analyze", str(EXAMPLE), "--json", str(cli_json), "-q"], check=True)
cli = json.loads(cli_json.read_text())
table = cli["workers"][0]["tables"]["kernels"]
columns = [c["name"] for c in table["columns"]]
kernels = {row[columns.index("name")]: (row[columns.index("calls")], row[columns.index("total_us")])
           for row in table["rows"]}

report = perfgate.analyze(EXAMPLE)
events = report.events()
check(list(events.columns) == perfgate.EVENT_COLUMNS, "the columns are the documented ones")
window = events[(events["kind"] == "kernel") & events["in_window"]]
counts = window.groupby("name", observed=True)["duration_us"].agg(["count", "sum"])
check({name: int(row["count"]) for name, row in counts.iterrows()} == {n: c for n, (c, _) in kernels.items()},
      f"{len(window)} kernels in the window, by name as the CLI's kernels table counts them")
check(all(abs(counts.loc[n, "sum"] - total) <= 0.01 for n, (_, total) in kernels.items()),
      "their durations add up to the kernels table's total_us")
marks = events[(events["kind"] == "annotation") & events["name"].astype(str).str.startswith("ProfilerStep#")]
check(len(marks) > 0 and all(int(str(r.name)[len("ProfilerStep#"):]) == r.step for r in marks.itertuples()),
      f"each of the {len(marks)} ProfilerStep#N annotations is in step N")
steps_seen = sorted(int(s) for s in events["step"].dropna().unique())
check(steps_seen == sorted(int(n) for n in report.steps["number"]), f"the steps are the report's: {steps_seen}")
one = report.events(step=steps_seen[1])
check(len(one) > 0 and set(one["step"]) == {steps_seen[1]} and
      len(one) == int((events["step"] == steps_seen[1]).sum()), f"step={steps_seen[1]}: that step's {len(one)} rows")
copies = report.events(kind=["copy", "memset"])
check(set(copies["kind"].astype(str)) <= {"copy", "memset"} and copies["bytes"].notna().all() and
      len(copies) == int(events["kind"].isin(["copy", "memset"]).sum()), f"kind=copy/memset: {len(copies)} rows with bytes")
launched = events[events["kind"] == "kernel"]
check(launched["op"].notna().all() and launched["correlation"].notna().all() and launched["stream"].notna().all(),
      "every kernel names its op, correlation and stream")

seen = []
perfgate.events(EXAMPLE, kind="kernel", progress=lambda done, total: seen.append((done, total)))
check(seen and seen[-1][0] == seen[-1][1] > 0, f"progress to the callback, ending at the total {seen[-1] if seen else None}")


def raises(code, call, text=""):
    try:
        call()
    except perfgate.PerfgateError as e:
        return e.exit_code == code and text in e.message
    return False


check(raises(3, lambda: perfgate.events(work / "missing.json"), "missing.json"),
      "a missing trace: exit 3 naming it")
check(raises(2, lambda: report.events(kind="kernels")), "a kind that does not exist: exit 2")

# Names from the trace reach the table as written, whatever they hold (the JSON lines escape them).
odd_op, odd_kernel = 'op "quoted"\nline </script>\u202e\\', "kernel\t\u0001<b>"
(work / "odd.json").write_text(json.dumps({"traceEvents": [
    {"ph": "X", "cat": "cpu_op", "name": odd_op, "pid": 1, "tid": 1, "ts": 10, "dur": 50, "args": {"External id": 1}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 20, "dur": 5,
     "args": {"correlation": 7, "External id": 1}},
    {"ph": "X", "cat": "kernel", "name": odd_kernel, "pid": 0, "tid": 7, "ts": 30, "dur": 8,
     "args": {"device": 0, "stream": 7, "correlation": 7, "External id": 1}}]}))
odd = perfgate.events(work / "odd.json")
kernel_row = odd[odd["kind"] == "kernel"].iloc[0]
check(list(odd["name"].astype(str)) == [odd_op, "cudaLaunchKernel", odd_kernel] and kernel_row["op"] == odd_op and
      kernel_row["correlation"] == 7 and kernel_row["duration_us"] == 8, "names with quotes, controls and markup, as written")

plain = subprocess.run([sys.executable, "-c", f"""
import sys; sys.modules["pandas"] = None; sys.path.insert(0, {str(source / 'python')!r})
import perfgate
rows = perfgate.events({str(EXAMPLE)!r})
assert isinstance(rows, list) and isinstance(rows[0], dict), type(rows)
print(len(rows), sum(1 for r in rows if r["kind"] == "kernel"))
"""], capture_output=True, text=True)
check(plain.returncode == 0 and plain.stdout.split() == [str(len(events)), str(len(launched))],
      f"without pandas: a list of dicts, the same {len(events)} rows {plain.stderr[-300:]}")

os.chdir(work)
cell = report._repr_html_()
pages = list((work / "perfgate-reports").glob("*.html"))
check(len(cell) < 20_000 and report.verdict.upper() in cell and len(pages) == 1 and
      f'href="perfgate-reports/{pages[0].name}"' in cell and pages[0].read_text() == report._html,
      f"the notebook cell: {len(cell):,} bytes, the verdict and a link to the {len(report._html):,}-byte page")

# Collectives: every NCCL kernel of the shared A100 trace is a collective row, with its op's type.
nccl = SHARED / "a100_nccl_rank0.json.gz"
if nccl.exists():
    rows = perfgate.events(nccl, kind="collective")
    kernels_named = perfgate.events(nccl, kind="kernel")
    named = kernels_named[kernels_named["name"].astype(str).str.startswith("ncclKernel")]
    as_rows = rows[rows["kind"] == "kernel"]
    check(len(named) > 0 and len(as_rows) == len(named) and rows["collective"].notna().all() and
          set(as_rows["collective"].astype(str)) <= {"allreduce", "broadcast", "allgather", "reduce_scatter"},
          f"kind=collective: the {len(named)} NCCL kernels, typed {sorted(set(as_rows['collective'].astype(str)))}, "
          f"and {len(rows) - len(as_rows)} communication ops")
else:
    print(f"{nccl}: absent, the collectives skipped")

# The largest shared trace: Report.events' peak memory (a process of its own, and the binary under
# it) against the CLI's default memory budget.
large = SHARED / "resnet50_v100_workers0.pt.trace.json.gz"
if large.exists():
    # The Python side: what events() allocated at its peak (tracemalloc sees numpy's and pandas'
    # buffers too), and the process's peak; the binary's from a small process of its own (a child's
    # peak counts the image it was forked from).
    measured = subprocess.run([sys.executable, "-c", f"""
import resource, sys, time, tracemalloc; sys.path.insert(0, {str(source / 'python')!r})
import perfgate, pandas
tracemalloc.start()
timer = time.monotonic()
frame = perfgate.events({str(large)!r})
took = time.monotonic() - timer
print(len(frame), took, frame.memory_usage(deep=True).sum(), tracemalloc.get_traced_memory()[1],
      resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024)
"""], capture_output=True, text=True)
    check(measured.returncode == 0, f"Report.events on {large.name} {measured.stderr[-300:]}")
    rows, took, held, python_peak, process_peak = (float(v) for v in measured.stdout.split())
    alone = subprocess.run([sys.executable, "-S", "-c", f"""
import resource, subprocess
subprocess.run([{binary!r}, "events", {str(large)!r}], stdout=subprocess.DEVNULL, check=True)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024)
"""], capture_output=True, text=True, check=True)
    binary_peak = float(alone.stdout)
    budget = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // 2
    print(f"{large.name}: {rows:,.0f} rows in {took:.2f} s; the DataFrame {held / 1e6:.1f} MB; events() allocated "
          f"{python_peak / 1e6:.1f} MB at its peak (the Python process's peak RSS {process_peak / 1e6:.0f} MB, pandas "
          f"and numpy included); the binary's peak RSS {binary_peak / 1e6:.0f} MB; the CLI's default budget "
          f"{budget / 1e9:.1f} GB")
    check(process_peak + binary_peak < budget, "within the CLI's default memory budget")
else:
    print(f"{large}: absent, the memory measure skipped")
os.chdir("/")
shutil.rmtree(work, ignore_errors=True)
print(f"PASS in {time.monotonic() - started:.1f} s")
