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
from typing import Any, Dict, Iterable, List, Optional, Union

from perfgate._binary import binary, run
from perfgate.errors import GateFailed, InputError, PerfgateError, UsageError, error_for
from perfgate._events import COLUMNS as EVENT_COLUMNS
from perfgate._events import events
from perfgate.report import Finding, Report, Worker

try:
    from perfgate._version import __version__  # written when the wheel is built: the CLI's version
except ImportError:  # the source tree, not an installed wheel
    __version__ = "0+source"

__all__ = [
    "analyze",
    "merge",
    "events",
    "EVENT_COLUMNS",
    "effective_rules",
    "Report",
    "Finding",
    "Worker",
    "PerfgateError",
    "UsageError",
    "InputError",
    "GateFailed",
    "binary",
    "__version__",
]

PathLike = Union[str, "os.PathLike[str]"]
# The reports analyze() reads back into the Report. The CLI writes them, with every other output, as
# one set (atomically, checked against the inputs); those the caller did not ask for go to a
# temporary folder.
_OWN_OUTPUTS = {"json": "report.json", "html": "report.html", "md": "report.md"}
# The options `perfgate events` takes (what a step is, the limits): Report.events passes the report's own.
_EVENT_OPTIONS = {"rules", "set", "disable", "iter_start", "iter_stop", "skip_first", "time_start", "time_stop",
                  "key_op", "step_pattern", "threads", "max_input_memory", "max_memory", "spill_dir"}
# Options that do not make a report: refused with the function that does what they ask.
_NOT_REPORT_OPTIONS = {"print_effective_rules": "perfgate.effective_rules(rules=...)"}


def _paths(paths: Union[PathLike, Iterable[PathLike]]) -> List[str]:
    if isinstance(paths, (str, os.PathLike)):
        return [os.fspath(paths)]
    return [os.fspath(p) for p in paths]


def _option_arguments(options: Dict[str, Any]) -> List[str]:
    """CLI arguments from keyword options: skip_first=2 -> --skip-first=2; a True flag -> --flag;
    False or None -> nothing; a list -> the option once per item; set={"a.b": 1} -> --set=a.b=1.
    Each value is joined to its option with '=', so that a value starting with '-' (a file named
    -rf.json) is never read as an option."""
    arguments: List[str] = []
    for key, value in options.items():
        flag = "--" + key.replace("_", "-")
        if value is None or value is False:
            continue
        if value is True:
            arguments.append(flag)
        elif isinstance(value, dict):
            arguments += [f"{flag}={k}={v}" for k, v in value.items()]
        elif isinstance(value, (list, tuple)):
            arguments += [f"{flag}={os.fspath(item) if isinstance(item, os.PathLike) else item}" for item in value]
        else:
            arguments.append(f"{flag}={os.fspath(value) if isinstance(value, os.PathLike) else value}")
    return arguments


def _read_back(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except OSError as e:
        raise PerfgateError(f"perfgate: cannot read the report back from {path}: {e.strerror or e}", 3) from e


def _run_report(command: List[str], inputs: List[str], options: Dict[str, Any]) -> Report:
    """Runs a command that writes reports (analyze, merge) and reads them back. `inputs` go after
    `--`, so that no path is taken for an option; `niceness` (not an option of the CLI's) lowers
    the analysis's CPU priority."""
    niceness = int(options.pop("niceness", 0) or 0)
    for name, instead in _NOT_REPORT_OPTIONS.items():
        if options.get(name):
            raise UsageError(f"{name}=True makes no report: use {instead}", 2)
    with tempfile.TemporaryDirectory(prefix="perfgate-") as folder:
        paths = {}
        given_outputs = {name for name in _OWN_OUTPUTS if options.get(name) is not None}
        for name, default in _OWN_OUTPUTS.items():
            given = options.pop(name, None)
            paths[name] = Path(os.fspath(given)) if given is not None else Path(folder) / default
        arguments = command + _option_arguments(options)
        arguments += [f"--{name}={path}" for name, path in paths.items()]
        result = run(arguments + ["--", *inputs], niceness)
        if result.returncode not in (0, 1):
            raise error_for(result.stderr or result.stdout, result.returncode)
        report = Report(
            _read_back(paths["json"]),
            _read_back(paths["html"]),
            _read_back(paths["md"]),
            result.stdout,
            result.returncode,
        )
        report._html_path = paths["html"] if "html" in given_outputs else None
        report._event_options = {k: v for k, v in options.items() if k in _EVENT_OPTIONS}
        return report


def effective_rules(rules: Union[None, PathLike, Iterable[PathLike]] = None, **options: Any) -> str:
    """The rules in effect, as YAML (`perfgate analyze --print-effective-rules`): the shipped set
    with `rules` (files or shipped names) and set=/disable= applied."""
    command = ["analyze", "--print-effective-rules"]
    for rule_file in _paths(rules) if rules is not None else []:
        command.append(f"--rules={rule_file}")
    result = run(command + _option_arguments(options))
    if result.returncode != 0:
        raise error_for(result.stderr or result.stdout, result.returncode)
    return result.stdout


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
    baseline: a previous run's JSON report, a run history, another profile, or a Report (the
        reports then name it "a perfgate.Report of <its inputs>"; baseline_name= names it otherwise).
    options: any `perfgate analyze` option, named with underscores: skip_first=2,
        iter_start=5, key_op="^train_step$", fail_on="warning", history="perf.db",
        record=True, branch="main", set={"gpu.low-utilization.fail": 30},
        disable=["steps.outliers"], xlsx="r.xlsx", junit="junit.xml", threads=2.

    Returns the Report whether the gate passed (exit_code 0) or failed (1). The CLI writes every
    output (json=, html=, md= included) as one set, atomically, with its checks (never over an
    input, never two outputs in one file). Every failure is a PerfgateError with the CLI's message
    and exit code: UsageError (2: options, rule files, output paths), InputError (3: a profile or
    baseline that cannot be read, a report that cannot be written or read back).
    """
    command = ["analyze"]
    for rule_file in _paths(rules) if rules is not None else []:
        command.append(f"--rules={rule_file}")
    if isinstance(baseline, Report):
        # The Report goes to the CLI through a file that is gone once this returns: the reports name
        # the baseline by what it analysed instead (baseline_name= overrides).
        name = options.pop("baseline_name", None) or f"a perfgate.Report of {baseline.trace or 'no input'}"
        with tempfile.TemporaryDirectory(prefix="perfgate-baseline-") as folder:
            saved = baseline.to_json(Path(folder) / "baseline.json")
            command += [f"--baseline={saved}", f"--baseline-name={name}"]
            report = _run_report(command, _paths(paths), dict(options))
    else:
        if baseline is not None:
            command.append(f"--baseline={os.fspath(baseline)}")
        report = _run_report(command, _paths(paths), dict(options))
    if rules is not None:
        report._event_options["rules"] = _paths(rules)
    return report


def merge(parts: Union[PathLike, Iterable[PathLike]], **options: Any) -> Report:
    """Merges partial reports (`perfgate analyze --slice I/N --partial FILE`, or a folder of them)
    into the run's report, as `perfgate merge` does. Options as analyze's (rules=..., baseline=...,
    set=..., allow_missing_ranks=True). Raises as analyze does."""
    return _run_report(["merge"], _paths(parts), dict(options))
