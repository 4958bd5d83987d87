#!/usr/bin/env python3
"""Issue 95, item 2: the work inside each matched inferred unit of the FSDP pair, computed from the
nsys SQLite exports alone (no perfgate code), to check the per-unit change tables against.

A unit is one `FSDP::post_forward (blocks.N._checkpoint_wrapped_module)` NVTX range's start to the
next one's on the same thread (perfgate's inferred unit, docs/metrics.md "Inferred iterations"); its
work is the kernels launched by runtime calls that start inside it on that thread (joined by
correlationId). Units are matched by their block name in both runs and both processes; the script
prints, per kernel name, the time a matched unit in each run (summed over the matched units and the
processes, over the matched units' count), next to each run's window total over its unit count,
and the GPU idle time a matched unit: the unit's span less each of its process's GPUs' busy time in
it (the union of their kernels, copies and sets), summed over those GPUs and the processes.

usage: fsdp_unit_work.py BEFORE.sqlite AFTER.sqlite [--units-json REPORT.json] [--json OUT]
`--units-json`: a perfgate JSON report of the pair whose inferred_iterations.unit_names are the
units to take (perfgate keeps the qualifying run of like units); without it every unit but the last
occurrence of each thread (which has no next start) is taken.
"""
import argparse
import json
import re
import sqlite3
from collections import defaultdict

FAMILY = re.compile(r"^(FSDP::post_forward \(blocks\.\d+\._checkpoint_wrapped_module\))(, op_id = \d+)?$")


def read(path):
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    strings = dict(db.execute("select id, value from StringIds"))
    ranges = defaultdict(list)  # thread -> [(start, name)]
    for start, text, tid in db.execute("select start, text, globalTid from NVTX_EVENTS where text is not null"):
        m = FAMILY.match(text)
        if m:
            ranges[tid].append((start, m.group(1)))
    kernels = {}  # (pid, correlationId) -> [(name, duration ns)]
    window = defaultdict(float)
    for start, end, pid, corr, name in db.execute(
            "select start, end, globalPid, correlationId, demangledName from CUPTI_ACTIVITY_KIND_KERNEL"):
        n = strings.get(name, str(name))
        kernels.setdefault((pid, corr), []).append((n, end - start))
        window[n] += end - start
    tables = {r[0] for r in db.execute("select name from sqlite_master where type = 'table'")}
    busy = defaultdict(list)  # (process, device) -> its activities' union
    for table in ("CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET"):
        if table in tables:
            for start, end, pid, device in db.execute(f"select start, end, globalPid, deviceId from {table}"):
                busy[(pid, device)].append([start, end])
    for intervals in busy.values():
        intervals.sort()
        merged = []
        for start, end in intervals:
            if merged and start <= merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], end)
            else:
                merged.append([start, end])
        intervals[:] = merged
    idle = defaultdict(float)  # identity -> ns, over the processes and their GPUs
    launches = defaultdict(list)  # thread -> [(start, correlationId)]
    for start, tid, corr in db.execute("select start, globalTid, correlationId from CUPTI_ACTIVITY_KIND_RUNTIME"):
        launches[tid].append((start, corr))
    units = defaultdict(lambda: defaultdict(float))  # identity -> kernel -> ns, over the processes
    processes_with = defaultdict(int)
    for tid, opens in ranges.items():
        opens.sort()
        pid = tid // 0x1000000 * 0x1000000
        seen = defaultdict(int)
        calls = sorted(launches[tid])
        for (start, name), (end, _) in zip(opens, opens[1:]):
            seen[name] += 1
            identity = name if seen[name] == 1 else f"{name} ({seen[name]})"
            processes_with[identity] += 1
            for (process, _), intervals in busy.items():
                if process == pid:
                    inside = sum(min(e, end) - max(s, start) for s, e in intervals if s < end and e > start)
                    idle[identity] += (end - start) - inside
            for t, corr in calls:
                if start <= t < end:
                    for kname, ns in kernels.get((pid, corr), []):
                        units[identity][kname] += ns
    return units, processes_with, window, len(ranges), idle


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("before")
    ap.add_argument("after")
    ap.add_argument("--units-json")
    ap.add_argument("--json")
    a = ap.parse_args()
    before, after = read(a.before), read(a.after)
    kept_after = kept_before = None
    if a.units_json:
        r = json.load(open(a.units_json))
        kept_after = set(r["inferred_iterations"]["unit_names"])
        kept_before = set(r["baseline"]["inferred_iterations"]["unit_names"])
    def units_of(run, kept):
        units, procs, _, threads, _ = run
        return {u for u in units if procs[u] == threads and (kept is None or u in kept)} | \
               {u for u in procs if procs[u] == threads and (kept is None or u in kept)}
    ub, ua = units_of(before, kept_before), units_of(after, kept_after)
    matched = sorted(ub & ua)
    out = {"matched_units": matched, "before_units": len(ub), "after_units": len(ua), "kernels": {}}
    names = set()
    for u in matched:
        names |= set(before[0][u]) | set(after[0][u])
    for n in sorted(names):
        b = sum(before[0][u].get(n, 0) for u in matched) / len(matched) / 1e3
        f = sum(after[0][u].get(n, 0) for u in matched) / len(matched) / 1e3
        out["kernels"][n] = {"matched_before_us_per_unit": b, "matched_after_us_per_unit": f,
                             "window_before_us_per_unit": before[2].get(n, 0) / len(ub) / 1e3,
                             "window_after_us_per_unit": after[2].get(n, 0) / len(ua) / 1e3}
    tot = lambda k: sum(v[k] for v in out["kernels"].values())
    out["totals"] = {k: tot(k) for k in ["matched_before_us_per_unit", "matched_after_us_per_unit",
                                         "window_before_us_per_unit", "window_after_us_per_unit"]}
    out["totals"]["window_before_us_per_unit"] = sum(before[2].values()) / len(ub) / 1e3
    out["totals"]["window_after_us_per_unit"] = sum(after[2].values()) / len(ua) / 1e3
    out["gpu_idle"] = {"matched_before_us_per_unit": sum(before[4][u] for u in matched) / len(matched) / 1e3,
                       "matched_after_us_per_unit": sum(after[4][u] for u in matched) / len(matched) / 1e3}
    if a.json:
        json.dump(out, open(a.json, "w"), indent=1)
    print(f"units: {len(ub)} before, {len(ua)} after, {len(matched)} matched")
    for k, v in out["totals"].items():
        print(f"  all kernels, {k}: {v:.3f}")
    for k, v in out["gpu_idle"].items():
        print(f"  GPU idle, {k}: {v:.3f}")
    top = sorted(out["kernels"].items(), key=lambda kv: -abs(kv[1]["matched_after_us_per_unit"] -
                                                             kv[1]["matched_before_us_per_unit"]))[:5]
    for n, v in top:
        print(f"  {n[:70]}: matched {v['matched_before_us_per_unit']:.3f} -> {v['matched_after_us_per_unit']:.3f}"
              f" us a unit; window/units {v['window_before_us_per_unit']:.3f} -> {v['window_after_us_per_unit']:.3f}")


if __name__ == "__main__":
    main()
