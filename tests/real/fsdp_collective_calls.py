#!/usr/bin/env python3
# Independent reading of an Nsight Systems export (tests/real/issue53_nsys_real_test.cpp): the
# outermost collective NVTX ranges (emit_nvtx op names matching the rules' communication op_types)
# per process: calls, host time, and DLProf's CPU overhead (duration less the union of the
# thread's CUDA runtime calls within it).
# Usage: fsdp_collective_calls.py EXPORT.sqlite  ->  pid, calls, host us, overhead us
import sqlite3, re, sys, collections
db = sqlite3.connect(sys.argv[1])
comm = re.compile(r'^(nccl|gloo|mpi|ucc|xccl):|^(c10d|c10d_functional|_c10d_functional)::|^record_param_comms$')
rows = db.execute("""SELECT n.start, n.end, coalesce(n.text, s.value), n.globalTid FROM NVTX_EVENTS n
  LEFT JOIN StringIds s ON s.id = n.textId WHERE n.eventType = 59 AND n.end IS NOT NULL""").fetchall()
rt = collections.defaultdict(list)
for s, e, t in db.execute("SELECT start, end, globalTid FROM CUPTI_ACTIVITY_KIND_RUNTIME"):
    rt[t].append((s, e))
for t in rt: rt[t].sort()
by_tid = collections.defaultdict(list)
for s, e, text, tid in rows:
    name = (text or '').split(', seq')[0].split(', op_id')[0]
    by_tid[tid].append((s, -e, name))
out = collections.defaultdict(lambda: [0, 0, 0])
for tid, evs in by_tid.items():
    evs.sort()
    open_comm_end = -1
    for s, ne, name in evs:
        e = -ne
        if s < open_comm_end: continue   # inside an outer collective
        if not comm.match(name): continue
        open_comm_end = e
        calls = [(max(a, s), min(b, e)) for a, b in rt[tid] if a < e and b > s]
        union = 0; cur = None
        for a, b in sorted(calls):
            if cur and a <= cur[1]: cur[1] = max(cur[1], b)
            else:
                if cur: union += cur[1] - cur[0]
                cur = [a, b]
        if cur: union += cur[1] - cur[0]
        pid = tid >> 24 & 0xFFFFFF
        o = out[pid]; o[0] += 1; o[1] += e - s; o[2] += (e - s) - union
for pid, (n, host, over) in sorted(out.items()):
    print(pid, n, f"{host/1e3:.3f}", f"{over/1e3:.3f}")
