"""The report of a perfgate run, as the JSON report holds it (docs/reports.md, "The JSON report")."""

import html as _html
import importlib.util
import json
import os
from pathlib import Path
from typing import Any, Dict, List, Optional, Union

Rows = List[Dict[str, Any]]
# A table: a pandas.DataFrame when pandas is installed, else a list of dicts (a row each).
Table = Any


def _pandas():
    """pandas when it is installed, else None (it is never a requirement)."""
    if importlib.util.find_spec("pandas") is None:
        return None
    import pandas

    return pandas


def _table(columns: List[str], rows: Rows, units: Optional[Dict[str, str]] = None, title: str = "") -> Table:
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
        self.findings: List[Dict[str, Any]] = list(data.get("findings", []))
        self.metrics: Dict[str, Optional[float]] = dict(data.get("metrics", {}))
        self.steps: Table = _steps(data.get("steps", []))
        self.workers: List[Worker] = [Worker(w) for w in data.get("workers", [])]
        self.tables: Dict[str, Table] = {}
        if len(self.workers) == 1:
            self.tables.update(self.workers[0].tables)
        self.tables.update(_tables(data.get("tables", {})))

    @property
    def passed(self) -> bool:
        """True when the gate passed (exit code 0)."""
        return self.exit_code == 0

    @property
    def trace(self) -> str:
        """The input files, comma-separated."""
        return ", ".join(i.get("path", "") for i in self.json.get("inputs", []))

    def failed_findings(self) -> List[Dict[str, Any]]:
        """The findings that failed the gate or warned, as the terminal lists them."""
        return [f for f in self.findings if f.get("status") in ("fail", "warn")]

    def to_html(self, path: Union[str, os.PathLike]) -> Path:
        """Writes the self-contained HTML report (the CLI's --html) to `path`; returns the path."""
        path = Path(path)
        path.write_text(self._html, encoding="utf-8")
        return path

    def to_markdown(self) -> str:
        """The Markdown report (the CLI's --md): verdict, key metrics, findings, top ops."""
        return self._markdown

    def to_json(self, path: Union[str, os.PathLike]) -> Path:
        """Writes the JSON report (the CLI's --json; a baseline for later runs) to `path`."""
        path = Path(path)
        path.write_text(self._json_text, encoding="utf-8")
        return path

    def _repr_html_(self) -> str:
        """The HTML report in a notebook: its first screen (the dashboard), in a frame of its own
        so that its styles stay inside it; scroll in it for the rest."""
        return (
            '<iframe title="perfgate report" style="width:100%;height:640px;border:1px solid #ccc" '
            f'sandbox="allow-scripts" srcdoc="{_html.escape(self._html, quote=True)}"></iframe>'
        )

    def __repr__(self) -> str:
        return f"<perfgate.Report {self.verdict} (exit {self.exit_code}): {self.trace}>"
