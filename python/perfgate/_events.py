"""A run's events as a table, streamed: `perfgate events` prints a JSON line per event as each
worker loads, and the table is built from them a chunk of rows at a time, so that neither the
trace's text nor a Python object per event is held whole (names are stored once, as categories)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from typing import TYPE_CHECKING, Any, Callable, Dict, Iterable, List, Optional, Sequence, Union

from perfgate._binary import start
from perfgate.errors import PerfgateError, error_for

if TYPE_CHECKING:
    import pandas

PathLike = Union[str, "os.PathLike[str]"]
ProgressCallback = Callable[[int, int], None]

# The columns `perfgate events` writes, in its order, and how each is stored: names as categories
# (one string each, codes per row), integers that may be absent as pandas' nullable Int64.
COLUMNS = ["rank", "worker", "kind", "name", "step", "in_window", "start_us", "duration_us", "device", "stream",
           "thread", "correlation", "external_id", "op", "bytes", "collective"]
_TEXT = {"worker", "kind", "name", "op", "collective"}
_INTEGER = {"rank", "step", "device", "stream", "thread", "correlation", "external_id", "bytes"}
_FLOAT = {"start_us", "duration_us"}
KINDS = ("op", "annotation", "python", "runtime", "kernel", "copy", "memset", "collective")


def _many(value: Union[None, Any, Sequence[Any]]) -> List[Any]:
    if value is None:
        return []
    if isinstance(value, (list, tuple, set)):
        return list(value)
    return [value]


class _Progress:
    """Bytes read of the traces: to `callback` (done, total), or a tqdm bar when tqdm is installed
    (else one line on stderr, rewritten)."""

    def __init__(self, progress: Union[None, bool, ProgressCallback]):
        self.callback: Optional[ProgressCallback] = progress if callable(progress) else None
        self.enabled = bool(progress)
        self.bar: Any = None

    def update(self, done: int, total: int) -> None:
        if self.callback:
            self.callback(done, total)
            return
        if self.bar is None:
            try:
                from tqdm.auto import tqdm

                self.bar = tqdm(total=total, unit="B", unit_scale=True, desc="perfgate events")
            except ImportError:
                self.bar = False
        if self.bar:
            self.bar.update(done - self.bar.n)
        else:
            sys.stderr.write(f"\rperfgate events: {done / 1e6:.1f} of {total / 1e6:.1f} MB read")

    def close(self) -> None:
        if self.bar:
            self.bar.close()
        elif self.bar is False:
            sys.stderr.write("\n")


class _Builder:
    """The table, a chunk of rows at a time: each chunk's columns made into arrays as it fills, the
    texts as codes into one list of categories per column."""

    def __init__(self, chunk_rows: int):
        self.chunk_rows = chunk_rows
        self.rows: List[List[Any]] = []
        self.codes: Dict[str, Dict[str, int]] = {c: {} for c in _TEXT}
        self.chunks: List[Any] = []
        self.count = 0

    def add(self, row: List[Any]) -> None:
        for i, column in enumerate(COLUMNS):
            if column in _TEXT:
                value = row[i]
                row[i] = -1 if value is None else self.codes[column].setdefault(value, len(self.codes[column]))
        self.rows.append(row)
        self.count += 1
        if len(self.rows) >= self.chunk_rows:
            self._flush()

    def _flush(self) -> None:
        if not self.rows:
            return
        import pandas

        columns = list(zip(*self.rows))
        data: Dict[str, Any] = {}
        for column, values in zip(COLUMNS, columns):
            if column in _TEXT:
                data[column] = pandas.array(values, dtype="int32")
            elif column in _INTEGER:
                data[column] = pandas.array(values, dtype="Int64")
            elif column in _FLOAT:
                data[column] = pandas.array(values, dtype="float64")
            else:
                data[column] = pandas.array(values, dtype="bool")
        self.chunks.append(pandas.DataFrame(data))
        self.rows = []

    def frame(self) -> "pandas.DataFrame":
        import pandas

        self._flush()
        if self.chunks:
            frame = pandas.concat(self.chunks, ignore_index=True)
        else:
            frame = pandas.DataFrame({c: pandas.array([], dtype="int32") for c in COLUMNS})
        self.chunks = []
        for column in _TEXT:
            categories = list(self.codes[column])
            frame[column] = pandas.Categorical.from_codes(frame[column].to_numpy(), categories=categories)
        frame.attrs["units"] = {"start_us": "us", "duration_us": "us", "bytes": "B"}
        return frame[COLUMNS]


def _option_arguments(options: Dict[str, Any]) -> List[str]:
    from perfgate import _option_arguments as arguments

    return arguments(options)


def events(
    paths: Union[PathLike, Iterable[PathLike]],
    kind: Union[None, str, Sequence[str]] = None,
    step: Union[None, int, Sequence[int]] = None,
    rank: Union[None, int, Sequence[int]] = None,
    progress: Union[None, bool, ProgressCallback] = None,
    chunk_rows: int = 8192,
    **options: Any,
) -> Any:
    """Every event of the traces as a table (`perfgate events`): a pandas.DataFrame, a list of
    dicts without pandas. kind: "kernel", "copy", "memset", "op", "annotation", "python",
    "runtime" or "collective" (collectives of any kind), or several; step: step numbers
    (ProfilerStep#N's N); rank: the ranks the traces state. progress: a callback (bytes read,
    total), or True for a tqdm bar where tqdm is installed. options: what a step is and the limits,
    as analyze's (skip_first=, key_op=, rules=, max_memory=, threads=...). Raises PerfgateError
    (UsageError, InputError) with the CLI's message."""
    inputs = [os.fspath(paths)] if isinstance(paths, (str, os.PathLike)) else [os.fspath(p) for p in paths]
    kinds = _many(kind)
    for k in kinds:
        if k not in KINDS:
            raise PerfgateError(f"events: kind {k!r} is not one of {', '.join(KINDS)}", 2)
    arguments = ["events"] + [f"--kind={k}" for k in kinds]
    arguments += [f"--step={int(s)}" for s in _many(step)] + [f"--rank={int(r)}" for r in _many(rank)]
    rules = options.pop("rules", None)
    arguments += [f"--rules={os.fspath(r)}" for r in _many(rules)]
    shown = _Progress(progress)
    if shown.enabled:
        arguments.append("--progress")
    arguments += _option_arguments(options)
    try:
        import pandas  # noqa: F401

        builder: Optional[_Builder] = _Builder(max(1, chunk_rows))
    except ImportError:
        builder = None
    plain: List[Dict[str, Any]] = []
    with tempfile.TemporaryFile(mode="w+") as stderr:
        process = start(arguments + ["--", *inputs], stdout=subprocess.PIPE, stderr=stderr, bufsize=1 << 20)
        assert process.stdout is not None
        columns: List[str] = []
        end: Optional[Dict[str, Any]] = None
        try:
            for line in process.stdout:
                if line.startswith("["):
                    row = json.loads(line)
                    if builder:
                        builder.add(row)
                    else:
                        plain.append(dict(zip(columns, row)))
                    continue
                message = json.loads(line)
                if "progress" in message:
                    shown.update(*message["progress"])
                elif "columns" in message:
                    columns = message["columns"]
                    if columns != COLUMNS:
                        raise PerfgateError(f"events: the binary's columns {columns} are not this package's", 3)
                elif "end" in message:
                    end = message["end"]
        finally:
            process.stdout.close()
            code = process.wait()
            shown.close()
        if code != 0:
            stderr.seek(0)
            raise error_for(stderr.read(), code)
        if end is None:
            raise PerfgateError("perfgate events: the rows were cut short (no end line)", 3)
    return builder.frame() if builder else plain
