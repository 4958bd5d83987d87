"""The errors of a perfgate run, each with the CLI's message and exit code (docs/python.md)."""

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from perfgate.report import Report


class PerfgateError(Exception):
    """perfgate could not make a report. `message` is what the CLI printed on stderr (naming the
    file and the cause), `exit_code` the CLI's documented code: 2 usage or configuration (flags,
    rule files), 3 input (a profile or baseline that cannot be read, an output that cannot be
    written)."""

    def __init__(self, message: str, exit_code: int):
        super().__init__(message)
        self.message = message
        self.exit_code = exit_code


class UsageError(PerfgateError):
    """Exit code 2: a bad option or rule file."""


class InputError(PerfgateError):
    """Exit code 3: a profile, baseline or output that cannot be read or written."""


class GateFailed(Exception):
    """Raised by perfgate.torch.on_trace_ready(fail=True) when the gate fails (exit code 1); the
    report is in `report`."""

    def __init__(self, report: "Report") -> None:
        super().__init__(f"perfgate: the gate failed: {report.verdict} ({report.trace})")
        self.report = report


def error_for(message: str, exit_code: int) -> PerfgateError:
    """The exception for a run that ended with `exit_code` (2, 3, or anything unexpected)."""
    kind = UsageError if exit_code == 2 else InputError if exit_code == 3 else PerfgateError
    return kind(message.strip(), exit_code)
