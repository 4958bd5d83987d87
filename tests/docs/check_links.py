#!/usr/bin/env python3
"""Checks the relative links of the documentation: every link's file exists and every anchor is a heading
of its file, as GitHub makes anchors from headings.

Usage: check_links.py ROOT [FILE.md ...]   (default: README.md and docs/*.md under ROOT)

What is checked, outside fenced code blocks:
- Markdown links and images, [text](target) and ![alt](target): a relative target must exist, relative to
  the file; its #anchor (or a bare #anchor) must be a heading of the target Markdown file;
- references written as text, `docs/NAME.md#anchor` (relative to ROOT, as the docs and the code name
  them): the file must exist and the anchor be one of its headings;
- section names quoted after a doc, (docs/NAME.md, "Title") or [NAME.md](NAME.md), "Title": a heading of
  that file (or a paragraph's bold title, **Title**) must read Title (inline code marks aside), end with
  ": Title", or start with "Title — ".
Exit status: 0 when every link resolves, 1 when some do not (each printed as FILE:LINE: ...), 2 on usage.
"""
import re
import sys
import unicodedata
from pathlib import Path

FENCE = re.compile(r"^\s*(```|~~~)")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
RUN_IN = re.compile(r"^\*\*([^*]+?)\.?\*\*")  # a paragraph's bold title: **Graph replay** (`...`). A ...
LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
DOC_REF = re.compile(r"(?<![\w/.-])(docs/[\w.-]+\.md)(#[\w-]+)?")
QUOTED = re.compile(r"(?:\(|\b)((?:docs/)?[\w-]+\.md)\)?(?:#[\w-]+)?\)?,\s+\"([^\"]+)\"")
EXTERNAL = re.compile(r"^[a-z][a-z0-9+.-]*:", re.I)


def slug(text):
    """GitHub's anchor of a heading: lower case, inline markup dropped, punctuation removed, spaces to '-'."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)  # a link in a heading keeps its text
    text = text.replace("`", "").lower()
    kept = []
    for ch in text:
        cat = unicodedata.category(ch)
        if ch in " -" or cat[0] in "LMN" or cat == "Pc":
            kept.append(ch)
    return "".join(kept).replace(" ", "-")


def plain_title(text):
    return re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text).replace("`", "").replace("*", "").strip()


class Doc:
    def __init__(self, path):
        self.path = path
        self.lines = path.read_text(encoding="utf-8").splitlines()
        self.anchors, self.titles = set(), set()
        seen = {}
        for _, line in self.prose_lines():
            run_in = RUN_IN.match(line)
            if run_in:
                self.titles.add(plain_title(run_in.group(1)))
            m = HEADING.match(line)
            if not m:
                continue
            base = slug(m.group(2))
            n = seen.get(base, 0)
            seen[base] = n + 1
            self.anchors.add(base if n == 0 else f"{base}-{n}")
            self.titles.add(plain_title(m.group(2)))

    def prose_lines(self):
        fenced = False
        for number, line in enumerate(self.lines, 1):
            if FENCE.match(line):
                fenced = not fenced
                continue
            if not fenced:
                yield number, line

    def has_section(self, title):
        """A heading reads the title whole, after a table's name (`ops`: Ops), or before a dash (Name — `*.json`)."""
        return any(t == title or t.endswith(": " + title) or t.startswith(title + " — ") for t in self.titles)


class Checker:
    def __init__(self, root):
        self.root = root.resolve()
        self.docs = {}
        self.problems = []

    def doc(self, path):
        path = path.resolve()
        if path not in self.docs:
            self.docs[path] = Doc(path)
        return self.docs[path]

    def report(self, doc, number, message):
        self.problems.append(f"{doc.path.relative_to(self.root)}:{number}: {message}")

    def check_target(self, doc, number, base, target):
        path_part, _, anchor = target.partition("#")
        path = (base / path_part) if path_part else doc.path
        if not path.exists():
            self.report(doc, number, f"'{target}': no such file {path_part}")
            return
        if anchor and path.suffix == ".md" and anchor not in self.doc(path).anchors:
            self.report(doc, number, f"'{target}': no heading of {path.name} has the anchor #{anchor}")

    def check(self, path):
        doc = self.doc(path)
        for number, line in doc.prose_lines():
            for m in LINK.finditer(line):
                target = m.group(1)
                if not EXTERNAL.match(target):
                    self.check_target(doc, number, doc.path.parent, target)
            for m in DOC_REF.finditer(line):
                self.check_target(doc, number, self.root, m.group(1) + (m.group(2) or ""))
            for m in QUOTED.finditer(line):
                name, title = m.group(1), m.group(2)
                base = self.root if name.startswith("docs/") else doc.path.parent
                target = base / name
                if target.exists() and not self.doc(target).has_section(title):
                    self.report(doc, number, f"{name}, \"{title}\": no heading of {target.name} reads so")


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    root = Path(argv[1])
    files = [Path(f) for f in argv[2:]] or [root / "README.md", *sorted((root / "docs").glob("*.md"))]
    checker = Checker(root)
    for f in files:
        if not f.is_file():
            print(f"check_links.py: no such file {f}", file=sys.stderr)
            return 2
        checker.check(f)
    for problem in checker.problems:
        print(problem)
    print(f"{len(files)} files, {len(checker.problems)} broken links")
    return 1 if checker.problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
