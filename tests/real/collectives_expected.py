#!/usr/bin/env python3
# Expected values of tests/real/collectives_real_test.cpp, from the traces' JSON alone (no perfgate
# code): the 128-rank sample's outermost nccl:/c10d:: ops with the kernels their runtime calls
# launched, matched across its 2 ranks by (type, ProfilerStep number, order of host start).
# Issue 40: calls paired so are one collective only when their spans overlap within the 1 ms
# clock-skew bound and, for all_reduce and all_gather, their sizes (Input Dims x element size) agree;
# the others are unmatched and add nothing.
# Usage: collectives_expected.py rank-0.json.gz rank-1.json.gz
import json, gzip, re, collections, sys
def load(path):
    d = json.load(gzip.open(path)); ev = d['traceEvents']
    steps = sorted([(e['ts'], e['ts']+e['dur'], int(e['name'].split('#')[1])) for e in ev if e.get('name','').startswith('ProfilerStep#')])
    rt = {e['args']['correlation']: e for e in ev if e.get('cat') in ('cuda_runtime','cuda_driver') and 'correlation' in e.get('args',{})}
    ops = [e for e in ev if e.get('cat') in ('cpu_op','user_annotation') and re.match(r'^(nccl|gloo):|^c10d::', e['name'])]
    outer = [o for o in ops if not any(p is not o and p['tid']==o['tid'] and p['ts']<=o['ts'] and o['ts']+o['dur']<=p['ts']+p['dur'] for p in ops)]
    kernels = [e for e in ev if e.get('cat')=='kernel']
    calls = []
    for o in outer:
        ks = [k for k in kernels if (r:=rt.get(k['args'].get('correlation'))) and r['tid']==o['tid'] and o['ts']<=r['ts']<=o['ts']+o['dur']]
        step = None
        for s0,s1,n in steps:
            if s0 <= o['ts']: step = n
        t = re.sub('[^a-z]','',o['name'].lower())
        typ = 'all_reduce' if 'allreduce' in t else 'all_gather' if 'allgather' in t else 'all_to_all' if 'alltoall' in t else t
        if ks:
            st = min(k['ts'] for k in ks); en = max(k['ts']+k['dur'] for k in ks)
            # the size: the first op of the call (itself or one inside) whose first input has dims
            inner = [p for p in ops if p['tid']==o['tid'] and o['ts']<=p['ts']<=o['ts']+o['dur'] and (p['args'].get('Input Dims') or [[]])[0]]
            size = 0
            if inner:
                p = min(inner, key=lambda p: p['ts']); n = 1
                for v in p['args']['Input Dims'][0]: n *= v
                size = n * {'float': 4, 'int': 4, 'long': 8, 'unsigned char': 1, 'signed char': 1}.get(p['args']['Input type'][0], 0)
            calls.append((typ, step, o['ts'], st, en-st, o['name'], size))
    calls.sort()
    idx = collections.Counter(); out = {}
    for typ, step, ts, st, dur, name, size in calls:
        key=(typ, step, idx[(typ,step)]); idx[(typ,step)]+=1
        out[key]=(st,dur,name,size)
    return out
a = load(sys.argv[1]); b = load(sys.argv[2])
wait=[0,0]; dur=[0,0]; matched=0; last=[0,0]; delay=[0,0]; disjoint=0; sizes=0
for k in sorted(set(a)|set(b)):
    if k in a and k in b:
        (sa,da,_,za),(sb,db,_,zb) = a[k], b[k]
        if k[0] != 'all_to_all' and za != zb:
            sizes += 1; print(k, 'sizes differ', za, zb); continue
        if max(sa,sb) > min(sa+da, sb+db) + 1000:
            disjoint += 1; print(k, 'disjoint'); continue
        matched+=1
        m=min(da,db); wait[0]+=da-m; wait[1]+=db-m; dur[0]+=da; dur[1]+=db
        if sa!=sb:
            i = 0 if sa>sb else 1; last[i]+=1; delay[i]+=abs(sa-sb)
        print(k, a[k][1], b[k][1], 'starts', sa, sb)
    else:
        print(k, 'only', 'rank0' if k in a else 'rank1')
print('sizes differ', sizes, 'disjoint', disjoint, 'matched', matched, 'wait', wait, 'dur', dur, 'wait_pct', 100*sum(wait)/sum(dur), 'last', last, 'delay', delay)
