#!/usr/bin/env python3
# Independent reference for issue 56 on the FSDP pair (nsys exports, no step markers), plain SQL on
# the files opened read-only: each side's kernel count, the kernel names and the share of kernel
# time under names both sides ran, and per kernel name its total time and calls (before, after).
# Usage: issue56_expected.py BEFORE.sqlite AFTER.sqlite
import sqlite3, sys

def kernels(path):
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    rows = db.execute("select s.value, sum(k.[end] - k.start), count(*) from CUPTI_ACTIVITY_KIND_KERNEL k "
                      "join StringIds s on s.id = k.demangledName group by 1").fetchall()
    return {name: (ns / 1e3, n) for name, ns, n in rows}

before, after = kernels(sys.argv[1]), kernels(sys.argv[2])
count = lambda k: sum(n for _, n in k.values())
total = lambda k: sum(us for us, _ in k.values())
common = set(before) & set(after)
print("kernels", count(before), "->", count(after), "(%+.1f%%)" % (100 * (count(after) / count(before) - 1)))
print("names", len(common), "of", len(set(before) | set(after)), "in common")
print("time share in common: %.1f%% / %.1f%%" % (100 * sum(before[n][0] for n in common) / total(before),
                                                 100 * sum(after[n][0] for n in common) / total(after)))
for prefix in ("flash_fwd_kernel", "ncclDevKernel_SendRecv"):
    for name in sorted(set(before) | set(after)):
        if name.startswith(prefix) or ("::" + prefix) in name.split("<")[0]:
            b, a = before.get(name, (0, 0)), after.get(name, (0, 0))
            print("%s: %.3f -> %.3f us (%+.3f us), calls %d -> %d, %.3f -> %.3f us a call" %
                  (name[:70], b[0], a[0], a[0] - b[0], b[1], a[1], b[0] / b[1], a[0] / a[1]))
