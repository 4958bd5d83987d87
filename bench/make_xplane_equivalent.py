#!/usr/bin/env python3
"""Writes the same N steps of work as an XSpace (.xplane.pb) and as a Kineto JSON trace: per step a
host op (ProfilerStep#i / 'train (step i)' marker), K launch calls each with a kernel on one GPU
stream. For the issue-59 bench figure (docs/performance.md, "XSpace profiles"): perfgate-bench equiv.xplane.pb equiv.json.
Usage: make_xplane_equivalent.py STEPS KERNELS_PER_STEP OUT (writes OUT.xplane.pb and OUT.json)."""
import sys, json, struct
N, K = int(sys.argv[1]), int(sys.argv[2]); out = sys.argv[3]
def v(n):
    o = bytearray()
    while n >= 0x80: o.append((n & 0x7f) | 0x80); n >>= 7
    o.append(n); return bytes(o)
def f(num, val): return v(num << 3) + v(val)
def b(num, x): return v(num << 3 | 2) + v(len(x)) + x
def stat(i, val): return f(1, i) + f(4, val)
def sstat(i, s): return f(1, i) + b(5, s)
def md(k, name): return f(1, k) + b(2, f(1, k) + b(2, name))
# stat metadata: 1 correlation_id, 2 step_num, 3 kernel_details, 4 hlo_op
smd = b(5, md(1, b'correlation_id')) + b(5, md(2, b'step_num')) + b(5, md(3, b'kernel_details')) + b(5, md(4, b'hlo_op'))
dev_events = bytearray(); host_events = bytearray(); j = []
t = 1000  # ns
corr = 1
step_len = K * 10_000
for i in range(N):
    s0 = t
    host_events += b(4, f(1, 1) + f(2, s0 * 1000) + f(3, step_len * 1000) + b(4, stat(2, i)))
    j.append({"ph": "X", "cat": "user_annotation", "name": f"ProfilerStep#{i}", "pid": 1, "tid": 1, "ts": s0 / 1000, "dur": step_len / 1000})
    for k in range(K):
        ls = s0 + k * 10_000 + 100
        host_events += b(4, f(1, 2) + f(2, ls * 1000) + f(3, 2_000_000) + b(4, stat(1, corr)))
        ks = ls + 3000
        dev_events += b(4, f(1, 3) + f(2, ks * 1000) + f(3, 5_000_000) + b(4, stat(1, corr)) + b(4, sstat(3, b'regs:32 static_shared:0 dynamic_shared:0 grid:40,1,1 block:128,1,1 occ_pct:100')) + b(4, sstat(4, b'fusion.3')))
        j.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": ls / 1000, "dur": 2.0, "args": {"correlation": corr, "external id": 0}})
        j.append({"ph": "X", "cat": "kernel", "name": "loop_add_fusion", "pid": 0, "tid": 7, "ts": ks / 1000, "dur": 5.0,
                  "args": {"correlation": corr, "device": 0, "stream": 7, "grid": [40, 1, 1], "block": [128, 1, 1], "registers per thread": 32, "shared memory": 0}})
        corr += 1
    t += step_len + 1000
host_md = b(4, md(1, b'train')) + b(4, md(2, b'cuLaunchKernel'))
host = b(2, b'/host:CPU') + b(3, f(1, 1) + b(2, b'python3') + f(3, 0) + bytes(host_events)) + host_md + smd
dev = b(2, b'/device:GPU:0') + b(3, f(1, 7) + b(2, b'Stream #7(Compute)') + f(3, 0) + bytes(dev_events)) + b(4, md(3, b'loop_add_fusion')) + smd
open(out + '.xplane.pb', 'wb').write(b(1, dev) + b(1, host))
json.dump({"schemaVersion": 1, "traceEvents": j}, open(out + '.json', 'w'))
