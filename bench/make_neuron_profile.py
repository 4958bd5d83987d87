#!/usr/bin/env python3
"""Writes a large neuron-profile full JSON (view --output-format json) for timing the Neuron reader.

Usage: bench/make_neuron_profile.py OUT.json MEGABYTES

A summary like the test fixture's, instruction rows (6 engine rows, 500 HLO op names, the fields
real rows carry: opcode, operands, layer, bir_id, pc and an id near 9.2e18) until the instruction
section is about 92% of MEGABYTES, then one DMA row per 10 instructions on 16 queues, and one
warning. Seeded: the same arguments write the same bytes (docs/performance.md, "Neuron profiles").
"""
import random
import sys


def main():
    out, target = sys.argv[1], int(sys.argv[2]) * 1000 * 1000
    rng = random.Random(7)
    labels = ["Tensor", "TensorMatrix", "Vector", "Scalar", "GpSimd", "Sync"]
    ops = [f"%fusion.{i} = fusion(%p{i % 7}, %c{i % 13}), kind=kLoop" for i in range(500)]
    with open(out, "w") as f:
        f.write('{\n  "summary": [{"total_time": 0.5, "total_active_time_percent": 0.6, '
                '"tensor_engine_active_time_percent": 0.25, "vector_engine_active_time_percent": 0.1, '
                '"mfu_estimated_percent": 0.125, "spill_save_bytes": 512, "spill_reload_bytes": 256, '
                '"instance_type": "trn1.32xlarge"}],\n  "instruction": [\n')
        written, i, t, rows = 0, 0, 1000, []
        while written < target * 0.92:
            t += rng.randint(5, 200)
            rows.append('    {"timestamp": %d, "duration": %d, "label": "%s", "opcode": "MultiplyMoving", '
                        '"operands": "acc_flags=0 src=sb[0:128][0:512] dst=psum[0][0:512]", "hlo_name": "%s", '
                        '"layer": "encoder/%d", "bir_id": %d, "pc": %d, "id": %d}' %
                        (t, rng.randint(10, 400), labels[i % 6], ops[(i // 3) % 500], i % 24, i % 100000,
                         (i * 16) % 65536, 9223372036854000000 + i))
            i += 1
            if len(rows) == 10000:
                text = (",\n" if written else "") + ",\n".join(rows)
                f.write(text)
                written += len(text)
                rows = []
        if rows:
            f.write((",\n" if written else "") + ",\n".join(rows))
        f.write('\n  ],\n  "dma": [\n')
        n, rows = i // 10, []
        for j in range(n):
            rows.append('    {"timestamp": %d, "duration": %d, "transfer_size": %d, "dma_queue": "q%d", '
                        '"queue_type": "qSyncIO", "hlo_name": "%s", "is_cc_dma": "false", "dma_engine": "%d"}' %
                        (1000 + j * 100, rng.randint(50, 500), rng.randint(512, 65536), j % 16, ops[j % 500],
                         j % 16))
            if len(rows) == 10000:
                f.write(",\n".join(rows) + (",\n" if j + 1 < n else ""))
                rows = []
        if rows:
            f.write(",\n".join(rows))
        f.write('\n  ],\n  "warnings": [{"category": "Missing Data", "message": "dropped"}]\n}\n')
    print(f"{out}: {i} instruction rows, {n} DMA rows")


if __name__ == "__main__":
    main()
