"""The report of a perfgate run, as the JSON report holds it (docs/reports.md, "The JSON report")."""

from __future__ import annotations

import hashlib
import html as _html
import importlib.util
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Dict, Iterator, List, Mapping, Optional, Sequence, Union

from perfgate.errors import PerfgateError

Rows = List[Dict[str, Any]]
# Where a notebook's Report writes its full page to link it (relative to the notebook's folder).
NOTEBOOK_REPORT_DIR = "perfgate-reports"
# What the first screen shows: the step metrics and at most this many findings.
_FIRST_SCREEN_METRICS = ("steps.count", "steps.mean_us", "gpu.utilization_pct")
_FIRST_SCREEN_FINDINGS = 5
# A table: a pandas.DataFrame when pandas is installed (what type checkers are told: a project that
# reads tables has it), else a list of dicts, a row each. Importing perfgate never imports pandas.
if TYPE_CHECKING:
    import pandas
    from typing_extensions import TypeAlias

    Table: TypeAlias = "pandas.DataFrame"


@dataclass(frozen=True)
class Finding(Mapping[str, Any]):
    """One finding of the report (docs/reports.md, "The JSON report"): the rule's `id` and
    `title`, its `status` ("pass", "warn", "fail", "inconclusive", "n/a", "skipped"), its
    `severity`, the `metric` it reads with its `value`, `unit` and `threshold`, what it found
    (`problem`), what to do (`recommendation`), the bounded `gain_pct` where it states one, and
    the whole JSON object in `data`. It is also read as that object: finding["id"],
    finding.get("offenders")."""

    id: str
    title: str
    status: str
    severity: str
    metric: str
    unit: str
    value: Optional[float]
    threshold: Optional[float]
    problem: str
    recommendation: str
    gain_pct: Optional[float]
    data: Dict[str, Any] = field(repr=False, compare=False)

    @staticmethod
    def of(data: Dict[str, Any]) -> "Finding":
        return Finding(
            id=str(data.get("id", "")),
            title=str(data.get("title", "")),
            status=str(data.get("status", "")),
            severity=str(data.get("severity", "")),
            metric=str(data.get("metric") or ""),
            unit=str(data.get("unit") or ""),
            value=data.get("value"),
            threshold=data.get("threshold"),
            problem=str(data.get("problem") or ""),
            recommendation=str(data.get("recommendation") or ""),
            gain_pct=data.get("gain_pct"),
            data=data,
        )

    def __getitem__(self, key: str) -> Any:
        return self.data[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self.data)

    def __len__(self) -> int:
        return len(self.data)


def _pandas() -> Any:
    """pandas when it is installed, else None (it is never a requirement)."""
    if importlib.util.find_spec("pandas") is None:
        return None
    import pandas

    return pandas


def _table(columns: List[str], rows: Rows, units: Optional[Dict[str, str]] = None, title: str = "") -> Any:
    pandas = _pandas()
    if pandas is None:
        return rows
    frame = pandas.DataFrame(rows, columns=columns)
    frame.attrs["units"] = dict(units or {})
    frame.attrs["title"] = title
    return frame


def _tables(json_tables: Dict[str, Any]) -> Dict[str, Table]:
    out = {}
    for name, table in json_tables.items():
        columns = [c["name"] for c in table["columns"]]
        rows = [dict(zip(columns, row)) for row in table["rows"]]
        out[name] = _table(columns, rows, {c["name"]: c["unit"] for c in table["columns"]}, table.get("title", ""))
    return out


def _steps(steps: List[Dict[str, Any]]) -> Table:
    """One row per step: name, number, start_us, duration_us, in_window, and the step breakdown's
    parts as breakdown.<part>_us columns where the report has them."""
    rows = []
    for step in steps:
        row = {k: v for k, v in step.items() if k != "breakdown_us"}
        for part, value in (step.get("breakdown_us") or {}).items():
            row[f"breakdown.{part}_us"] = value
        rows.append(row)
    columns: List[str] = []
    for row in rows:
        columns.extend(k for k in row if k not in columns)
    return _table(columns, rows)


class Worker:
    """One worker (a trace file, or a process of an export) of a run: its name, metrics, steps and
    tables, as in the JSON report's `workers[]`."""

    def __init__(self, data: Dict[str, Any]):
        self.data = data
        self.name: str = data["name"]
        self.metrics: Dict[str, Optional[float]] = dict(data.get("metrics", {}))
        self.steps: Table = _steps(data.get("steps", []))
        self.tables: Dict[str, Table] = _tables(data.get("tables", {}))

    def __repr__(self) -> str:
        return f"<perfgate.Worker {self.name!r}: {len(self.tables)} tables>"


class Report:
    """A perfgate report: the verdict, findings, metrics, steps and tables of a run.

    `verdict` is "pass", "warn" or "fail"; `exit_code` the CLI's (0 pass, 1 the gate failed).
    `metrics` maps each metric's dotted name (docs/metrics.md) to its value, None where it does not
    apply (a CPU-only run's GPU metrics). `tables` maps each table's name ("ops", "iterations",
    ...) to a pandas.DataFrame when pandas is installed, else to a list of dicts: a run of one
    worker has that worker's tables and the run's; a run of several has the run's tables
    (`run_ops`, ...) and each worker's in `workers`. `json` is the whole JSON report.
    """

    def __init__(self, json_text: str, html: str, markdown: str, summary: str, exit_code: int):
        data: Dict[str, Any] = json.loads(json_text)
        self.json: Dict[str, Any] = data
        self.exit_code: int = exit_code
        self.summary: str = summary
        self._json_text = json_text
        self._html = html
        self._markdown = markdown
        verdict = data.get("verdict") or {}
        self.verdict: str = verdict.get("status", "pass")
        self.findings: List[Finding] = [Finding.of(f) for f in data.get("findings", [])]
        self.metrics: Dict[str, Optional[float]] = dict(data.get("metrics", {}))
        self.steps: Table = _steps(data.get("steps", []))
        self.workers: List[Worker] = [Worker(w) for w in data.get("workers", [])]
        self.tables: Dict[str, Table] = {}
        if len(self.workers) == 1:
            self.tables.update(self.workers[0].tables)
        self.tables.update(_tables(data.get("tables", {})))
        # Set by analyze() and merge(): the HTML page's path where the caller asked for one, and the
        # options that say what a step is, for events().
        self._html_path: Optional[Path] = None
        self._event_options: Dict[str, Any] = {}

    @property
    def passed(self) -> bool:
        """True when the gate passed (exit code 0)."""
        return self.exit_code == 0

    @property
    def trace(self) -> str:
        """The input files, comma-separated."""
        return ", ".join(i.get("path", "") for i in self.json.get("inputs", []))

    def failed_findings(self) -> List[Finding]:
        """The findings that failed (status "fail"). Warnings are warned_findings()."""
        return [f for f in self.findings if f.status == "fail"]

    def warned_findings(self) -> List[Finding]:
        """The findings that warned (status "warn")."""
        return [f for f in self.findings if f.status == "warn"]

    def to_html(self, path: Union[str, os.PathLike[str]]) -> Path:
        """Writes the self-contained HTML report (the CLI's --html) to `path`; returns the path."""
        path = Path(path)
        path.write_text(self._html, encoding="utf-8")
        return path

    def to_markdown(self) -> str:
        """The Markdown report (the CLI's --md): verdict, key metrics, findings, top ops."""
        return self._markdown

    def to_json(self, path: Union[str, os.PathLike[str]]) -> Path:
        """Writes the JSON report (the CLI's --json; a baseline for later runs) to `path`."""
        path = Path(path)
        path.write_text(self._json_text, encoding="utf-8")
        return path

    def events(
        self,
        kind: Union[None, str, Sequence[str]] = None,
        step: Union[None, int, Sequence[int]] = None,
        rank: Union[None, int, Sequence[int]] = None,
        progress: Union[None, bool, Callable[[int, int], None]] = None,
        **options: Any,
    ) -> Table:
        """The events of this report's traces (perfgate.events: kernels, copies, memsets,
        ops, annotations, runtime calls; kind="collective" the collectives of any kind), read again
        from the traces and streamed, with the steps as this report found them."""
        from perfgate._events import events

        paths = [i["path"] for i in self.json.get("inputs", []) if i.get("path")]
        if not paths:
            raise PerfgateError("events: the report names no trace to read the events from", 2)
        merged = dict(self._event_options)
        merged.update(options)
        return events(paths, kind=kind, step=step, rank=rank, progress=progress, **merged)

    def first_screen_html(self, link: Optional[str] = None) -> str:
        """The verdict, the key step metrics and the findings that failed or warned (the first five,
        failures first), as a small HTML fragment; `link` (the full page's address) linked under it."""
        esc = _html.escape
        colour = {"fail": "#c62828", "warn": "#ef6c00", "pass": "#2e7d32"}.get(self.verdict, "#555")
        out = [
            '<div class="perfgate-report" style="font-family:sans-serif;line-height:1.4">',
            f'<div><b style="color:{colour}">{esc(self.verdict.upper())}</b> (exit code {self.exit_code}) '
            f"&middot; {esc(self.trace)}</div>",
        ]
        shown = [(name, self.metrics.get(name)) for name in _FIRST_SCREEN_METRICS]
        cells = [f"{esc(name)} = {value:,.6g}" for name, value in shown if isinstance(value, (int, float))]
        if cells:
            out.append(f'<div style="color:#444">{" &middot; ".join(cells)}</div>')
        flagged = self.failed_findings() + self.warned_findings()
        if flagged:
            out.append('<table style="border-collapse:collapse;margin-top:4px"><tr><th align="left">status</th>'
                       '<th align="left">finding</th><th align="left">problem</th></tr>')
            for f in flagged[:_FIRST_SCREEN_FINDINGS]:
                out.append(f'<tr><td>{esc(f.status)}</td><td><code>{esc(f.id)}</code> {esc(f.title)}</td>'
                           f"<td>{esc(f.problem)}</td></tr>")
            out.append("</table>")
            if len(flagged) > _FIRST_SCREEN_FINDINGS:
                out.append(f"<div>and {len(flagged) - _FIRST_SCREEN_FINDINGS} more</div>")
        else:
            out.append("<div>No finding failed or warned.</div>")
        if link:
            out.append(f'<div><a href="{esc(link, quote=True)}" target="_blank">the full report</a> '
                       f"({len(self._html) / 1e6:.1f} MB page)</div>")
        out.append("</div>")
        return "\n".join(out)

    def _repr_html_(self) -> str:
        """In a notebook: the first screen (first_screen_html) and a link to the full page, written
        once beside the notebook (perfgate-reports/, a file named by the report's digest) unless
        analyze(html=...) wrote it in the notebook's folder: the cell holds kilobytes, not the
        page's megabytes."""
        link = None
        try:
            if self._html_path is not None and not os.path.isabs(os.path.relpath(self._html_path)) \
                    and not os.path.relpath(self._html_path).startswith(".."):
                link = os.path.relpath(self._html_path)
            else:
                digest = hashlib.sha256(self._json_text.encode("utf-8")).hexdigest()[:16]
                path = Path(NOTEBOOK_REPORT_DIR) / f"report-{digest}.html"
                if not path.exists():
                    path.parent.mkdir(parents=True, exist_ok=True)
                    self.to_html(path)
                link = path.as_posix()
        except OSError:
            link = None  # a read-only folder: the first screen alone
        return self.first_screen_html(link)

    def __repr__(self) -> str:
        return f"<perfgate.Report {self.verdict} (exit {self.exit_code}): {self.trace}>"
