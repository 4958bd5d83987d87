#!/usr/bin/env python3
"""Checks perfgate's graph-capture attribution against TraceLens's own report of the same trace.

usage: graph_capture_check.py PERFGATE_JSON PERF_CSVS_FOLDER

Reads TraceLens's ops_summary.csv (kernel time per op and parent module, the capture merged) and
ops_unique_args.csv (the same per input shapes), and perfgate's JSON report (tables ops and
ops_by_shape of the first worker). perfgate's op tables have no per-module row, so each
(op, module) row of TraceLens is compared with the perfgate rows of that op whose input shapes
TraceLens lists under that module. Prints every row above 1% of the kernel time with both values and
exits 1 when one differs by more than 2%, or when "(no op)" holds 2% or more of the kernel time.
"""
import ast
import csv
import json
import os
import sys
from collections import defaultdict


def dims_key(text):
    """TraceLens's "((32, 4096), (4096, 24576))" and perfgate's "[[32,4096],[4096,24576]]", alike."""
    text = text.strip()
    if not text:
        return "[]"
    value = ast.literal_eval(text)

    def norm(v):
        if isinstance(v, (list, tuple)):
            return [norm(x) for x in v]
        return v

    if not isinstance(value, (list, tuple)):
        value = [value]
    return json.dumps(norm(value), separators=(",", ":"))


def base_name(name):
    """TraceLens drops the numbered suffix of a custom op's name (the trace's
    sglang_profiler::attention_paged_attention_ragged_100 is its ..._ragged); perfgate keeps the
    trace's name, so perfgate's names are compared without such a suffix."""
    head, _, tail = name.rpartition("_")
    return head if head and tail.isdigit() and "::" in head else name


def table(worker, name):
    t = worker["tables"][name]
    cols = [c["name"] for c in t["columns"]]
    return [dict(zip(cols, row)) for row in t["rows"]]


def main(report_path, csv_dir):
    report = json.load(open(report_path))
    worker = report["workers"][0]
    ops = table(worker, "ops")
    by_shape = table(worker, "ops_by_shape")
    summary = list(csv.DictReader(open(os.path.join(csv_dir, "ops_summary.csv"))))
    unique = list(csv.DictReader(open(os.path.join(csv_dir, "ops_unique_args.csv"))))

    total_ref = sum(float(r["total_direct_kernel_time_sum"]) for r in summary)
    total_pg = sum(r["device_self_us"] or 0 for r in ops)
    no_op = sum(r["device_self_us"] or 0 for r in ops if r["name"] == "(no op)")
    print(f"kernel time: TraceLens {total_ref:.1f} us, perfgate {total_pg:.1f} us")
    print(f"(no op): {no_op:.1f} us = {100 * no_op / total_pg:.2f}% of perfgate's kernel time")

    shapes_of = defaultdict(set)
    for r in unique:
        shapes_of[(r["name"], r["parent_module"])].add(dims_key(r["Input Dims"]))
    pg_by_shape = defaultdict(float)
    for r in by_shape:
        pg_by_shape[(base_name(r["name"]), dims_key(r["input_shapes"]))] += r["device_self_us"] or 0

    failed = no_op >= 0.02 * total_pg
    print(f"{'op':50} {'module':40} {'TraceLens us':>12} {'perfgate us':>12} {'diff %':>7}")
    for r in summary:
        ref = float(r["total_direct_kernel_time_sum"])
        if ref < 0.01 * total_ref:
            continue
        key = (r["name"], r["parent_module"])
        mine = sum(pg_by_shape[(r["name"], s)] for s in shapes_of[key])
        diff = 100 * (mine - ref) / ref
        bad = abs(diff) > 2
        failed = failed or bad
        print(f"{r['name'][:50]:50} {r['parent_module'][:40]:40} {ref:12.1f} {mine:12.1f} {diff:7.2f}"
              + ("  <-- over 2%" if bad else ""))
    print("FAIL" if failed else "OK: every row above 1% within 2%, (no op) under 2%")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
