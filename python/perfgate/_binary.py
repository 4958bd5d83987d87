"""Where the perfgate binary is, and running it."""

import os
import subprocess
from pathlib import Path
from typing import Any, List, Sequence

from perfgate.errors import PerfgateError

_PACKAGED = Path(__file__).resolve().parent / "_bin" / "perfgate"


def binary() -> str:
    """The perfgate binary: $PERFGATE_BINARY when set (a build tree's, for development), else the
    one the wheel carries."""
    path = os.environ.get("PERFGATE_BINARY") or str(_PACKAGED)
    if not os.access(path, os.X_OK):
        raise FileNotFoundError(
            f"{path}: no perfgate binary (install the perfgate wheel, or set PERFGATE_BINARY to a build's binary)"
        )
    return path


def start(arguments: Sequence[str], niceness: int = 0, **popen: Any) -> "subprocess.Popen[str]":
    """Starts `perfgate ARGUMENTS...` (stdin closed; `popen`: subprocess.Popen's arguments). With
    `niceness`, at that lower priority: an analysis in the background of a training loop yields the
    cores to it. A binary that is missing or cannot be started is a PerfgateError (exit code 127, as
    a shell says it)."""
    try:
        command: List[str] = [binary(), *arguments]
        process = subprocess.Popen(command, text=True, errors="replace", stdin=subprocess.DEVNULL, **popen)
    except OSError as e:
        raise PerfgateError(f"perfgate: cannot run the perfgate binary: {e}", 127) from e
    if niceness:
        try:  # after the start, not in a preexec_fn, which is unsafe with threads
            os.setpriority(os.PRIO_PROCESS, process.pid, niceness)
        except OSError:
            pass  # it ended already, or the priority cannot be lowered: it runs as it is
    return process


def run(arguments: Sequence[str], niceness: int = 0) -> "subprocess.CompletedProcess[str]":
    """Runs `perfgate ARGUMENTS...` and returns its exit code and output (text). Raises as start()."""
    # No progress bar and no colours: stderr and stdout are pipes here.
    process = start(arguments, niceness, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    stdout, stderr = process.communicate()
    return subprocess.CompletedProcess(process.args, process.returncode, stdout, stderr)
