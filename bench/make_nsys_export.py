#!/usr/bin/env python3
"""Makes a large Nsight Systems export from a small one: its activity and NVTX rows repeated COPIES
times later in time, correlation ids shifted so that each copy's kernels join their own launches.

Usage: bench/make_nsys_export.py SOURCE.sqlite OUT.sqlite COPIES
(docs/performance.md, "Nsight Systems exports": h100x2_fsdp_training_before.sqlite with 41 copies
makes the 99 MB, 1.32 M-row export measured there.) Only Python's sqlite3 module: no Nsight tool.
"""
import shutil
import sqlite3
import sys

TABLES = ["CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET",
          "CUPTI_ACTIVITY_KIND_RUNTIME", "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", "NVTX_EVENTS"]


def columns(db, table):
    return [row[1] for row in db.execute(f'PRAGMA table_info("{table}")')]


def main():
    if len(sys.argv) != 4 or not sys.argv[3].isdigit() or int(sys.argv[3]) < 1:
        sys.exit("usage: bench/make_nsys_export.py SOURCE.sqlite OUT.sqlite COPIES")
    source, out, copies = sys.argv[1], sys.argv[2], int(sys.argv[3])
    shutil.copyfile(source, out)
    db = sqlite3.connect(out)
    tables = [t for t in TABLES if columns(db, t)]
    lo = min(db.execute(f'SELECT min(start) FROM "{t}"').fetchone()[0] or 0 for t in tables)
    hi = max(db.execute(f'SELECT max(coalesce("end", start)) FROM "{t}"').fetchone()[0] or 0 for t in tables)
    span = hi - lo + 1000
    corr = max((db.execute(f'SELECT max(correlationId) FROM "{t}"').fetchone()[0] or 0)
               for t in tables if "correlationId" in columns(db, t))
    for t in tables:
        cols = columns(db, t)
        names = ",".join(f'"{c}"' for c in cols)
        for k in range(1, copies):
            picked = []
            for c in cols:
                if c in ("start", "end"):
                    picked.append(f'"{c}" + {k * span}')
                elif c == "correlationId":
                    picked.append(f'"{c}" + {k * (corr + 1)}')
                else:
                    picked.append(f'"{c}"')
            db.execute(f'INSERT INTO "{t}" ({names}) SELECT {",".join(picked)} FROM "{t}" WHERE start <= {hi}')
    db.commit()
    for t in tables:
        print(t, db.execute(f'SELECT count(*) FROM "{t}"').fetchone()[0])


if __name__ == "__main__":
    main()
