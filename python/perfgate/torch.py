"""perfgate in a training script: a `torch.profiler` callback that writes each trace, analyses it,
prints the one-screen summary and gates it.

    import torch, perfgate.torch
    with torch.profiler.profile(
            schedule=torch.profiler.schedule(wait=1, warmup=1, active=5),
            on_trace_ready=perfgate.torch.on_trace_ready("log/run1", baseline="main.json", fail=True)) as prof:
        for batch in loader:
            train_step(batch)
            prof.step()

This module never imports torch: the callback only calls the profiler's own export_chrome_trace.
"""

import os
import socket
import time
from typing import Any, Callable, List, Optional, Union

import perfgate
from perfgate.errors import GateFailed
from perfgate.report import Report

PathLike = Union[str, os.PathLike]


class TraceGate:
    """The callable on_trace_ready returns. Each call writes the profiler's trace into `dir` (named
    as torch.profiler.tensorboard_trace_handler names it: WORKER.MILLISECONDS.pt.trace.json[.gz]),
    analyses it, prints the summary and returns the Report; `reports` keeps every window's."""

    def __init__(
        self,
        dir: PathLike,
        baseline: Union[None, PathLike, Report] = None,
        history: Optional[PathLike] = None,
        fail: bool = False,
        worker_name: Optional[str] = None,
        use_gzip: bool = False,
        print_summary: bool = True,
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

    def trace_path(self) -> str:
        """Where the next trace goes (tensorboard_trace_handler's naming)."""
        if not self.worker_name:
            self.worker_name = f"{socket.gethostname()}_{os.getpid()}"
        name = f"{self.worker_name}.{int(time.time() * 1000)}.pt.trace.json"
        return os.path.join(self.dir, name + (".gz" if self.use_gzip else ""))

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
            print(report.summary, end="" if report.summary.endswith("\n") else "\n", flush=True)
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
    **options: Any,
) -> Callable[[Any], Report]:
    """A callback for `torch.profiler.profile(on_trace_ready=...)`.

    dir: the folder the traces are written to (a run folder for perfgate and TensorBoard).
    baseline: a previous run's JSON report, a run history, a profile, or a Report: the gate.
    history: a run history (SQLite file or postgresql:// URI) each window is recorded in
        (--history H --record; branch="main" and commit="..." name the run).
    fail: raise perfgate.GateFailed when the gate fails (exit code 1); False: return the report
        and let the script read `report.verdict`.
    options: worker_name, use_gzip (as tensorboard_trace_handler's), print_summary=True, and any
        perfgate.analyze option (rules=..., skip_first=1, fail_on="warning", ...).
    """
    return TraceGate(dir, baseline=baseline, history=history, fail=fail, **options)
