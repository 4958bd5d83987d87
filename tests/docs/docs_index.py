#!/usr/bin/env python3
"""Checks that docs/README.md, the documentation's index, is complete and names nothing that is gone.

Usage: docs_index.py ROOT                  checks ROOT/docs/README.md
       docs_index.py ROOT --planted FILE   checks docs/README.md with the lines that name FILE's
                                           "Taken out" items removed and its "Added" lines put in
                                           (tests/docs/planted_incomplete_index.md)

The index must name, each on a line of its own:
- every documentation page, docs/*.md, by a link to it ([how-it-works.md](how-it-works.md));
- every fuzz harness, fuzz/*.cpp, by its file name (`fuzz/kineto_fuzz.cpp`);
- every test folder, tests/*/, by its path (`tests/mcp/`);
- every shipped format: each reader listed in src/load/readers.cpp, by the name its Reader gives
  the format (`rocprofv3-json`), in backticks.
And every file it names must exist: each relative link, and each path in backticks (a token with a
"/" or a file's extension), looked for from the repository root, docs/ and src/ (a bare
file name anywhere in the tree). Paths under build outputs (build/, out/, dist/) and outside the
checkout (../) are not looked for.
Exit status: 0 when the index is complete, 1 when it is not (each problem printed), 2 on usage.
"""
import os
import re
import sys
from pathlib import Path

READER_LIST = re.compile(r"#define PERFGATE_READERS\(X\)(.*?)\n\s*\n", re.S)
READER_ENTRY = re.compile(r"X\((\w+)\)")
READER_NAME = r"const\s+Reader\s+{}\s*\{{\s*\"([^\"]+)\""
LINK = re.compile(r"\]\(\s*<?([^)\s>#]*)(#[^)\s>]*)?>?\s*\)")
CODE = re.compile(r"`([^`\n]+)`")
EXTENSIONS = {"md", "cpp", "h", "def", "py", "sh", "yaml", "yml", "cmake", "json", "gz", "tsv", "sql", "txt",
              "h2m", "mjs", "pb", "pickle", "toml", "completion"}
NOT_LOOKED_FOR = ("build/", "build-", "out/", "dist/", "../", "http://", "https://", "/")
PRUNED = {".git", "node_modules", "out", "dist"}
PLURAL = {"fuzz harness": "fuzz harnesses"}


def shipped_formats(root):
    """The format names of the readers that src/load/readers.cpp lists, from each Reader's definition."""
    registry = (root / "src/load/readers.cpp").read_text(encoding="utf-8")
    listed = READER_LIST.search(registry)
    if not listed:
        raise SystemExit("docs_index.py: no PERFGATE_READERS list in src/load/readers.cpp")
    sources = [p.read_text(encoding="utf-8") for p in sorted((root / "src/load").rglob("*.cpp"))]
    names = []
    for reader in READER_ENTRY.findall(listed.group(1)):
        found = [m.group(1) for text in sources for m in re.finditer(READER_NAME.format(reader), text)]
        if len(found) != 1:
            raise SystemExit(f"docs_index.py: no single definition of {reader} under src/load/ gives its name")
        names.append(found[0])
    return names


def tree_names(root):
    """Every file's and folder's base name in the checkout, build outputs left out."""
    names = set()
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d not in PRUNED and not d.startswith("build")]
        names.update(dirs)
        names.update(files)
    return names


def looks_like_path(token):
    if any(c in token for c in " <>*{}$|=:,()'\"") or token.startswith("-"):
        return False
    if "/" in token:
        return True
    ext = token.rsplit(".", 1)[-1] if "." in token else ""
    return ext in EXTENSIONS and ext != token


class Index:
    def __init__(self, root, lines, formats):
        self.root = root
        self.formats = set(formats)  # `kineto-json.gz` is a format's name, not a file
        self.lines = lines
        self.text = "\n".join(lines)
        self._names = None

    def exists(self, token):
        token = token.split("#", 1)[0].rstrip("/")
        if not token:
            return True
        for base in (self.root, self.root / "docs", self.root / "src"):
            if (base / token).exists():
                return True
        if "/" not in token:
            if self._names is None:
                self._names = tree_names(self.root)
            return token in self._names
        return False

    def named_files(self):
        fenced = False
        for line in self.lines:
            if line.lstrip().startswith("```"):
                fenced = not fenced
                continue
            if fenced:
                continue
            for m in LINK.finditer(line):
                target = m.group(1)
                if target and not re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I):
                    yield target, (self.root / "docs" / target).exists()
            for m in CODE.finditer(line):
                token = m.group(1).strip()
                if looks_like_path(token) and not token.startswith(NOT_LOOKED_FOR) and token not in self.formats:
                    yield token, self.exists(token)

    def links_to(self, page):
        return re.search(r"\]\(\s*<?" + re.escape(page) + r"(#[^)]*)?>?\s*\)", self.text) is not None

    def names_word(self, word):
        return re.search(r"(?<![\w.-])" + re.escape(word) + r"(?![\w-])", self.text) is not None


def check(root, lines):
    formats = shipped_formats(root)
    index = Index(root, lines, formats)
    missing = {"docs page": [], "fuzz harness": [], "test folder": [], "format": []}
    for page in sorted(p.name for p in (root / "docs").glob("*.md") if p.name != "README.md"):
        if not index.links_to(page):
            missing["docs page"].append(page)
    for harness in sorted(p.name for p in (root / "fuzz").glob("*.cpp")):
        if not index.names_word(harness):
            missing["fuzz harness"].append(f"fuzz/{harness}")
    for folder in sorted(p.name for p in (root / "tests").iterdir() if p.is_dir()):
        if f"tests/{folder}/" not in index.text:
            missing["test folder"].append(f"tests/{folder}/")
    for name in formats:
        if f"`{name}`" not in index.text:
            missing["format"].append(name)
    gone = sorted({token for token, exists in index.named_files() if not exists})
    for kind, items in missing.items():
        for item in items:
            print(f"docs/README.md: the {kind} {item} is not in the index")
    for token in gone:
        print(f"docs/README.md: names {token}, which does not exist")
    counts = ", ".join(f"{len(items)} {kind if len(items) == 1 else PLURAL.get(kind, kind + 's')}"
                       for kind, items in missing.items())
    print(f"missing: {counts}; {len(gone)} named file{'s' if len(gone) != 1 else ''} that do{'es' if len(gone) == 1 else ''} "
          "not exist")
    return 1 if gone or any(missing.values()) else 0


def planted_lines(root, planted):
    """docs/README.md with the planted file's "Taken out" items' lines removed and its "Added" lines put in."""
    section, taken_out, added = None, [], []
    for line in planted.read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            section = line[3:].strip()
        elif line.startswith("- ") and section == "Taken out":
            taken_out.append(line[2:].strip().strip("`"))
        elif line.strip() and section == "Added":
            added.append(line)
    if not taken_out or not added:
        raise SystemExit(f"docs_index.py: {planted} has no \"Taken out\" items or no \"Added\" lines")
    lines = (root / "docs/README.md").read_text(encoding="utf-8").splitlines()
    return [line for line in lines if not any(item in line for item in taken_out)] + added


def main(argv):
    if len(argv) not in (2, 4) or (len(argv) == 4 and argv[2] != "--planted"):
        print(__doc__, file=sys.stderr)
        return 2
    root = Path(argv[1]).resolve()
    if len(argv) == 4:
        lines = planted_lines(root, Path(argv[3]))
    else:
        lines = (root / "docs/README.md").read_text(encoding="utf-8").splitlines()
    return check(root, lines)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
