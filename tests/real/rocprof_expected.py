#!/usr/bin/env python3
"""Expected values for tests/load/rocprof_reader_test.cpp (issue 59): `python3 tests/real/rocprof_expected.py FILE.json.gz`.
Independent summary of a rocprofv3 --output-format json file (rocprofiler-sdk-tool): dispatches,
symbols, per-agent kernel count, summed kernel time and busy (union) time, in ns."""
import sys, json, gzip, collections
path = sys.argv[1]
d = json.load(gzip.open(path) if path.endswith('.gz') else open(path))['rocprofiler-sdk-tool'][0]
kd = d['buffer_records']['kernel_dispatch']
print('dispatches', len(kd), 'symbols', len(d['kernel_symbols']))
for k in ['hip_api', 'memory_copy', 'rccl_api', 'marker_api']:
    print(k, len(d['buffer_records'].get(k, [])))
agents = {a['id']['handle']: a for a in d['agents']}
per = collections.defaultdict(list)
for r in kd:
    per[r['dispatch_info']['agent_id']['handle']].append((r['start_timestamp'], r['end_timestamp']))
def union(iv):
    iv.sort(); tot = 0; cs = ce = None
    for s, e in iv:
        if ce is None or s > ce:
            if ce is not None: tot += ce - cs
            cs, ce = s, e
        else: ce = max(ce, e)
    return tot + (ce - cs if ce is not None else 0)
tot_sum = 0
for h, iv in sorted(per.items()):
    a = agents[h]
    s = sum(e - b for b, e in iv); tot_sum += s
    print(f"agent {h} node {a['node_id']} logical_node_type_id {a['logical_node_type_id']} {a['product_name']} {a['name']}: "
          f"dispatches={len(iv)} kernel_sum_ns={s} busy_ns={union(list(iv))} span_ns={max(e for _,e in iv)-min(b for b,_ in iv)}")
print('total kernel_sum_ns', tot_sum)
names = {k['kernel_id']: k['formatted_kernel_name'] for k in d['kernel_symbols']}
by = collections.Counter(); n = collections.Counter()
for r in kd:
    nm = names.get(r['dispatch_info']['kernel_id'], '?'); by[nm] += r['end_timestamp'] - r['start_timestamp']; n[nm] += 1
for nm, t in by.most_common(5): print(f"  {t} ns {n[nm]}x {nm[:100]}")
print('distinct queues', len({(r['dispatch_info']['agent_id']['handle'], r['dispatch_info']['queue_id']['handle']) for r in kd}))
print('bad', sum(1 for r in kd if r['end_timestamp'] < r['start_timestamp']))
