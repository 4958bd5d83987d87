#!/usr/bin/env python3
"""Writes a neuron-profile full JSON (view --output-format json) with the structure of real
neuron-profile 2.27 files (docs/formats.md, "AWS Neuron"), for timing the Neuron reader and for
the tests' checks against the profiler's own definitions.

Usage: bench/make_neuron_profile.py OUT.json MEGABYTES [SEED [FIRST_KEY]]
(FIRST_KEY: the section written first, e.g. metadata; the others in the seeded order.)

The structure (issue 39):
- the 21 top-level sections of real files, in an order shuffled by SEED (real files differ in it);
- instruction rows on six engine rows (Tensor, TensorMatrix, Vector, Scalar, GpSimd, Sync) with
  500 HLO op names and the fields real rows carry, among them semaphore waits (opcode
  EVENT_SEMAPHORE or EVENT_SEMAPHORE_RANGE_CLEAR) that last far longer than the work;
- `active_time` rows (engine, start_ts, end_ts, duration_ns): each engine's work without the
  waits, as stretches; the summary's <engine>_engine_active_time is their sum x 1.004 (real files
  agree within 0.8% at the median);
- throttling as the profiler writes it: per source <k> a limit (throttle_<k>_avg_util_limit_nc0_
  percent) and its active share (throttle_<k>_active_time_nc0_percent), the time under any limit
  (throttle_active_nc0_time_ns), and throttle_avg_util_limit_nc0_percent = sum of limit x share;
- layer_summary in integer nanoseconds with tensor_engine_model_flop_count and
  tensor_engine_flop_count; a Missing Data warning that names its remedy;
- one DMA row per 10 instructions on 16 queues;
- `metadata` as a list of one object (issue 54: 7 of 117 real files began with it), its keys
  shuffled;
- `instruction_usage` (issue 54): 17 rows of SBUF ("sb": usage_avg and partition_{0,32,64,96}_usage)
  and PSUM ("psum": usage_avg and bank_0_usage .. bank_4_usage, not every bank in every row)
  occupancy as fractions 0-1, timestamps on the instruction rows' clock, keys shuffled per row;
- `nc_mem_usage` (issue 54): the 23 usage types of real files on nd 0, nc 0, Total their sum.
Instruction rows are written until the file is about MEGABYTES. Seeded: the same arguments write
the same bytes (docs/performance.md, "Neuron profiles").
"""
import json
import random
import sys

LABELS = ["Tensor", "TensorMatrix", "Vector", "Scalar", "GpSimd", "Sync"]
ENGINE_OF = {"Tensor": "Tensor", "TensorMatrix": "Tensor", "Vector": "Vector", "Scalar": "Scalar",
             "GpSimd": "GpSimd", "Sync": "Sync"}
ENGINES = ["Tensor", "Vector", "Scalar", "GpSimd", "Sync"]
KEYS = ["semaphore_update", "neff_node", "dma_queues_info", "terminology", "pending_dma", "summary",
        "summary_group_order", "layer_summary", "warnings", "profile_info", "dma_throughput",
        "instruction_usage", "active_time", "neff_header", "model_info", "metadata", "instruction", "dma",
        "ham", "summary_groups", "nc_mem_usage"]
REMEDY = ("Missing additional dynamic DMA metadata, reported DMA values may be inaccurate. Try capturing "
          "the profile with --enable-dge-notifs or NEURON_RT_ENABLE_DGE_NOTIFICATIONS=1 env flag.")


def instructions(rng, target_bytes):
    """(timestamp, duration, label, opcode, op index) until the rows' text is about target_bytes."""
    rows, written, t, i = [], 0, 1000, 0
    while written < target_bytes:
        label = LABELS[i % 6]
        wait = label == "Sync" or i % 7 == 0
        t += rng.randint(5, 200)
        duration = rng.randint(2000, 6000) if wait else rng.randint(10, 400)
        opcode = ("EVENT_SEMAPHORE_RANGE_CLEAR" if label == "Sync" else "EVENT_SEMAPHORE") if wait \
            else "MultiplyMoving"
        rows.append((t, duration, label, opcode, (i // 3) % 500))
        written += 330
        i += 1
    return rows


def active_spans(rows):
    """Per engine, the union of its work (semaphore waits aside) as (start, end) stretches."""
    spans = {e: [] for e in ENGINES}
    for t, d, label, opcode, _ in sorted(rows):
        if opcode.startswith("EVENT_SEMAPHORE"):
            continue
        s = spans[ENGINE_OF[label]]
        if s and t <= s[-1][1]:
            s[-1][1] = max(s[-1][1], t + d)
        else:
            s.append([t, t + d])
    return spans


def union_ns(intervals):
    total, end = 0, None
    for a, b in sorted(intervals):
        if end is None or a > end:
            total, end = total + b - a, b
        elif b > end:
            total, end = total + b - end, b
    return total


def summary(rows, spans, dma_rows):
    first = min(min(r[0] for r in rows), min(d[0] for d in dma_rows))
    last = max(max(r[0] + r[1] for r in rows), max(d[0] + d[1] for d in dma_rows))
    total_ns = last - first
    s = {"total_time": total_ns / 1e9, "instance_type": "inf2.xlarge", "profiler_version": "2.27.0"}
    for e in ENGINES:
        active = sum(b - a for a, b in spans[e]) * 1.004
        s[e.lower() + "_engine_active_time"] = active / 1e9
        s[e.lower() + "_engine_active_time_percent"] = active / total_ns
        s[e.lower() + "_engine_instruction_count"] = sum(1 for r in rows if ENGINE_OF[r[2]] == e)
    work = [(a, b) for e in ENGINES for a, b in spans[e]]
    s["total_active_time_percent"] = union_ns(work) / total_ns
    s.update({"model_flops": 33554432 * 64, "hardware_flops": 37748736 * 64, "transpose_flops": 4194304 * 64,
              "mfu_estimated_percent": 0.0123, "hfu_estimated_percent": 0.0138,
              "mbu_estimated_percent": 0.041, "peak_flops_bandwidth_ratio": 230.5,
              "dma_transfer_total_bytes": sum(d[2] for d in dma_rows),
              "spill_save_bytes": 512, "spill_reload_bytes": 256})
    limits = {"activity_0": (0.875, 0.00416), "activity_1": (1.0, 0.0000118)}
    for k, (limit, share) in limits.items():
        s[f"throttle_{k}_avg_util_limit_nc0_percent"] = limit
        s[f"throttle_{k}_active_time_nc0_percent"] = share
    s["throttle_avg_util_limit_nc0_percent"] = sum(lim * share for lim, share in limits.values())
    s["throttle_active_nc0_time_ns"] = round(0.0042 * total_ns)
    return s


MEMORY_USES = ["Generic", "Tensor Instructions", "Scalar Instructions", "Vector Instructions",
               "GpSimd Instructions", "Sync Instructions", "IO", "DRAM Spill", "Weights", "Profiler Buffers",
               "Scalar Table", "Shared Scratchpad", "Tensors", "Ucode lib", "GpSimd STDIO", "Collectives",
               "Scratchpad", "XT CC (unused)", "DMA Rings Runtime", "DMA Rings Spill", "DMA Rings IO",
               "DMA Rings Collectives"]


def shuffled(rng, row):
    """The row's keys in a seeded order (real files' keys come in any order)."""
    keys = list(row)
    rng.shuffle(keys)
    return {k: row[k] for k in keys}


def instruction_usage(rng, first, last):
    """11 SBUF and 6 PSUM occupancy rows spread over [first, last]: fractions 0-1."""
    rows = []
    for n in range(11):
        parts = [round(rng.uniform(0, 0.6), 10) for _ in range(4)]
        row = {"type": "sb", "timestamp": first + (last - first) * n // 11,
               "usage_avg": round(sum(parts) / 4, 10)}
        row.update({f"partition_{32 * k}_usage": parts[k] for k in range(4)})
        rows.append(shuffled(rng, row))
    for n in range(6):
        banks = [round(rng.uniform(0, 0.9), 10) for _ in range(rng.randint(2, 5))]
        row = {"type": "psum", "timestamp": first + (last - first) * (2 * n + 1) // 12,
               "usage_avg": round(sum(banks) / len(banks), 10)}
        row.update({f"bank_{k}_usage": banks[k] for k in range(len(banks))})
        rows.append(shuffled(rng, row))
    rows.append(shuffled(rng, {"type": "psum", "timestamp": last, "usage_avg": 0, "bank_0_usage": 0}))
    return sorted(rows, key=lambda r: r["timestamp"])


def nc_mem_usage(rng):
    rows = [shuffled(rng, {"nd": 0, "nc": 0, "usage_type": use, "amount_bytes": rng.choice([0, 256]) *
                           rng.randint(1, 40000)}) for use in MEMORY_USES]
    rows.append({"nd": 0, "nc": 0, "usage_type": "Total", "amount_bytes": sum(r["amount_bytes"] for r in rows)})
    return rows


def write_rows(f, texts):
    f.write("[\n")
    first = True
    for text in texts:
        f.write(("" if first else ",\n") + "    " + text)
        first = False
    f.write("\n  ]")


def main():
    out, target = sys.argv[1], int(sys.argv[2]) * 1000 * 1000
    seed = int(sys.argv[3]) if len(sys.argv) > 3 else 7
    rng = random.Random(seed)
    ops = [f"%fusion.{i} = fusion(%p{i % 7}, %c{i % 13}), kind=kLoop" for i in range(500)]
    rows = instructions(rng, target * 0.85)
    dma_rows = [(1000 + j * 100, rng.randint(50, 500), rng.randint(512, 65536), j % 16)
                for j in range(len(rows) // 10)]
    spans = active_spans(rows)
    order = KEYS[:]
    rng.shuffle(order)
    if len(sys.argv) > 4:
        order.remove(sys.argv[4])
        order.insert(0, sys.argv[4])

    def instruction_texts():
        for i, (t, d, label, opcode, op) in enumerate(rows):
            yield ('{"timestamp": %d, "duration": %d, "label": "%s", "opcode": "%s", '
                   '"operands": "acc_flags=0 src=sb[0:128][0:512] dst=psum[0][0:512]", "hlo_name": "%s", '
                   '"layer": "encoder/%d", "bir_id": %d, "pc": %d, "id": %d}' %
                   (t, d, label, opcode, ops[op], i % 24, i % 100000, (i * 16) % 65536,
                    9223372036854000000 + i))

    def dma_texts():
        for j, (t, d, size, q) in enumerate(dma_rows):
            yield ('{"timestamp": %d, "duration": %d, "transfer_size": %d, "dma_queue": "q%d", '
                   '"queue_type": "qSyncIO", "hlo_name": "%s", "is_cc_dma": "false", "dma_engine": "%d"}' %
                   (t, d, size, q, ops[j % 500], q))

    def active_texts():
        for e in ENGINES:
            for a, b in spans[e]:
                yield json.dumps({"engine": e, "start_ts": a, "end_ts": b, "duration_ns": b - a})

    layers = [{"layer": f"/sg{n:02d}", "tensor_engine_active_time": 1343 * (n + 1),
               "vector_engine_active_time": 450 * (n + 1), "tensor_engine_instruction_count": 3 * (n + 1),
               "tensor_engine_model_flop_count": 33554432 * 16, "tensor_engine_flop_count": 37748736 * 16}
              for n in range(4)]
    small = {
        "summary": [summary(rows, spans, dma_rows)],
        "layer_summary": layers,
        "warnings": [{"category": "Missing Data", "message": REMEDY}],
        "metadata": [shuffled(rng, {"pe_clock_freq": 1400000000, "hbm_ddr_bandwidth": 410, "ticks_per_nanosec": 1.4,
                                    "ntff_version": 5, "data_version": 8, "is_simulation": False,
                                    "num_subgraphs": 1, "num_physical_cores": 2, "vnc_enabled": "false",
                                    "first_hw_timestamp": rows[0][0], "last_hw_timestamp": rows[-1][0]})],
        "instruction_usage": instruction_usage(rng, rows[0][0], max(r[0] + r[1] for r in rows)),
        "nc_mem_usage": nc_mem_usage(rng),
        "profile_info": {"profiler_version": "2.27.0"},
        "semaphore_update": [{"timestamp": 10, "semaphore": "S[3]", "value": 1}],
        "terminology": {"Tensor": "the matrix engine"},
        "summary_group_order": ["Overview", "Engines"],
    }
    with open(out, "w") as f:
        f.write("{\n")
        for n, key in enumerate(order):
            f.write(('  "%s": ' % key) if n == 0 else (',\n  "%s": ' % key))
            if key == "instruction":
                write_rows(f, instruction_texts())
            elif key == "dma":
                write_rows(f, dma_texts())
            elif key == "active_time":
                write_rows(f, active_texts())
            else:
                f.write(json.dumps(small.get(key, [])))
        f.write("\n}\n")
    waits = sum(1 for r in rows if r[3].startswith("EVENT_SEMAPHORE"))
    print(f"{out}: {len(rows)} instruction rows ({waits} semaphore waits), {len(dma_rows)} DMA rows, "
          f"first key {order[0]}")


if __name__ == "__main__":
    main()
