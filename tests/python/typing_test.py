#!/usr/bin/env python3
"""Issue 76, item 9: the Python API is typed for mypy (docs/python.md, "Types").

Usage: typing_test.py SOURCE_DIR

The package passes `mypy --strict`, and a user's script is checked against it: findings are
`perfgate.Finding` (value an Optional[float], id a str), tables a dict of DataFrames, and a misuse
(a finding's value as a str) is an error. Before: findings were List[Dict[str, Any]] and tables
Dict[str, Any], so mypy passed any use of either. Skipped (77) without Debian's python3-mypy.
"""

import importlib.util
import subprocess
import sys
import tempfile
from pathlib import Path

if importlib.util.find_spec("mypy") is None:
    print("SKIP: mypy is not installed (python3-mypy; ci/setup.sh --tests)")
    sys.exit(77)

source = Path(sys.argv[1])
failures = []


def mypy(*arguments: str) -> str:
    # pandas ships no type information in Debian's package: without --ignore-missing-imports mypy
    # refuses the import itself, with it a DataFrame is Any.
    command = [sys.executable, "-m", "mypy", "--strict", "--ignore-missing-imports", "--no-incremental", *arguments]
    result = subprocess.run(command, capture_output=True, text=True, cwd=source / "python")
    return result.stdout + result.stderr


with tempfile.TemporaryDirectory(prefix="perfgate-typing-") as folder:
    user = Path(folder) / "user.py"
    user.write_text(
        "from typing import List, Optional\n"
        "import perfgate\n"
        "report = perfgate.analyze('run.json')\n"
        "finding = report.findings[0]\n"
        "value: Optional[float] = finding.value\n"
        "ids: List[str] = [f.id for f in report.failed_findings() + report.warned_findings()]\n"
        "reveal_type(finding)\n"
        "reveal_type(report.tables)\n"
        "wrong: str = finding.value\n"
    )
    # One run over the package's folder and the user's script: each run analyses the packages the
    # API imports (torch's alone is most of a minute), so two runs cost twice that.
    out = mypy("perfgate", str(user))
    package = [line for line in out.splitlines() if line.startswith("perfgate") and ": error:" in line]
    if package:
        failures.append("mypy --strict on the package:\n" + "\n".join(package))
    lines = [line for line in out.splitlines() if line.startswith(str(user))]
    if not any(':7: note: Revealed type is "perfgate.report.Finding"' in line for line in lines):
        failures.append(f"findings are not perfgate.Finding:\n{out}")
    if not any(':8: note: Revealed type is "builtins.dict[builtins.str,' in line for line in lines):
        failures.append(f"tables are not a dict by name:\n{out}")
    errors = [line for line in lines if ": error:" in line]
    if len(errors) != 1 or ":9: error: Incompatible types in assignment" not in errors[0]:
        failures.append(f"exactly the misuse on line 9 is an error:\n{out}")

for failure in failures:
    print("FAIL:", failure)
print("typing_test:", "FAIL" if failures else "ok")
sys.exit(1 if failures else 0)
