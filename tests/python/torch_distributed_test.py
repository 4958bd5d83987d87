"""perfgate.torch.on_trace_ready under torch.distributed: a real 2-process DDP job (Debian's
python3-torch, gloo on the CPU, torch.multiprocessing.spawn), the API from the source tree with the
build's binary:
- each rank writes its trace and its partial report; rank 0 alone merges and gates them, in the
  background, and the history gets one record for the job;
- one verdict: only rank 0 holds a report, and a rule that fails (a step budget of 1 us, a rule file
  of the test's) raises perfgate.GateFailed once, on rank 0, at the end (raise_at="end");
- the merged report is the one `perfgate analyze` of both rank files makes (its metrics and verdict);
- the training loop's step time without the profiler, with the profiler alone and with the callback
  (the analysis running beside it) is logged, not asserted (a shared CI machine's timings).

Usage: torch_distributed_test.py SOURCE_DIR PERFGATE_BINARY   (exit 77: python3-torch is not installed)
"""

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

if subprocess.run([sys.executable, "-c", "import torch.distributed, pandas"], capture_output=True).returncode != 0:
    print("python3-torch or python3-pandas is not installed (ci/setup.sh --tests): skipped")
    sys.exit(77)

source, binary = sys.argv[1:3]
sys.path.insert(0, os.path.join(source, "python"))
os.environ["PERFGATE_BINARY"] = binary

import perfgate  # noqa: E402
import perfgate.torch  # noqa: E402
import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402
import torch.multiprocessing as mp  # noqa: E402
from torch import nn  # noqa: E402

WORLD, WAIT, WARMUP, ACTIVE, AFTER = 2, 1, 1, 4, 12
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


def rank_main(rank: int, work: str) -> None:
    work_dir = Path(work)
    dist.init_process_group("gloo", init_method=f"file://{work_dir / 'rendezvous'}", rank=rank, world_size=WORLD)
    torch.manual_seed(0)
    torch.set_num_threads(1)
    model = nn.parallel.DistributedDataParallel(nn.Sequential(nn.Linear(64, 256), nn.ReLU(), nn.Linear(256, 10)))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    x, y = torch.randn(64, 64), torch.randint(0, 10, (64,))

    def step() -> None:
        loss = nn.functional.cross_entropy(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        time.sleep(0.010)  # the rest of a real step (input, logging): most of it, steady under load

    def loop(steps: int, prof=None) -> list:
        times = []
        for _ in range(steps):
            started = time.perf_counter()
            step()
            if prof is not None:
                prof.step()
            times.append(time.perf_counter() - started)
        return times

    loop(3)  # warm-up
    plain = loop(WAIT + WARMUP + ACTIVE + AFTER)
    schedule = torch.profiler.schedule(wait=WAIT, warmup=WARMUP, active=ACTIVE, repeat=1)
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU], schedule=schedule) as prof:
        profiled = loop(WAIT + WARMUP + ACTIVE + AFTER, prof)
    gate = perfgate.torch.on_trace_ready(work_dir / "log", history=str(work_dir / "perf.db"), branch="main",
                                         fail=True, raise_at="end", rules=str(work_dir / "budget.yaml"),
                                         print_summary=False)
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU], schedule=schedule,
                                on_trace_ready=gate) as prof:
        gated = loop(WAIT + WARMUP + ACTIVE + AFTER, prof)
    # The analysis may still run: the loop went on beside it.
    pending = any(t.is_alive() for t in gate._threads)
    outcome = "closed"
    try:
        gate.close()
    except perfgate.GateFailed as e:
        outcome = f"GateFailed {e.report.verdict}"
    result = {"plain": plain, "profiled": profiled, "gated": gated, "outcome": outcome, "reports": len(gate.reports),
              "traces": gate.traces, "pending_after_loop": pending, "job": gate.job_id}
    (work_dir / f"rank{rank}.json").write_text(json.dumps(result))
    dist.destroy_process_group()


def main() -> None:
    started = time.monotonic()
    work = Path(tempfile.mkdtemp(prefix="perfgate-ddp-"))
    (work / "budget.yaml").write_text(RULES)
    mp.spawn(rank_main, args=(str(work),), nprocs=WORLD, join=True)
    ranks = [json.loads((work / f"rank{r}.json").read_text()) for r in range(WORLD)]

    # One verdict: rank 0 holds the merged report and raised it; rank 1 wrote its part only.
    assert ranks[0]["outcome"] == "GateFailed fail" and ranks[0]["reports"] == 1, ranks[0]
    assert ranks[1]["outcome"] == "closed" and ranks[1]["reports"] == 0, ranks[1]
    assert ranks[0]["job"] == ranks[1]["job"], "the ranks did not agree on the job"
    merged = sorted((work / "log" / "perfgate").glob("*/report.json"))
    parts = sorted((work / "log" / "perfgate").glob("*/parts/*.pgp"))
    assert len(merged) == 1 and [p.name for p in parts] == ["rank_0.pgp", "rank_1.pgp"], (merged, parts)
    print(f"ok: one verdict (GateFailed on rank 0 only), from the 2 ranks' parts {[p.name for p in parts]}")

    # One history record for the job.
    listed = subprocess.run([binary, "history", "list", str(work / "perf.db"), "--json"], capture_output=True,
                            text=True, check=True).stdout
    runs = json.loads(listed)
    assert len(runs) == 1 and runs[0]["branch"] == "main", listed
    print("ok: one record in the run history")

    # The merged report is what one analyze of both traces makes.
    traces = [t for r in ranks for t in r["traces"]]
    assert len(traces) == WORLD and all(Path(t).exists() for t in traces), traces
    whole = perfgate.analyze(traces, rules=str(work / "budget.yaml"))
    report = json.loads(merged[0].read_text())
    assert report["metrics"] == whole.metrics, "the merged metrics differ from analyze's"
    assert report["verdict"]["status"] == whole.verdict == "fail", (report["verdict"], whole.verdict)
    failed = [f["id"] for f in report["findings"] if f["status"] == "fail"]
    assert failed == ["test.step-budget"], failed
    assert whole.metrics["steps.count"] == ACTIVE, whole.metrics["steps.count"]
    print(f"ok: the merged report equals analyze of both traces ({ACTIVE} steps, {len(report['metrics'])} metrics)")

    # The job's events by rank (a CPU trace states no rank: its file name rank_R does).
    ranked = perfgate.events(traces, kind="annotation", rank=1)
    marks = ranked[ranked["name"].astype(str).str.startswith("ProfilerStep#")]
    check_workers = set(ranked["worker"].astype(str))
    assert len(marks) == ACTIVE and set(ranked["rank"]) == {1} and len(check_workers) == 1 and \
        next(iter(check_workers)).startswith("rank_1."), (len(marks), check_workers)
    print(f"ok: events(rank=1): rank 1's {ACTIVE} steps only")

    # Step times (ms, median over both ranks): logged, not asserted.
    def median_ms(key: str, first: int = 0) -> float:
        return statistics.median(t for r in ranks for t in r[key][first:]) * 1000

    after = WAIT + WARMUP + ACTIVE  # the steps after the window, while the analysis ran
    print(f"step time (median ms): no profiler {median_ms('plain'):.2f}; profiler alone {median_ms('profiled'):.2f}; "
          f"profiler + perfgate callback {median_ms('gated'):.2f}; after the window, analysis in the background: "
          f"{median_ms('gated', after):.2f} (profiler alone {median_ms('profiled', after):.2f}); "
          f"window-end step (trace written, analysis started): "
          f"{max(r['gated'][after - 1] for r in ranks) * 1000:.2f} "
          f"(profiler alone {max(r['profiled'][after - 1] for r in ranks) * 1000:.2f}); "
          f"analysis still running when the loop ended: {ranks[0]['pending_after_loop']}")
    shutil.rmtree(work, ignore_errors=True)
    print(f"PASS in {time.monotonic() - started:.1f} s")


if __name__ == "__main__":
    main()
