"""perfgate in Python: analyse PyTorch training profiles, gate them, and read their tables.

    >>> import perfgate
    >>> report = perfgate.analyze("log/run1", baseline="main.json")
    >>> report.verdict, report.exit_code
    ('pass', 0)
    >>> report.tables["ops"].head()          # a pandas.DataFrame when pandas is installed

The engine is the perfgate binary this package carries (the same CLI as `perfgate` on the command
line); importing perfgate imports neither pandas nor torch. docs/python.md has the API.
"""

import os
import tempfile
from pathlib import Path
from typing import Any, Iterable, List, Optional, Union

from perfgate._binary import binary, run
from perfgate.errors import GateFailed, InputError, PerfgateError, UsageError, error_for
from perfgate.report import Report, Worker

try:
    from perfgate._version import __version__  # written when the wheel is built: the CLI's version
except ImportError:  # the source tree, not an installed wheel
    __version__ = "0+source"

__all__ = [
    "analyze",
    "merge",
    "Report",
    "Worker",
    "PerfgateError",
    "UsageError",
    "InputError",
    "GateFailed",
    "binary",
    "__version__",
]

PathLike = Union[str, os.PathLike]
# The outputs analyze() writes itself and hands back in the Report; given as options, they are
# written from it too.
_OWN_OUTPUTS = ("json", "html", "md")


def _paths(paths: Union[PathLike, Iterable[PathLike]]) -> List[str]:
    if isinstance(paths, (str, os.PathLike)):
        return [os.fspath(paths)]
    return [os.fspath(p) for p in paths]


def _option_arguments(options: dict) -> List[str]:
    """CLI arguments from keyword options: skip_first=2 -> --skip-first 2; a True flag -> --flag;
    False or None -> nothing; a list -> the option once per item; set={"a.b": 1} -> --set a.b=1."""
    arguments: List[str] = []
    for key, value in options.items():
        flag = "--" + key.replace("_", "-")
        if value is None or value is False:
            continue
        if value is True:
            arguments.append(flag)
        elif isinstance(value, dict):
            for k, v in value.items():
                arguments += [flag, f"{k}={v}"]
        elif isinstance(value, (list, tuple)):
            for item in value:
                arguments += [flag, os.fspath(item) if isinstance(item, os.PathLike) else str(item)]
        else:
            arguments += [flag, os.fspath(value) if isinstance(value, os.PathLike) else str(value)]
    return arguments


def _run_report(command: List[str], options: dict) -> Report:
    """Runs a command that writes reports (analyze, merge) and reads them back."""
    own = {name: options.pop(name) for name in _OWN_OUTPUTS if options.get(name) is not None}
    with tempfile.TemporaryDirectory(prefix="perfgate-") as folder:
        out = Path(folder)
        arguments = command + _option_arguments(options)
        arguments += ["--json", str(out / "report.json"), "--html", str(out / "report.html"),
                      "--md", str(out / "report.md")]
        result = run(arguments)
        if result.returncode not in (0, 1):
            raise error_for(result.stderr or result.stdout, result.returncode)
        report = Report(
            (out / "report.json").read_text(encoding="utf-8"),
            (out / "report.html").read_text(encoding="utf-8"),
            (out / "report.md").read_text(encoding="utf-8"),
            result.stdout,
            result.returncode,
        )
    if "json" in own:
        report.to_json(own["json"])
    if "html" in own:
        report.to_html(own["html"])
    if "md" in own:
        Path(own["md"]).write_text(report.to_markdown(), encoding="utf-8")
    return report


def analyze(
    paths: Union[PathLike, Iterable[PathLike]],
    rules: Union[None, PathLike, Iterable[PathLike]] = None,
    baseline: Union[None, PathLike, Report] = None,
    **options: Any,
) -> Report:
    """Analyses profiles as `perfgate analyze` does and returns the report.

    paths: a trace (Kineto JSON, plain or gzip; PyTorch's legacy profiler JSON), an Nsight Systems
        SQLite export, a Neuron profile, or a run folder; or several.
    rules: rule files or shipped rule sets ("default", "tb-plugin"), as --rules.
    baseline: a previous run's JSON report, a run history, another profile, or a Report.
    options: any `perfgate analyze` option, named with underscores: skip_first=2,
        iter_start=5, key_op="^train_step$", fail_on="warning", history="perf.db",
        record=True, branch="main", set={"gpu.low-utilization.fail": 30},
        disable=["steps.outliers"], xlsx="r.xlsx", junit="junit.xml", threads=2.

    Returns the Report whether the gate passed (exit_code 0) or failed (1). Raises UsageError
    (exit code 2: options, rule files) or InputError (3: a profile or baseline that cannot be
    read), with the CLI's message.
    """
    command = ["analyze", *_paths(paths)]
    for rule_file in _paths(rules) if rules is not None else []:
        command += ["--rules", rule_file]
    if isinstance(baseline, Report):
        with tempfile.TemporaryDirectory(prefix="perfgate-baseline-") as folder:
            saved = baseline.to_json(Path(folder) / "baseline.json")
            return _run_report(command + ["--baseline", str(saved)], dict(options))
    if baseline is not None:
        command += ["--baseline", os.fspath(baseline)]
    return _run_report(command, dict(options))


def merge(parts: Union[PathLike, Iterable[PathLike]], **options: Any) -> Report:
    """Merges partial reports (`perfgate analyze --slice I/N --partial FILE`, or a folder of them)
    into the run's report, as `perfgate merge` does. Options as analyze's (rules=..., baseline=...,
    set=..., allow_missing_ranks=True). Raises as analyze does."""
    return _run_report(["merge", *_paths(parts)], dict(options))
