#!/usr/bin/env python3
"""An independent check of perfgate's Neuron numbers (issues 39 and 54), in plain Python.

Usage: bench/check_neuron_profile.py PROFILE.json REPORT.json [TOLERANCE_PCT]

Reads the profile with the json module (no code of perfgate's) and perfgate's JSON report
(`perfgate analyze PROFILE.json --json REPORT.json`), and compares:
- per engine, the sum of its `active_time` rows' duration_ns with the engines table's active_us,
  and with the summary's <engine>_engine_active_time (within TOLERANCE_PCT, default 3);
- `instruction_usage` (issue 54): each row's time from the device timeline's start (the first
  instruction or DMA row), its length (to the next row of its type; the last to the timeline's
  end), usage_avg and each partition or bank, with the neuron_buffers table; the SBUF and PSUM
  peak and time-weighted mean with neuron.{sbuf,psum}.{peak,mean}_pct;
- `nc_mem_usage` (issue 54): each row's bytes and share of its core's Total with the neuron_memory
  table, the Total rows' sum with neuron.device_memory_bytes;
- the longest semaphore wait an engine row starts before its first other instruction with
  neuron.leading_wait_us.
Prints what it compared and exits 1 on any mismatch.
"""
import json
import sys

ENGINES = ["tensor", "vector", "scalar", "gpsimd", "sync"]
PROBLEMS = []


def engine_of(name):
    name = name.lower()
    for e in ENGINES:
        if name.startswith(e):
            return e
    return "other"


def close(a, b, what, tolerance=1e-6):
    if a is None or b is None:
        ok = a is None and b is None
    else:
        ok = abs(a - b) <= tolerance * max(1.0, abs(a), abs(b))
    if not ok:
        PROBLEMS.append(f"{what}: profile {a}, perfgate {b}")


def table(report, name):
    t = report["workers"][0]["tables"][name]
    names = [c["name"] for c in t["columns"]]
    return [dict(zip(names, row)) for row in t["rows"]]


def check_engines(profile, report, tolerance):
    rows = {}
    for r in profile.get("active_time", []):
        e = engine_of(r["engine"])
        rows[e] = rows.get(e, 0) + int(r["duration_ns"])
    summary = profile["summary"][0]
    perfgate = {r["engine"]: r["active_us"] for r in table(report, "neuron_engines")}
    print(f"{'engine':8} {'active_time rows ns':>20} {'summary ns':>14} {'diff %':>8} {'perfgate ns':>12}")
    for e in ENGINES:
        if e not in rows:
            continue
        stated = summary.get(e + "_engine_active_time")
        stated_ns = stated * 1e9 if stated is not None else None
        diff = 100.0 * (rows[e] - stated_ns) / stated_ns if stated_ns else None
        ours = perfgate.get(e)
        ours_ns = ours * 1000.0 if ours is not None else None
        print(f"{e:8} {rows[e]:20d} {stated_ns or float('nan'):14.1f} {diff if diff is not None else float('nan'):8.3f} "
              f"{ours_ns if ours_ns is not None else float('nan'):12.1f}")
        if ours_ns is None or abs(ours_ns - rows[e]) > 1:
            PROBLEMS.append(f"{e}: active_time rows {rows[e]} ns, perfgate {ours_ns}")
        if diff is not None and abs(diff) > tolerance:
            PROBLEMS.append(f"{e}: active_time rows {diff:.2f}% from the summary")


def span(profile):
    starts = [int(r["timestamp"]) for r in profile.get("instruction", []) + profile.get("dma", [])]
    ends = [int(r["timestamp"]) + int(r["duration"]) for r in profile.get("instruction", []) + profile.get("dma", [])]
    return (min(starts), max(ends)) if starts else (None, None)


def check_buffers(profile, report, metrics):
    samples = sorted((r for r in profile.get("instruction_usage", []) if r.get("type") in ("sb", "psum")),
                     key=lambda r: int(r["timestamp"]))
    first, last = span(profile)
    origin = first if first is not None else (int(samples[0]["timestamp"]) if samples else 0)
    durations = []
    for i, r in enumerate(samples):
        later = [int(s["timestamp"]) for s in samples[i + 1:] if s["type"] == r["type"]]
        end = later[0] if later else (max(last, int(r["timestamp"])) if last is not None else int(r["timestamp"]))
        durations.append(end - int(r["timestamp"]))
    ours = table(report, "neuron_buffers")
    if len(ours) != len(samples):
        PROBLEMS.append(f"instruction_usage: {len(samples)} rows, perfgate {len(ours)}")
        return
    for i, (r, o, d) in enumerate(zip(samples, ours, durations)):
        close((int(r["timestamp"]) - origin) / 1000.0, o["start_us"], f"instruction_usage row {i} start")
        close(d / 1000.0, o["duration_us"], f"instruction_usage row {i} duration")
        close(r["usage_avg"] * 100, o["usage_pct"], f"instruction_usage row {i} usage_avg")
        if o["buffer"] != {"sb": "SBUF", "psum": "PSUM"}[r["type"]]:
            PROBLEMS.append(f"instruction_usage row {i}: type {r['type']}, perfgate {o['buffer']}")
        for key, value in r.items():
            if key.endswith("_usage"):
                close(value * 100, o[key[:-len("_usage")] + "_pct"], f"instruction_usage row {i} {key}")
    for kind, name in (("sb", "sbuf"), ("psum", "psum")):
        rows = [(r["usage_avg"] * 100, d) for r, d in zip(samples, durations) if r["type"] == kind]
        peak = max(u for u, _ in rows) if rows else None
        time = sum(d for _, d in rows)
        mean = (sum(u * d for u, d in rows) / time if time else sum(u for u, _ in rows) / len(rows)) if rows else None
        close(peak, metrics.get(f"neuron.{name}.peak_pct"), f"{name} peak")
        close(mean, metrics.get(f"neuron.{name}.mean_pct"), f"{name} mean")
        print(f"{name}: {len(rows)} rows, peak {peak}%, time-weighted mean {mean}%")


def check_memory(profile, report, metrics):
    uses = profile.get("nc_mem_usage", [])
    totals = {(int(r["nd"]), int(r["nc"])): int(r["amount_bytes"]) for r in uses if r["usage_type"] == "Total"}
    ours = {(o["device"], o["core"], o["use"]): o for o in table(report, "neuron_memory")}
    if len(ours) != len(uses):
        PROBLEMS.append(f"nc_mem_usage: {len(uses)} rows, perfgate {len(ours)}")
    for r in uses:
        key = (int(r["nd"]), int(r["nc"]), r["usage_type"])
        o = ours.get(key)
        if o is None:
            PROBLEMS.append(f"nc_mem_usage {key}: not in perfgate's table")
            continue
        close(float(r["amount_bytes"]), o["bytes"], f"nc_mem_usage {key} bytes")
        total = totals.get(key[:2])
        close(100.0 * int(r["amount_bytes"]) / total if total else None, o["share_pct"], f"nc_mem_usage {key} share")
    device = float(sum(totals.values())) if totals else (float(sum(int(r["amount_bytes"]) for r in uses)) if uses else None)
    close(device, metrics.get("neuron.device_memory_bytes"), "device memory")
    print(f"nc_mem_usage: {len(uses)} rows, Total {device} bytes")


def check_leading_wait(profile, metrics):
    first_work, waits = {}, []
    for r in profile.get("instruction", []):
        lane = r.get("label") or r.get("subgroup") or "(no engine)"
        start = int(r["timestamp"])
        if str(r.get("opcode", "")).startswith("EVENT_SEMAPHORE"):
            waits.append((lane, start, int(r["duration"])))
        else:
            first_work[lane] = min(first_work.get(lane, start), start)
    leading = [d for lane, start, d in waits if lane not in first_work or start < first_work[lane]]
    close(max(leading) / 1000.0 if leading else None, metrics.get("neuron.leading_wait_us"), "leading wait")
    print(f"leading semaphore wait: {max(leading) if leading else None} ns")


def main():
    profile = json.load(open(sys.argv[1]))
    report = json.load(open(sys.argv[2]))
    tolerance = float(sys.argv[3]) if len(sys.argv) > 3 else 3.0
    metrics = report["workers"][0]["metrics"]
    check_engines(profile, report, tolerance)
    check_buffers(profile, report, metrics)
    check_memory(profile, report, metrics)
    check_leading_wait(profile, metrics)
    for p in PROBLEMS:
        print("MISMATCH:", p)
    print("ok" if not PROBLEMS else "MISMATCH")
    sys.exit(0 if not PROBLEMS else 1)


if __name__ == "__main__":
    main()
