#!/usr/bin/env python3
"""Writes a run folder of N tiny ranks, the input of issue 78's "a folder of 65,536 tiny rank files"
(ci/cost-budget.sh counts 512 of them: what a rank costs whatever its size). Each rank-R.json is about
1.35 kB: distributedInfo rank R of N, two ProfilerSteps of 900 us, each an aten::mm launching one
sgemm_kernel of 500 + R mod 7 us (tests/cli/memory_budget_cli_test.cpp's folder_of_tiny_ranks makes the
same shape).
Usage: make_tiny_ranks.py OUT N"""
import os
import sys


def rank_trace(rank, ranks):
    events = []
    for step in (1, 2):
        base = 1000.0 * (step - 1)
        events.append('{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d", "pid": 100, "tid": 1, '
                      '"ts": %.3f, "dur": 900.000, "args": {}}' % (step, base))
        events.append('{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 100, "tid": 1, "ts": %.3f, '
                      '"dur": 100.000, "args": {"External id": %d}}' % (base + 10, step))
        events.append('{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 100, "tid": 1, '
                      '"ts": %.3f, "dur": 1.000, "args": {"correlation": %d, "External id": %d}}'
                      % (base + 20, step, step))
        events.append('{"ph": "X", "cat": "kernel", "name": "sgemm_kernel", "pid": 0, "tid": 7, "ts": %.3f, '
                      '"dur": %.3f, "args": {"device": 0, "stream": 7, "correlation": %d, "External id": %d}}'
                      % (base + 40, 500 + rank % 7, step, step))
    return ('{\n  "schemaVersion": 1,\n  "distributedInfo": {"backend": "nccl", "rank": %d, "world_size": %d},\n'
            '  "traceEvents": [\n    %s\n  ]\n}\n' % (rank, ranks, ",\n    ".join(events)))


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    out, ranks = sys.argv[1], int(sys.argv[2])
    os.makedirs(out, exist_ok=True)
    for rank in range(ranks):
        with open(os.path.join(out, "rank-%d.json" % rank), "w") as f:
            f.write(rank_trace(rank, ranks))


if __name__ == "__main__":
    main()
