#!/usr/bin/env python3
"""The stage table of docs/architecture.md, drawn from cmake/StageMap.cmake (the build's and the include
check's one declaration of the stages and their arrows), so that the document cannot drift from the build.

Usage: stage_map.py ROOT                 prints the generated section
       stage_map.py ROOT --check [DOC]  exit 1 (with a diff) when docs/architecture.md's section (or DOC's)
                                        differs
       stage_map.py ROOT --update       rewrites that section in place
The section lies between the lines `<!-- stage-map:begin -->` and `<!-- stage-map:end -->`.
"""
import difflib
import re
import sys
from pathlib import Path

BEGIN, END = "<!-- stage-map:begin -->", "<!-- stage-map:end -->"
SET = re.compile(r"^\s*set\(\s*(PERFGATE_STAGES?[A-Za-z0-9_]*)\s+(.*?)\)\s*$", re.S)


def read_map(path):
    """Each set(...) of the file, with the comment block just above it."""
    stages, fields, comments = [], {}, {}
    comment, statement = [], None
    for line in path.read_text().splitlines():
        if statement is not None:
            statement += " " + line.strip()
        elif line.startswith("#"):
            comment.append(line[1:].strip())
            continue
        elif line.strip().startswith("set("):
            statement = line.strip()
        else:
            comment = []
            continue
        if statement.count("(") > statement.count(")"):
            continue
        m = SET.match(statement)
        statement = None
        if not m:
            comment = []
            continue
        name, values = m.group(1), m.group(2).split()
        if name == "PERFGATE_STAGES":
            stages = values
        else:
            stage_kind = name[len("PERFGATE_STAGE_"):]
            for stage in sorted(stages, key=len, reverse=True):
                if stage_kind.startswith(stage + "_"):
                    fields[(stage, stage_kind[len(stage) + 1:])] = values
                    if comment and stage not in comments:
                        comments[stage] = " ".join(comment)
                    break
        comment = []
    return stages, fields, comments


def section(root):
    stages, fields, comments = read_map(root / "cmake" / "StageMap.cmake")
    out = ["| stage | folder | what it holds | may use | its interface (exports) |", "|---|---|---|---|---|"]
    for s in stages:
        uses = fields.get((s, "PUBLIC"), []) + [f"{p} (private)" for p in fields.get((s, "PRIVATE"), [])]
        exports = ", ".join(f"`{e}`" for e in fields.get((s, "EXPORTS"), [])) or "–"
        what = comments.get(s, "").replace("|", "\\|") or "–"
        out.append(f"| **{s}** | `src/{s}/` | {what} | {', '.join(uses) or '–'} | {exports} |")
    return "\n".join(out) + "\n"


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    root = Path(argv[1])
    generated = section(root)
    if len(argv) == 2:
        sys.stdout.write(generated)
        return 0
    doc = Path(argv[3]) if len(argv) > 3 else root / "docs" / "architecture.md"
    text = doc.read_text()
    if BEGIN not in text or END not in text:
        print(f"{doc}: no {BEGIN} ... {END} section", file=sys.stderr)
        return 1
    head, rest = text.split(BEGIN, 1)
    current, tail = rest.split(END, 1)
    current = current.strip("\n") + "\n"
    if argv[2] == "--update":
        doc.write_text(f"{head}{BEGIN}\n{generated}{END}{tail}")
        return 0
    if current == generated:
        return 0
    sys.stdout.writelines(difflib.unified_diff(current.splitlines(True), generated.splitlines(True),
                                               str(doc), "cmake/StageMap.cmake"))
    print(f"{doc}: the stage table differs from cmake/StageMap.cmake; run "
          "tests/docs/stage_map.py . --update", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
