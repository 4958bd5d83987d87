"""perfgate in a training script: a `torch.profiler` callback that writes each trace, analyses it,
prints the one-screen summary and gates it.

    import torch, perfgate.torch
    with torch.profiler.profile(
            schedule=torch.profiler.schedule(wait=1, warmup=1, active=5),
            on_trace_ready=perfgate.torch.on_trace_ready("log/run1", baseline="main.json", fail=True)) as prof:
        for batch in loader:
            train_step(batch)
            prof.step()

With memory_snapshot=True the callback also records the CUDA caching allocator's history from the
start (torch.cuda.memory._record_memory_history) and, at each window's end, dumps a memory snapshot
beside the trace (torch.cuda.memory._dump_snapshot: WORKER.MILLISECONDS.memory_snapshot.pickle) and
analyses it too, the device's memory given (--device-memory): its peak, what is live at it, and an
out-of-memory error fails. Snapshots need CUDA and torch 2.1 or later; without them on_trace_ready
raises perfgate.UsageError saying so.

This module imports torch only for memory_snapshot=True: otherwise the callback only calls the
profiler's own export_chrome_trace.
"""

import os
import socket
import time
from typing import Any, Callable, List, Optional, Union

import perfgate
from perfgate.errors import GateFailed, UsageError
from perfgate.report import Report

PathLike = Union[str, os.PathLike]


def snapshot_support_problem(torch: Any) -> Optional[str]:
    """Why `torch` (the module) cannot record a memory snapshot here, or None when it can."""
    memory = getattr(getattr(torch, "cuda", None), "memory", None)
    if not torch.cuda.is_available():
        return (
            f"memory snapshots need CUDA: torch.cuda.memory._record_memory_history() and _dump_snapshot() "
            f"record the CUDA caching allocator, and torch {torch.__version__} here has no CUDA device "
            f"(torch.cuda.is_available() is False). Take the snapshot on a GPU machine, or leave "
            f"memory_snapshot off"
        )
    if not hasattr(memory, "_dump_snapshot") or not hasattr(memory, "_record_memory_history"):
        return (
            f"memory snapshots need torch 2.1 or later (torch.cuda.memory._dump_snapshot); this is "
            f"torch {torch.__version__}"
        )
    return None


def trace_file(dir: PathLike, worker_name: Optional[str], use_gzip: bool) -> str:
    """Where a window's trace goes, named as torch.profiler.tensorboard_trace_handler names it:
    WORKER.MILLISECONDS.pt.trace.json[.gz], the worker HOST_PID unless named."""
    worker = worker_name or f"{socket.gethostname()}_{os.getpid()}"
    name = f"{worker}.{int(time.time() * 1000)}.pt.trace.json"
    return os.path.join(os.fspath(dir), name + (".gz" if use_gzip else ""))


def print_summary(report: Report) -> None:
    """The report's one-screen summary on standard output, as the CLI prints it."""
    print(report.summary, end="" if report.summary.endswith("\n") else "\n", flush=True)


def _torch_for_snapshots() -> Any:
    import torch  # only for memory snapshots

    problem = snapshot_support_problem(torch)
    if problem:
        raise UsageError(f"perfgate.torch: {problem}", 2)
    return torch


class TraceGate:
    """The callable on_trace_ready returns. Each call writes the profiler's trace into `dir` (named
    as torch.profiler.tensorboard_trace_handler names it: WORKER.MILLISECONDS.pt.trace.json[.gz]),
    analyses it, prints the summary and returns the Report; `reports` keeps every window's. With
    memory_snapshot=True, each call also dumps a memory snapshot (`snapshots`) and analyses it
    (`snapshot_reports`)."""

    def __init__(
        self,
        dir: PathLike,
        baseline: Union[None, PathLike, Report] = None,
        history: Optional[PathLike] = None,
        fail: bool = False,
        worker_name: Optional[str] = None,
        use_gzip: bool = False,
        print_summary: bool = True,
        memory_snapshot: bool = False,
        max_memory_entries: int = 100000,
        **options: Any,
    ):
        self.dir = os.fspath(dir)
        self.baseline = baseline
        self.history = history
        self.fail = fail
        self.worker_name = worker_name
        self.use_gzip = use_gzip
        self.print_summary = print_summary
        self.options = options
        self.reports: List[Report] = []
        self.traces: List[str] = []
        self.memory_snapshot = memory_snapshot
        self.snapshots: List[str] = []
        self.snapshot_reports: List[Report] = []
        if memory_snapshot:
            # From now on, so that the first window's snapshot has its allocations' history.
            _torch_for_snapshots().cuda.memory._record_memory_history(max_entries=max_memory_entries)

    def trace_path(self) -> str:
        """Where the next trace goes (tensorboard_trace_handler's naming)."""
        if not self.worker_name:
            self.worker_name = f"{socket.gethostname()}_{os.getpid()}"
        return trace_file(self.dir, self.worker_name, self.use_gzip)

    def __call__(self, prof: Any) -> Report:
        os.makedirs(self.dir, exist_ok=True)
        path = self.trace_path()
        prof.export_chrome_trace(path)
        self.traces.append(path)
        options = dict(self.options)
        if self.history is not None:
            options.setdefault("history", self.history)
            options.setdefault("record", True)
        report = perfgate.analyze(path, baseline=self.baseline, **options)
        self.reports.append(report)
        if self.print_summary:
            print_summary(report)
        if self.memory_snapshot:
            self._snapshot(path)
        if self.fail and report.exit_code == 1:
            raise GateFailed(report)
        return report

    def _snapshot(self, trace: str) -> Report:
        """Dumps the allocator's snapshot beside `trace` and analyses it (no baseline: a trace's
        report is not a snapshot's), with the device's memory as torch reports it."""
        torch = _torch_for_snapshots()
        stem = trace[: -len(".pt.trace.json.gz")] if trace.endswith(".gz") else trace[: -len(".pt.trace.json")]
        path = stem + ".memory_snapshot.pickle"
        torch.cuda.memory._dump_snapshot(path)
        self.snapshots.append(path)
        options = {k: v for k, v in self.options.items() if k not in ("history", "record", "baseline")}
        options.setdefault("device_memory", torch.cuda.get_device_properties(torch.cuda.current_device()).total_memory)
        report = perfgate.analyze(path, **options)
        self.snapshot_reports.append(report)
        if self.print_summary:
            print_summary(report)
        if self.fail and report.exit_code == 1:
            raise GateFailed(report)
        return report

    @property
    def last(self) -> Optional[Report]:
        """The last window's report, or None before the first."""
        return self.reports[-1] if self.reports else None


def on_trace_ready(
    dir: PathLike,
    baseline: Union[None, PathLike, Report] = None,
    history: Optional[PathLike] = None,
    fail: bool = False,
    background: Optional[bool] = None,
    **options: Any,
) -> Callable[[Any], Optional[Report]]:
    """A callback for `torch.profiler.profile(on_trace_ready=...)`.

    dir: the folder the traces are written to (a run folder for perfgate and TensorBoard).
    baseline: a previous run's JSON report, a run history, a profile, or a Report: the gate.
    history: a run history (SQLite file or postgresql:// URI) each window is recorded in
        (--history H --record; branch="main" and commit="..." name the run).
    fail: raise perfgate.GateFailed when the gate fails (exit code 1); False: return the report
        and let the script read `report.verdict`.
    background: analyse in a perfgate process of its own while the loop goes on (a
        perfgate.distributed.BackgroundGate; default: under torch.distributed, or where `ranks` is
        given). There: ranks=[...] (only those ranks analyse, each gated; else every rank's partial
        report merged and gated on merge_rank=0), raise_at="step" (the verdict raised by the next
        prof.step()) or "end" (by gate.close()), job_id, timeout_s=600, niceness=10; one history
        record per job. Create it after torch.distributed.init_process_group.
    options: worker_name, use_gzip (as tensorboard_trace_handler's), print_summary=True,
        memory_snapshot=False (True: record the CUDA allocator's history from now on and, each window,
        dump and analyse a memory snapshot beside the trace; needs CUDA and torch 2.1+, else raises
        perfgate.UsageError saying so), max_memory_entries=100000 (the history's length), and any
        perfgate.analyze option (rules=..., skip_first=1, fail_on="warning", ...).
    """
    from perfgate.distributed import BackgroundGate, distributed_state

    if background is None:
        background = distributed_state() is not None or "ranks" in options
    if not background:
        for name in ("ranks", "merge_rank", "raise_at", "job_id", "timeout_s", "niceness"):
            if name in options:
                raise UsageError(f"perfgate.torch: {name}= is an option of background=True", 2)
        return TraceGate(dir, baseline=baseline, history=history, fail=fail, **options)
    if options.get("memory_snapshot"):
        raise UsageError("perfgate.torch: memory_snapshot=True is not available with background=True", 2)
    if isinstance(baseline, Report):
        raise UsageError("perfgate.torch: background=True takes a baseline file (report.to_json(path)), not a Report", 2)
    return BackgroundGate(dir, baseline=baseline, history=history, fail=fail, **options)
