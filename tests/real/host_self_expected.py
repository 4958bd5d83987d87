#!/usr/bin/env python3
"""Independent host self time per op name (tests/real/host_self_real_test.cpp), no perfgate code: the
TB plugin's tree for a Kineto trace (ranges nested by time on each thread, a runtime call under the
innermost range), self = duration - the direct children's durations; for an XSpace (--xspace), the
host plane's lines nested the same way. Usage: host_self_expected.py TRACE [OP ...] |
host_self_expected.py TRACE --compare REPORT.json | host_self_expected.py --xspace FILE [OP ...]"""
import json, gzip, sys, collections
if sys.argv[1] == '--xspace':
    sys.path.insert(0, __file__.rsplit('/', 1)[0])
    from xplane_dump import space
    total = collections.Counter(); selfs = collections.Counter()
    for p in space(sys.argv[2]):
        if not p['name'].startswith('/host'): continue
        for l in p['lines']:
            # Times in ps: the line's start in ns, its events' offsets in ps.
            es = sorted(((l['ts'] * 1000 + e['off'], l['ts'] * 1000 + e['off'] + e['dur'],
                          p['emd'].get(e['md'], {}).get('name', '')) for e in l['events']),
                        key=lambda x: (x[0], -x[1]))
            stack = []
            for s, f, n in es:
                while stack and not (stack[-1][0] <= s and f <= stack[-1][1]): stack.pop()
                if stack: selfs[stack[-1][2]] -= f - s
                total[n] += f - s; selfs[n] += f - s
                stack.append((s, f, n))
    for n in sys.argv[3:]: print(n, total[n] / 1e6, selfs[n] / 1e6)  # us
    print('negative', [(n, v / 1e6) for n, v in selfs.items() if v < 0][:5])
    sys.exit(0)
d = json.load(gzip.open(sys.argv[1]))
ev = [e for e in d['traceEvents'] if e.get('ph') == 'X' and e.get('cat') in
      ('cpu_op', 'user_annotation', 'cuda_runtime', 'cuda_driver', 'python_function', 'Runtime', 'Operator')]
by_thread = collections.defaultdict(list)
for e in ev: by_thread[(e['pid'], e['tid'])].append(e)
total = collections.Counter(); selfs = collections.Counter()
for t, es in by_thread.items():
    # Ranges before runtime calls at the same start, longer first.
    es.sort(key=lambda e: (e['ts'], e['cat'] in ('cuda_runtime', 'cuda_driver', 'Runtime'), -e['dur']))
    stack = []
    for e in es:
        s, f = e['ts'], e['ts'] + e['dur']
        while stack and not (stack[-1]['ts'] <= s and f <= stack[-1]['ts'] + stack[-1]['dur']): stack.pop()
        if stack and stack[-1]['cat'] in ('cpu_op', 'Operator'): selfs[stack[-1]['name']] -= e['dur']
        if e['cat'] in ('cpu_op', 'Operator'):
            total[e['name']] += e['dur']; selfs[e['name']] += e['dur']
        if e['cat'] not in ('cuda_runtime', 'cuda_driver', 'Runtime'): stack.append(e)
for n in sys.argv[2:] if sys.argv[2:3] != ['--compare'] else []: print(n, round(total[n], 3), round(selfs[n], 3))
print('negative', [(n, v) for n, v in selfs.items() if v < -1e-6][:5])
if len(sys.argv) > 2 and sys.argv[2] == '--compare':
    r = json.load(open(sys.argv[3])); t = r['workers'][0]['tables']['ops']
    cols = [c['name'] for c in t['columns']]; i = cols.index('host_self_us')
    bad = [(row[0], row[i], selfs[row[0]]) for row in t['rows'] if row[0] in total and abs(row[i] - selfs[row[0]]) > 0.01]
    print('rows', len(t['rows']), 'differ', len(bad), bad[:5])
