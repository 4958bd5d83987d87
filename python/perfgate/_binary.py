"""Where the perfgate binary is, and running it."""

import os
import subprocess
from pathlib import Path
from typing import List, Sequence

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


def run(arguments: Sequence[str]) -> "subprocess.CompletedProcess[str]":
    """Runs `perfgate ARGUMENTS...` and returns its exit code and output (text). A binary that is
    missing or cannot be started is a PerfgateError (exit code 127, as a shell says it)."""
    try:
        command: List[str] = [binary(), *arguments]
        # No progress bar and no colours: stderr and stdout are pipes here.
        return subprocess.run(command, capture_output=True, text=True, errors="replace", stdin=subprocess.DEVNULL)
    except OSError as e:
        raise PerfgateError(f"perfgate: cannot run the perfgate binary: {e}", 127) from e
