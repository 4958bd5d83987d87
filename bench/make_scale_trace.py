#!/usr/bin/env python3
"""Writes the scale inputs of the speed budget (ci/cost-budget.sh), whose cost must grow linearly:
  OUT/nested.json: N aten::mm ops, each inside the previous one (op k at 1000 + k us, lasting
    2 (N - k) + 10 us), in one ProfilerStep, the innermost launching one 100 us kernel;
  OUT/captures/trace.json + OUT/captures/capture_traces/: N cudaGraphLaunch calls, each replaying
    graph g (one kernel), and a capture trace of N capture windows (issue 55, item 4).
  OUT/inferred.json: no step marked; N / 6 top-level ops block.k, each launching 10 kernels but every
    17th 11: runs of 16 units of like work that the ratio bound cannot tell apart (10 and 11 are within
    1.05 / 0.95), so the search for the longest run checks every end from the last for each start.
The per-op totals and the capture matching were quadratic in N, the longest run's search cubic in the
units (issue 58: 3.7 G instructions of a 99 MB Nsight Systems export); at N = 4,000 that is about 16 M
steps of a loop, or 49 M values examined, which the instruction count shows.
Usage: make_scale_trace.py OUT N"""
import json
import os
import sys


def kineto(events):
    return {"schemaVersion": 1,
            "deviceProperties": [{"id": 0, "name": "NVIDIA A100-SXM4-40GB", "totalGlobalMem": 42505273344,
                                  "computeMajor": 8, "computeMinor": 0, "numSms": 108}],
            "traceEvents": events}


def nested(n):
    ev = [{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 100, "tid": 1, "ts": 999,
           "dur": 2 * n + 22 + 120}]
    for k in range(n):
        ev.append({"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 100, "tid": 1, "ts": 1000 + k,
                   "dur": 2 * (n - k) + 10, "args": {"External id": k + 1}})
    ts = 1000 + n + 1
    ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 100, "tid": 1, "ts": ts,
               "dur": 2, "args": {"correlation": 7, "External id": n}})
    ev.append({"ph": "X", "cat": "kernel", "name": "ampere_sgemm_128x64_nn", "pid": 0, "tid": 7, "ts": ts + 5,
               "dur": 100, "args": {"device": 0, "stream": 7, "correlation": 7}})
    return kineto(ev)


def captures(n):
    replay, capture = [], []
    for g in range(n):
        ts = 1000 + 20 * g
        replay.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaGraphLaunch", "pid": 100, "tid": 1,
                       "ts": ts, "dur": 3, "args": {"correlation": 10 + g, "graph id": g + 1}})
        replay.append({"ph": "X", "cat": "kernel", "name": "graph_kernel", "pid": 0, "tid": 7, "ts": ts + 5,
                       "dur": 10, "args": {"device": 0, "stream": 7, "correlation": 10 + g, "graph id": g + 1}})
        calls = [("cudaStreamBeginCapture", 0, {}), ("cudaLaunchKernel", 3, {"External id": g + 1}),
                 ("cudaStreamEndCapture", 9, {"graph id": g + 1}), ("cudaGraphInstantiate", 11, {"graph id": g + 1})]
        for i, (name, offset, args) in enumerate(calls):
            capture.append({"ph": "X", "cat": "cuda_runtime", "name": name, "pid": 100, "tid": 1, "ts": ts + offset,
                            "dur": 2 if i == 1 else 1, "args": {"correlation": 100000000 + 4 * g + i, **args}})
        capture.append({"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 100, "tid": 1, "ts": ts + 2, "dur": 6,
                        "args": {"External id": g + 1}})
    return kineto(replay), kineto(capture)


def inferred(n):
    ev, corr = [], 1
    for k in range(n // 6):
        ts = 1000 + 100 * k
        ev.append({"ph": "X", "cat": "cpu_op", "name": f"block.{k}", "pid": 100, "tid": 1, "ts": ts, "dur": 80,
                   "args": {"External id": k + 1}})
        for i in range(11 if k % 17 == 16 else 10):
            ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 100, "tid": 1,
                       "ts": ts + 1 + 6 * i, "dur": 2, "args": {"correlation": corr, "External id": k + 1}})
            ev.append({"ph": "X", "cat": "kernel", "name": "ampere_sgemm_128x64_nn", "pid": 0, "tid": 7,
                       "ts": ts + 5 + 6 * i, "dur": 3, "args": {"device": 0, "stream": 7, "correlation": corr}})
            corr += 1
    return kineto(ev)


def write(path, obj):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(obj, f)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    out, n = sys.argv[1], int(sys.argv[2])
    write(f"{out}/nested.json", nested(n))
    write(f"{out}/inferred.json", inferred(n))
    replay, capture = captures(n)
    write(f"{out}/captures/trace.json", replay)
    write(f"{out}/captures/capture_traces/capture.json", capture)
    write(f"{out}/captures/capture_traces/execution_details.json",
          [{"file": "capture.json", "batch_size": 1, "mode": "decode"}])
