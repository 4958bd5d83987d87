#!/usr/bin/env python3
# Expected values of CollectivesRealTraces.TwoProcessesOfOneNsysExport, from the SQLite export
# alone (no perfgate code): each process's c10d::alltoall_base_ NVTX ranges, timed by the kernels
# that the runtime calls inside them (same thread) launched, matched by order of start.
# Usage: collectives_nsys_expected.py h100x2_fsdp_training_before.sqlite
import collections, sqlite3, sys

c = sqlite3.connect(sys.argv[1])
ranges = c.execute("select start, end, globalTid from NVTX_EVENTS "
                   "where text like 'c10d::alltoall_base_%' order by start").fetchall()
runtime = collections.defaultdict(list)
for s, e, tid, cid in c.execute("select start, end, globalTid, correlationId from CUPTI_ACTIVITY_KIND_RUNTIME"):
    runtime[tid].append((s, cid))
kernels = {(gp >> 24 & 0xFFFFFF, cid): (s, e) for s, e, gp, cid in
           c.execute("select start, end, globalPid, correlationId from CUPTI_ACTIVITY_KIND_KERNEL")}
calls = collections.defaultdict(list)
for s, e, tid in ranges:
    pid = tid >> 24 & 0xFFFFFF
    ks = [kernels[(pid, cid)] for rs, cid in runtime[tid] if s <= rs <= e and (pid, cid) in kernels]
    calls[pid].append((min(k[0] for k in ks), max(k[1] for k in ks) - min(k[0] for k in ks)) if ks else None)
p0, p1 = sorted(calls)
print("calls", len(calls[p0]), len(calls[p1]), "untimed", calls[p0].count(None), calls[p1].count(None))
dur, wait, last, delay = [0, 0], [0, 0], [0, 0], [0, 0]
matched = 0
for a, b in zip(calls[p0], calls[p1]):
    if a is None or b is None:
        continue
    matched += 1
    t = min(a[1], b[1])
    for i, x in enumerate((a, b)):
        dur[i] += x[1]
        wait[i] += x[1] - t
    if a[0] != b[0]:
        i = 0 if a[0] > b[0] else 1
        last[i] += 1
        delay[i] += abs(a[0] - b[0])
print("matched", matched, "duration ns", dur, "wait ns", wait, "wait_pct", 100 * sum(wait) / sum(dur),
      "last", last, "delay ns", delay)
