"""The wheel in a clean venv (no system site packages, so no pandas and no torch), as a user with
only Python has it: the CLI entry point and `python -m perfgate`, the version (the CLI's), the API
with tables as lists of dicts, errors as exceptions with the CLI's message and exit code, and what
the carried binary links (ldd: every library is bundled or one a manylinux policy allows).

Usage: clean_venv_test.py SOURCE_DIR WHEEL_DIR BUILD_PERFGATE
"""

import re
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from venv_support import check, make_venv, run_python, the_wheel  # noqa: E402

source, wheel_dir, build_binary = sys.argv[1:4]
wheel = the_wheel(wheel_dir)
print(f"wheel: {Path(wheel).name}, {Path(wheel).stat().st_size / 1e6:.2f} MB")
venv = make_venv(wheel, system_site_packages=False)
cli_version = subprocess.run([build_binary, "--version"], capture_output=True, text=True).stdout.strip()
example = str(Path(source) / "examples" / "small_training.pt.trace.json.gz")

# The console entry point and python -m: the CLI, its version.
entry = subprocess.run([str(venv / "bin" / "perfgate"), "--version"], capture_output=True, text=True)
check(entry.stdout.strip() == cli_version, f"venv/bin/perfgate --version is the CLI's: {entry.stdout.strip()!r}")
module = subprocess.run([str(venv / "bin" / "python"), "-m", "perfgate", "--version"], capture_output=True, text=True)
check(module.stdout.strip() == cli_version, f"python -m perfgate --version: {module.stdout.strip()!r}")
gate = subprocess.run([str(venv / "bin" / "perfgate"), "analyze", example, "--fail-on", "warning"],
                      capture_output=True, text=True)
check(gate.returncode == 1 and "Verdict" in gate.stdout, "the entry point's exit code is the gate's (1)")

run_python(venv, r'''
import importlib.metadata, json, subprocess, sys, tempfile
from pathlib import Path
import perfgate
cli_version, example, source = sys.argv[1:4]
assert "torch" not in sys.modules and "pandas" not in sys.modules, "importing perfgate imported torch or pandas"
assert perfgate.__version__ == importlib.metadata.version("perfgate") == cli_version.split()[1], perfgate.__version__
requires = importlib.metadata.requires("perfgate") or []
assert all("extra ==" in r for r in requires), f"runtime dependencies: {requires}"
print("ok: version", perfgate.__version__, "equals the CLI's; runtime dependencies: none; extras:", requires)

report = perfgate.analyze(example)
assert report.exit_code == 0 and report.verdict == "warn", (report.exit_code, report.verdict)
ops = report.tables["ops"]
assert isinstance(ops, list) and isinstance(ops[0], dict), type(ops)   # no pandas here
top = max(ops, key=lambda r: r["device_self_us"] or 0)
assert top["name"] == "aten::convolution_backward", top["name"]
assert abs(report.metrics["gpu.utilization_pct"] - 69.9) < 0.05, report.metrics["gpu.utilization_pct"]
assert isinstance(report.steps, list) and len([s for s in report.steps if s["in_window"]]) == 8
assert "Verdict" in report.summary
print("ok: analyze: verdict", report.verdict, "; ops rows", len(ops), "; steps", len(report.steps))

with tempfile.TemporaryDirectory() as d:
    page = report.to_html(Path(d) / "r.html").read_text()
    assert page.startswith("<!DOCTYPE html>") and "aten::convolution_backward" in page
    # The notebook's cell: the first screen and a link to the page, written beside it (cwd), not embedded.
    import os
    os.chdir(d)
    cell = report._repr_html_()
    pages = list(Path(d, "perfgate-reports").glob("report-*.html"))
    assert len(cell) < 20000 and "WARN" in cell and len(pages) == 1 and pages[0].read_text() == page, len(cell)
    assert f'href="perfgate-reports/{pages[0].name}"' in cell and "<!DOCTYPE" not in cell
    # The events without pandas: a list of dicts, the window's kernels as the report counts them.
    kernels = [r for r in report.events(kind="kernel") if r["in_window"]]
    assert isinstance(kernels, list) and len(kernels) == sum(r["calls"] for r in report.tables["kernels"]), len(kernels)
    assert report.to_markdown().lstrip().startswith("#") or "perfgate" in report.to_markdown()
    # The JSON the API read is the CLI's, byte for byte.
    cli_json = Path(d) / "cli.json"
    subprocess.run([sys.prefix + "/bin/perfgate", "analyze", example, "--json", str(cli_json)], check=True,
                   capture_output=True)
    assert report.to_json(Path(d) / "api.json").read_bytes() == cli_json.read_bytes()
    # A gate against the report itself passes; a partial report merged gives the same metrics.
    again = perfgate.analyze(example, baseline=report)
    assert again.json["baseline"]["kind"] and again.exit_code == 0, again.json.get("baseline")
    part = Path(d) / "p.pgp"
    subprocess.run([sys.prefix + "/bin/perfgate", "analyze", example, "--partial", str(part)], check=True,
                   capture_output=True)
    merged = perfgate.merge([part])
    assert merged.metrics == report.metrics, "merge of one partial differs from analyze"
print("ok: to_html, _repr_html_ (the first screen, the page linked), events (a list of dicts), to_markdown, to_json (the CLI's bytes), baseline=Report, merge")

try:
    perfgate.analyze(Path(source) / "no-such-trace.json")
    raise SystemExit("no error for a missing trace")
except perfgate.InputError as e:
    assert e.exit_code == 3 and "no-such-trace.json: no such file or folder" in e.message, (e.exit_code, e.message)
    print("ok: InputError, exit code", e.exit_code, ":", e.message)
try:
    perfgate.analyze(example, set={"no.such-rule.fail": 3})
    raise SystemExit("no error for a bad --set")
except perfgate.UsageError as e:
    assert e.exit_code == 2 and "no.such-rule" in e.message, (e.exit_code, e.message)
    print("ok: UsageError, exit code", e.exit_code, ":", e.message.splitlines()[0])
''', cli_version, example, source)

# What the carried binary links: every library either bundled beside it (found through $ORIGIN) or
# one a manylinux policy lets a wheel need (glibc's and libgcc_s).
allowed = re.compile(r"^(linux-vdso|ld-linux|libc\.so|libm\.so|libpthread\.so|libdl\.so|librt\.so|libgcc_s\.so)")
bin_dir = next(venv.glob("lib/python3*/site-packages/perfgate/_bin"))
bundled = sorted(p.name for p in bin_dir.glob("*.so*"))
print("bundled:", ", ".join(bundled))
check(any(n.startswith("libisal") for n in bundled) and any(n.startswith("libxlsxwriter") for n in bundled),
      "libisal (opened for .gz) and libxlsxwriter (opened for --xlsx) are bundled")
for elf in [bin_dir / "perfgate", *(bin_dir / n for n in bundled)]:
    out = subprocess.run(["ldd", str(elf)], capture_output=True, text=True, env={}).stdout
    for line in out.splitlines():
        name = Path(line.split()[0]).name
        where = line.split("=>")[1].split("(")[0].strip() if "=>" in line else ""
        inside = where.startswith(str(bin_dir))
        if not (inside or allowed.match(name)):
            check(False, f"{elf.name} needs {name} from {where}: neither bundled nor allowed")
        if not inside and where == "not found":
            check(False, f"{elf.name}: {name} not found")
    print(f"ldd {elf.name}:", " ".join(line.split()[0] for line in out.splitlines()))
check(True, "every library the binary and the bundled ones need is bundled or glibc's/libgcc's")
# The workbook: libxlsxwriter opened from the wheel, not from the system (LD_DEBUG shows the file).
with tempfile.TemporaryDirectory() as d:
    run = subprocess.run([str(bin_dir / "perfgate"), "analyze", example, "--xlsx", f"{d}/r.xlsx"],
                         capture_output=True, text=True, env={"LD_DEBUG": "libs", "PATH": "/usr/bin:/bin"})
    opened = [line for line in run.stderr.splitlines() if "calling init:" in line and "xlsxwriter" in line]
    check(run.returncode == 0 and Path(f"{d}/r.xlsx").stat().st_size > 0, "--xlsx writes the workbook")
    check(bool(opened) and all(str(bin_dir) in line for line in opened),
          f"libxlsxwriter comes from the wheel: {opened[0].split('init:')[1].strip() if opened else 'not opened'}")
print("PASS")
