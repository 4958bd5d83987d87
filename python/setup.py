"""Builds the perfgate wheel: the Python package and, in perfgate/_bin/, the perfgate binary with
the shared libraries it needs that a machine with only Python lacks (docs/python.md, "The wheel").

PERFGATE_BINARY names the binary to carry (default: ../build/perfgate, as ci/build.sh makes it);
the version is the CLI's, read from ../CMakeLists.txt (PERFGATE_VERSION overrides it).
PERFGATE_WHEEL_REPAIR=auditwheel leaves the libraries the binary links to `auditwheel repair`
(ci/wheel.sh runs it where it is installed): only the libraries it opens with dlopen, which
auditwheel cannot see, are carried here. Otherwise (`patchelf`, the default) every library is
bundled here with patchelf.
"""

import os
import re
import shutil
import stat
import subprocess
from pathlib import Path

from setuptools import Distribution, setup
from setuptools.command.build_py import build_py
from wheel.bdist_wheel import bdist_wheel

HERE = Path(__file__).resolve().parent
REPOSITORY = HERE.parent

# What every Linux with a Python has: glibc's libraries and the GCC runtime, the libraries that
# PEP 599/600's manylinux policies allow a wheel to need. perfgate links libstdc++ statically.
SYSTEM_LIBRARIES = re.compile(
    r"^(linux-vdso\.so|ld-linux[-\w.]*\.so|libc\.so|libm\.so|libpthread\.so|libdl\.so|librt\.so|"
    r"libgcc_s\.so|libutil\.so|libresolv\.so)"
)
# Libraries the binary opens with dlopen when it needs them (no ldd line shows them):
# libxlsxwriter writes the workbook (--xlsx), SQLite reads .sqlite exports and run histories and
# ISA-L inflates .gz traces: they are carried; libpq opens postgresql:// run histories and is not
# (with its TLS, Kerberos and LDAP libraries it would triple the wheel): that one feature needs the
# machine's libpq5.
DLOPENED = [re.compile(rb"libxlsxwriter\.so(\.\d+)*"), re.compile(rb"libsqlite3\.so(\.\d+)*"),
            re.compile(rb"libisal\.so(\.\d+)*")]


# The programs the build runs, and the Debian package of each (a missing one is named, not a raw
# "[Errno 2] No such file or directory").
TOOLS = {"patchelf": "patchelf", "strip": "binutils", "ldd": "libc-bin", "/sbin/ldconfig": "libc-bin"}


def check_tools() -> None:
    missing = [tool for tool in TOOLS if shutil.which(tool) is None]
    if missing:
        packages = " ".join(sorted({TOOLS[tool] for tool in missing}))
        raise SystemExit(f"setup.py: the wheel's build needs {', '.join(missing)}, not found on PATH "
                         f"(Debian: apt-get install {packages}); see docs/python.md, \"The wheel\"")


def repair_mode() -> str:
    mode = os.environ.get("PERFGATE_WHEEL_REPAIR", "patchelf")
    if mode not in ("patchelf", "auditwheel"):
        raise SystemExit(f"setup.py: PERFGATE_WHEEL_REPAIR must be patchelf or auditwheel, not {mode!r}")
    return mode


def cli_version() -> str:
    if os.environ.get("PERFGATE_VERSION"):
        return os.environ["PERFGATE_VERSION"]
    text = (REPOSITORY / "CMakeLists.txt").read_text()
    match = re.search(r"project\(perfgate\s+VERSION\s+([0-9.]+)", text)
    if not match:
        raise SystemExit("setup.py: no project(perfgate VERSION ...) in ../CMakeLists.txt; set PERFGATE_VERSION")
    return match.group(1)


def binary_path() -> Path:
    path = Path(os.environ.get("PERFGATE_BINARY", REPOSITORY / "build" / "perfgate"))
    if not path.is_file():
        raise SystemExit(f"setup.py: {path}: no perfgate binary; build it (ci/build.sh perfgate) or set PERFGATE_BINARY")
    return path


def resolved_libraries(path: Path) -> dict:
    """name -> path of every shared library `path` needs, as the dynamic loader finds them (ldd)."""
    out = subprocess.run(["ldd", str(path)], check=True, capture_output=True, text=True).stdout
    found = {}
    for line in out.splitlines():
        match = re.match(r"\s*(\S+) => (\S+|not found)", line)
        if match:
            if match.group(2) == "not found":
                raise SystemExit(f"setup.py: {path} needs {match.group(1)}, which this machine lacks")
            found[match.group(1)] = Path(match.group(2))
    return found


def library_by_soname(soname: str) -> Path:
    out = subprocess.run(["/sbin/ldconfig", "-p"], check=True, capture_output=True, text=True).stdout
    for line in out.splitlines():
        match = re.match(r"\s*(\S+) \(libc6,x86-64[^)]*\) => (\S+)", line)
        if match and match.group(1) == soname:
            return Path(match.group(2))
    raise SystemExit(f"setup.py: the binary opens {soname}, which ldconfig does not know")


def bundle(binary: Path, target: Path, mode: str) -> list:
    """Copies the binary into `target` with every library it needs beyond SYSTEM_LIBRARIES (and
    their own), each found with $ORIGIN first (patchelf). With mode auditwheel, only the libraries
    it opens with dlopen (auditwheel grafts the linked ones and keeps this $ORIGIN, which points
    inside the wheel). Returns the bundled libraries' names."""
    target.mkdir(parents=True, exist_ok=True)
    carried = target / "perfgate"
    shutil.copyfile(binary, carried)
    subprocess.run(["strip", "--strip-unneeded", str(carried)], check=True)
    carried.chmod(carried.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    data = binary.read_bytes()
    pending = [library_by_soname(m.group(0).decode()) for pattern in DLOPENED for m in [pattern.search(data)] if m]
    pending = [(p.name, p) for p in pending]
    if mode == "patchelf":
        pending += list(resolved_libraries(carried).items())
    bundled = []
    while pending:
        name, path = pending.pop()
        if SYSTEM_LIBRARIES.match(name) or name in bundled:
            continue
        copy = target / name
        shutil.copyfile(path.resolve(), copy)
        copy.chmod(0o755)
        subprocess.run(["strip", "--strip-unneeded", str(copy)], check=True)
        bundled.append(name)
        if mode == "patchelf":
            subprocess.run(["patchelf", "--set-rpath", "$ORIGIN", str(copy)], check=True)
            pending.extend(resolved_libraries(copy).items())
    subprocess.run(["patchelf", "--set-rpath", "$ORIGIN", str(carried)], check=True)
    (target / "BUNDLED").write_text("".join(f"{name}\n" for name in sorted(bundled)))
    return bundled


class BuildPy(build_py):
    """Adds the version and the binary to the built package."""

    def run(self):
        check_tools()
        mode = repair_mode()
        super().run()
        package = Path(self.build_lib) / "perfgate"
        (package / "_version.py").write_text(f'__version__ = "{cli_version()}"\n')
        bundle(binary_path(), package / "_bin", mode)


class BinaryDistribution(Distribution):
    """A distribution with a platform's code (the binary): its wheel is a platform wheel."""

    def has_ext_modules(self):
        return True


class BinaryWheel(bdist_wheel):
    """A platform wheel (it carries an x86-64 Linux binary) for any Python 3: py3-none-<platform>."""

    def get_tag(self):
        _, _, platform = super().get_tag()
        return "py3", "none", platform


setup(version=cli_version(), distclass=BinaryDistribution, cmdclass={"build_py": BuildPy, "bdist_wheel": BinaryWheel})
