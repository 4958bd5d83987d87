"""A user's throw-away venv with the built wheel installed (tests/python/*_test.py)."""

import atexit
import glob
import shutil
import os
import subprocess
import sys
import tempfile
from pathlib import Path


def fail(message: str) -> None:
    print(f"FAIL: {message}", file=sys.stderr)
    sys.exit(1)


def check(condition: bool, message: str) -> None:
    if not condition:
        fail(message)
    print(f"ok: {message}")


def the_wheel(wheel_dir: str) -> str:
    wheels = glob.glob(os.path.join(wheel_dir, "perfgate-*.whl"))
    if len(wheels) != 1:
        fail(f"{wheel_dir}: expected one perfgate wheel (ctest -R Python.Wheel builds it), found {wheels}")
    return wheels[0]


def make_venv(wheel: str, system_site_packages: bool) -> Path:
    """A venv in a temporary folder (removed at exit by the caller's TemporaryDirectory) with only
    the wheel installed from the file: --no-index, so that a runtime dependency would fail it."""
    folder = Path(tempfile.mkdtemp(prefix="perfgate-venv-"))
    atexit.register(shutil.rmtree, folder, True)
    venv = folder / "venv"
    command = ["/usr/bin/python3", "-m", "venv", str(venv)]
    if system_site_packages:
        command.insert(3, "--system-site-packages")
    subprocess.run(command, check=True)
    env = dict(os.environ, PIP_NO_INDEX="1", PIP_DISABLE_PIP_VERSION_CHECK="1")
    env.pop("PERFGATE_BINARY", None)
    result = subprocess.run([str(venv / "bin" / "pip"), "install", "--no-index", "--no-cache-dir", wheel],
                            capture_output=True, text=True, env=env)
    if result.returncode != 0:
        fail(f"pip install {wheel}: {result.stdout}{result.stderr}")
    return venv


def run_python(venv: Path, script: str, *args: str, cwd=None) -> subprocess.CompletedProcess:
    """Runs `script` (text) with the venv's python; its output is printed, a failure fails."""
    env = dict(os.environ)
    env.pop("PERFGATE_BINARY", None)
    env.pop("PYTHONPATH", None)
    result = subprocess.run([str(venv / "bin" / "python"), "-c", script, *args], capture_output=True, text=True,
                            env=env, cwd=cwd)
    sys.stdout.write(result.stdout)
    sys.stderr.write(result.stderr)
    if result.returncode != 0:
        fail(f"the script in {venv} ended with {result.returncode}")
    return result
