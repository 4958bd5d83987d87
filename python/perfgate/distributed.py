"""perfgate.torch's callback for real training jobs: the analysis in a perfgate process of its own
(a background thread waits for it), so that the training loop does not wait for it, and under
torch.distributed one verdict and one history record per job.

Two ways to gate a job of N ranks:
- merge (the default): every rank writes its trace and analyses it into a partial report
  (`perfgate analyze --partial`) in the background; one rank (`merge_rank`, 0) waits for the N
  parts on the shared folder and merges and gates them (`perfgate merge`), records the run in the
  history and holds the verdict;
- named ranks (`ranks=[0, 3]`): only those ranks write and analyse their traces, each gated on
  its own; the first of them alone records into the history.

The verdict is raised (perfgate.GateFailed, with fail=True) on the rank that holds it: at the
training loop's next `prof.step()` after it arrived (raise_at="step"), or by `close()`
(raise_at="end"). torchrun ends the job's other ranks when one fails.
"""

import atexit
import json
import os
import threading
import time
import uuid
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

import perfgate
from perfgate._binary import run
from perfgate.errors import GateFailed, PerfgateError, error_for
from perfgate.report import Report
from perfgate.torch import print_summary, trace_file

PathLike = Union[str, "os.PathLike[str]"]

# The sections of options that both the parts' analysis and their merge take: the rules (a merge
# refuses parts made with other rules) and the limits.
_BOTH = {"rules", "limits"}


def _options_by_command() -> Dict[str, Tuple[bool, bool]]:
    """Each option (by its keyword) -> (the parts' analysis takes it, the merge takes it), from the
    binary's own list (`perfgate metrics --options`): the window and the analysis go to the parts,
    the gate, baselines and history to the merge."""
    result = run(["metrics", "--options", "--format", "json"])
    if result.returncode != 0:
        raise error_for(result.stderr or result.stdout, result.returncode)
    table = {}
    for option in json.loads(result.stdout):
        key = option["flag"].lstrip("-").replace("-", "_")
        shown, both = option["shown_by"], option["section"] in _BOTH
        table[key] = (both or "merge" not in shown, both or "merge" in shown)
    return table


def split_options(options: Dict[str, Any]) -> Tuple[Dict[str, Any], Dict[str, Any]]:
    """The options of the parts' analysis and of their merge. One the list does not hold (a report
    output: html=, junit=; niceness) is the merge's."""
    table = _options_by_command()
    part = {k: v for k, v in options.items() if table.get(k, (False, True))[0]}
    merge = {k: v for k, v in options.items() if table.get(k, (False, True))[1]}
    return part, merge


def distributed_state() -> Optional[Tuple[int, int]]:
    """(rank, world size) when torch.distributed is initialised in this process, else None. Reads
    torch only where the script imported it."""
    import sys

    torch = sys.modules.get("torch")
    dist = getattr(torch, "distributed", None) if torch else None
    if dist is None or not dist.is_available() or not dist.is_initialized():
        return None
    return int(dist.get_rank()), int(dist.get_world_size())


def agreed_job_id() -> str:
    """One id for the job, the same on every rank: rank 0's, broadcast once (gloo or NCCL)."""
    import sys

    dist: Any = sys.modules["torch"].distributed  # initialised: distributed_state() said so
    ids: List[Any] = [uuid.uuid4().hex[:12]]
    dist.broadcast_object_list(ids, src=0)
    return str(ids[0])


class BackgroundGate:
    """What on_trace_ready(background=True) returns: called by the profiler at the end of each
    window, it writes the trace (tensorboard_trace_handler's naming) and starts its analysis in
    the background, then returns at once. See the module's text for the two ways under
    torch.distributed; in one process it is the named-ranks way with rank 0 named."""

    def __init__(
        self,
        dir: PathLike,
        baseline: Optional[PathLike] = None,
        history: Optional[PathLike] = None,
        fail: bool = False,
        ranks: Optional[Sequence[int]] = None,
        merge_rank: int = 0,
        raise_at: str = "step",
        job_id: Optional[str] = None,
        worker_name: Optional[str] = None,
        use_gzip: bool = False,
        print_summary: bool = True,
        timeout_s: float = 600.0,
        niceness: int = 10,
        **options: Any,
    ):
        if raise_at not in ("step", "end"):
            raise perfgate.UsageError(f"perfgate.torch: raise_at must be 'step' or 'end', not {raise_at!r}", 2)
        self.dir = Path(os.fspath(dir))
        self.baseline = baseline
        self.history = history
        self.fail = fail
        self.raise_at = raise_at
        self.print_summary = print_summary
        self.use_gzip = use_gzip
        self.timeout_s = timeout_s
        self.niceness = niceness
        self.options = options
        state = distributed_state()
        self.rank, self.world = state if state else (0, 1)
        self.distributed = state is not None
        self.named = sorted(set(ranks)) if ranks is not None else (None if self.distributed else [0])
        self.merge_rank = merge_rank
        self.job_id = job_id or (agreed_job_id() if self.distributed and self.named is None else uuid.uuid4().hex[:12])
        self.worker_name = worker_name or (f"rank_{self.rank}" if self.distributed else None)
        self.reports: List[Report] = []
        self.traces: List[str] = []
        self.errors: List[PerfgateError] = []
        self._windows = 0
        self._threads: List[threading.Thread] = []
        self._lock = threading.Lock()
        self._unraised: List[Report] = []
        self._stepping: Any = None
        # A script that ends without close(): its analyses (the merge, the history's record) finish
        # before the interpreter exits, instead of dying with their daemon threads.
        atexit.register(self._join)

    # ---- the roles ----
    @property
    def analyses(self) -> bool:
        """This rank analyses its traces."""
        return self.named is None or self.rank in self.named

    @property
    def gates(self) -> bool:
        """This rank holds a verdict: the merging rank, or a named one."""
        return self.rank == self.merge_rank if self.named is None else self.rank in self.named

    @property
    def records(self) -> bool:
        """This rank records into the history: once per job."""
        return self.rank == self.merge_rank if self.named is None else self.rank == self.named[0]

    def window_dir(self, window: int) -> Path:
        """Where a window's partial reports and merged report go: shared by the job's ranks."""
        return self.dir / "perfgate" / f"{self.job_id}-window-{window}"

    # ---- the profiler's callback ----
    def __call__(self, prof: Any) -> None:
        self.check()
        window = self._windows
        self._windows += 1
        self._hook_steps(prof)
        if not self.analyses:
            return None
        self.dir.mkdir(parents=True, exist_ok=True)
        trace = trace_file(self.dir, self.worker_name, self.use_gzip)
        prof.export_chrome_trace(trace)
        self.traces.append(trace)
        work = self._merge_window if self.named is None else self._analyse_window
        thread = threading.Thread(target=self._guarded, args=(work, trace, window), daemon=True,
                                  name=f"perfgate-window-{window}")
        self._threads.append(thread)
        thread.start()
        return None

    def _hook_steps(self, prof: Any) -> None:
        """raise_at="step": the verdict is raised by the loop's next prof.step() after it came."""
        if self.raise_at != "step" or self._stepping is prof:
            return
        self._stepping = prof
        original = prof.step

        def step(*args: Any, **kwargs: Any) -> Any:
            self.check()
            return original(*args, **kwargs)

        prof.step = step

    # ---- the background work (on its thread; the perfgate binary does the work) ----
    def _guarded(self, work: Any, trace: str, window: int) -> None:
        try:
            work(trace, window)
        except PerfgateError as e:
            with self._lock:
                self.errors.append(e)

    def _options(self, records: bool) -> Dict[str, Any]:
        options = dict(self.options)
        options.setdefault("threads", 1)  # one core of the machine the job trains on
        options["niceness"] = self.niceness
        if self.history is not None and records:
            options.setdefault("history", self.history)
            options.setdefault("record", True)
        return options

    def _analyse_window(self, trace: str, window: int) -> None:
        options = self._options(self.records)
        report = perfgate.analyze(trace, baseline=self.baseline, **options)
        self._arrived(report)

    def _merge_window(self, trace: str, window: int) -> None:
        folder = self.window_dir(window)
        parts = folder / "parts"
        parts.mkdir(parents=True, exist_ok=True)
        part_options, merge_options = split_options(self._options(self.records))
        arguments = ["analyze", f"--partial={parts / f'rank_{self.rank}.pgp'}"]
        result = run(arguments + perfgate._option_arguments(part_options) + ["--", trace], self.niceness)
        if result.returncode != 0:
            raise error_for(result.stderr or result.stdout, result.returncode)
        if not self.gates:
            return
        deadline = time.monotonic() + self.timeout_s
        expected = [parts / f"rank_{r}.pgp" for r in range(self.world)]
        # The parts are written whole or not at all (the CLI renames each into place).
        while not all(p.exists() for p in expected) and time.monotonic() < deadline:
            time.sleep(0.1)
        present = [str(p) for p in expected if p.exists()]
        if len(present) < len(expected):
            merge_options["allow_missing_ranks"] = True  # the outputs say which ranks are present
        for output in ("json", "html", "md"):
            merge_options.setdefault(output, str(folder / f"report.{output}"))
        if self.baseline is not None:
            merge_options.setdefault("baseline", os.fspath(self.baseline))
        self._arrived(perfgate.merge(present, **merge_options))

    def _arrived(self, report: Report) -> None:
        if self.print_summary:
            print_summary(report)
        with self._lock:
            self.reports.append(report)
            if self.fail and report.exit_code == 1:
                self._unraised.append(report)

    # ---- the verdict, in the training loop ----
    def check(self) -> None:
        """Raises what the background analyses found since: a PerfgateError that stopped one, or
        GateFailed (fail=True) for a failed gate. Cheap: the loop may call it every step."""
        with self._lock:
            error = self.errors.pop(0) if self.errors else None
            failed = self._unraised.pop(0) if self._unraised and self.raise_at == "step" else None
        if error:
            raise error
        if failed:
            raise GateFailed(failed)

    def _join(self) -> None:
        for thread in self._threads:
            thread.join(self.timeout_s)
        self._threads = []

    def close(self) -> None:
        """Waits for the analyses still running (at most timeout_s each), then raises as check()
        does, the verdicts held for the end included."""
        self._join()
        with self._lock:
            if self.raise_at == "end":
                self.raise_at = "step"  # from now on, as check() raises
        self.check()

    def __enter__(self) -> "BackgroundGate":
        return self

    def __exit__(self, *exc: Any) -> None:
        if exc[0] is None:
            self.close()
        else:
            self._join()

    @property
    def last(self) -> Optional[Report]:
        """The last report that arrived, or None (close() waits for them all)."""
        with self._lock:
            return self.reports[-1] if self.reports else None

    @property
    def verdict(self) -> Optional[str]:
        """The last verdict this rank holds ("pass", "warn", "fail"), or None."""
        last = self.last
        return last.verdict if last else None
