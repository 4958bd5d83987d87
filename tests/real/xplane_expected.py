#!/usr/bin/env python3
"""Expected values for tests/real/xplane_real_test.cpp (issue 59): `python3 tests/real/xplane_expected.py FILE.xplane.pb`.
Per GPU plane: kernel and copy counts, busy (union) time, span, idle; kernel time per XLA op (hlo_op)."""
import sys, collections
sys.path.insert(0, __import__('os').path.dirname(__file__))
from xplane_dump import space, statval, union

planes = space(sys.argv[1])
for pi, p in enumerate(planes):
    if not p['name'].startswith('/device:'): continue
    k = []; c = []; per_op = collections.Counter(); per_op_n = collections.Counter(); per_module = collections.Counter()
    for l in p['lines']:
        for e in l['events']:
            s = l['ts'] * 1000 + e['off']; en = s + e['dur']
            name = p['emd'][e['md']]['name']
            st = {p['smd'].get(x['id']): statval(p, x) for x in e['stats']}
            if not (l['name'].startswith('Stream #') or l['name'] == 'XLA Ops'): continue
            is_copy = 'memcpy_details' in st or 'Memset_details' in st or 'memset_details' in st
            (c if is_copy else k).append((s, en))
            if not is_copy:
                per_op[st.get('hlo_op', name)] += e['dur']; per_op_n[st.get('hlo_op', name)] += 1
                per_module[st.get('hlo_module', '')] += e['dur']
    allv = k + c
    if not allv: continue
    span = max(e for _, e in allv) - min(s for s, _ in allv)
    print(f"plane#{pi} {p['name']}: kernels={len(k)} copies={len(c)} kernel_sum_ps={sum(e-s for s,e in k)} "
          f"kernel_union_ms={union(k)/1e9:.6f} copy_union_ms={union(c)/1e9:.6f} busy_ms={union(allv)/1e9:.6f} "
          f"span_ms={span/1e9:.6f} idle_ms={(span-union(allv))/1e9:.6f}")
    for op, t in per_op.most_common(): print(f"   hlo_op {op}: n={per_op_n[op]} time_us={t/1e6:.3f}")
    for m, t in per_module.most_common(): print(f"   hlo_module {m!r}: time_us={t/1e6:.3f}")
