#!/usr/bin/env python3
"""An independent check of perfgate's Neuron engine active time (issue 39), in plain Python.

Usage: bench/check_neuron_profile.py PROFILE.json REPORT.json [TOLERANCE_PCT]

Reads the profile with the json module (no code of perfgate's): per engine, the sum of its
`active_time` rows' duration_ns and the summary's <engine>_engine_active_time (seconds); reads
perfgate's JSON report (`perfgate analyze PROFILE.json --json REPORT.json`): the engines table's
active_us. Prints the three per engine and exits 1 when perfgate's value is not the rows' sum
(within 1 ns) or the rows' sum is more than TOLERANCE_PCT (default 3) away from the summary's.
"""
import json
import sys

ENGINES = ["tensor", "vector", "scalar", "gpsimd", "sync"]


def engine_of(name):
    name = name.lower()
    for e in ENGINES:
        if name.startswith(e):
            return e
    return "other"


def main():
    profile = json.load(open(sys.argv[1]))
    report = json.load(open(sys.argv[2]))
    tolerance = float(sys.argv[3]) if len(sys.argv) > 3 else 3.0
    rows = {}
    for r in profile.get("active_time", []):
        e = engine_of(r["engine"])
        rows[e] = rows.get(e, 0) + int(r["duration_ns"])
    summary = profile["summary"][0]
    table = report["workers"][0]["tables"]["neuron_engines"]
    names = [c["name"] for c in table["columns"]]
    perfgate = {row[names.index("engine")]: row[names.index("active_us")] for row in table["rows"]}
    ok = True
    print(f"{'engine':8} {'active_time rows ns':>20} {'summary ns':>14} {'diff %':>8} {'perfgate ns':>12}")
    for e in ENGINES:
        if e not in rows:
            continue
        summed = rows[e]
        stated = summary.get(e + "_engine_active_time")
        stated_ns = stated * 1e9 if stated is not None else None
        diff = 100.0 * (summed - stated_ns) / stated_ns if stated_ns else None
        ours = perfgate.get(e)
        ours_ns = ours * 1000.0 if ours is not None else None
        print(f"{e:8} {summed:20d} {stated_ns if stated_ns is not None else float('nan'):14.1f} "
              f"{diff if diff is not None else float('nan'):8.3f} "
              f"{ours_ns if ours_ns is not None else float('nan'):12.1f}")
        if ours_ns is None or abs(ours_ns - summed) > 1:
            ok = False
        if diff is not None and abs(diff) > tolerance:
            ok = False
    print("ok" if ok else "MISMATCH")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
