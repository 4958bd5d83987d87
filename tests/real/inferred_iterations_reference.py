# The selection rule of inferred iterations, applied to the qualifying families found by validate_on_steps-like
# scanning (no perfgate code): class = qualifying families whose occurrence count is at most the fewest + 1 and whose
# mean period (last start - first start) / (count - 1) is within 10% of the coarsest's; within it, user annotations
# before ops, then the family name (byte order).
import json, gzip, sys, re, collections, bisect, statistics as st, sqlite3
def norm(n): return re.sub(r'\d+', '#', n or '')
def families_kineto(p):
    t = json.load(gzip.open(p) if p.endswith('.gz') else open(p)); ev = t['traceEvents'] if isinstance(t, dict) else t
    steps = [float(e['dur']) / 1e3 for e in ev if e.get('ph') == 'X' and re.fullmatch(r'ProfilerStep#\d+', e.get('name', '')) and e.get('cat') in ('user_annotation', 'Operator', 'cpu_op')]
    host = [(e['pid'], e['tid'], float(e['ts']), float(e.get('dur', 0)), e['name'], 'annotation' if e['cat'] == 'user_annotation' else 'op')
            for e in ev if e.get('ph') == 'X' and e.get('cat') in ('cpu_op', 'user_annotation', 'Operator') and not re.fullmatch(r'ProfilerStep#\d+', e.get('name', ''))]
    gpu = [e for e in ev if e.get('ph') == 'X' and e.get('cat') in ('kernel', 'gpu_memcpy', 'gpu_memset', 'Kernel', 'Memcpy', 'Memset')]
    corr = set((e.get('args') or {}).get('correlation') for e in gpu)
    launches = collections.defaultdict(list)
    for r in ev:
        if r.get('ph') == 'X' and r.get('cat') in ('cuda_runtime', 'cuda_driver', 'Runtime') and (r.get('args') or {}).get('correlation') in corr:
            launches[(r['pid'], r['tid'])].append(float(r['ts']))
    return [(pid, tid, s, s + d, n, k) for pid, tid, s, d, n, k in host], launches, steps, 1e3
def families_nsys(p):
    db = sqlite3.connect(p)
    if not db.execute("select count(*) from sqlite_master where name='NVTX_EVENTS'").fetchone()[0]: return [], {}, [], 1e6
    rows = db.execute("""select n.globalTid, n.start, n.end, coalesce(n.text, s.value) from NVTX_EVENTS n
        left join StringIds s on s.id = n.textId where n.eventType = 59 and n.end is not null""").fetchall()
    host = []
    for tid, s, e, t in rows:
        kind = 'op' if re.search(r', (seq|op_id) = \d+', t or '') else 'annotation'
        host.append((tid >> 24, tid, s, e, re.sub(r', (seq|op_id) = .*$', '', t or ''), kind))
    launches = collections.defaultdict(list)
    for tid, s in db.execute("""select r.globalTid, r.start from CUPTI_ACTIVITY_KIND_RUNTIME r join
        (select correlationId, globalPid from CUPTI_ACTIVITY_KIND_KERNEL union all select correlationId, globalPid from CUPTI_ACTIVITY_KIND_MEMCPY
         union all select correlationId, globalPid from CUPTI_ACTIVITY_KIND_MEMSET) k
        on k.correlationId = r.correlationId and k.globalPid = (r.globalTid & ~0xFFFFFF)"""):
        launches[(tid >> 24, tid)].append(s)
    for v in launches.values(): v.sort()
    return host, launches, [], 1e6
def longest_uniform_run(counts):
    """The longest run of consecutive units whose work lies within 5% of the run's median (median > 0); earliest on ties."""
    best = None
    for i in range(len(counts)):
        for j in range(len(counts), i, -1):
            if best and j - i <= best[1] - best[0]: break
            med = st.median(counts[i:j])
            if med > 0 and all(abs(c - med) <= 0.05 * med for c in counts[i:j]):
                best = (i, j); break
    return best
def infer(host, launches, scale):
    by = collections.defaultdict(list)
    for pid, tid, s, e, n, k in host: by[(pid, tid)].append((s, -e, n, k))
    quals = []
    for key, lst in by.items():
        lst.sort(); top = []; end = None
        for s, ne, n, k in lst:
            if end is not None and s < end: continue
            end = -ne; top.append((s, -ne, norm(n), k, n))
        span = top[-1][1] - top[0][0]; fam = collections.defaultdict(list)
        for s, e, n, k, raw in top: fam[(n, k)].append((s, raw))
        L = launches.get(key, [])
        for (n, k), occ in fam.items():
            starts = [s for s, _ in occ]
            if len(starts) < 4: continue
            units = list(zip(starts, starts[1:]))
            counts = [bisect.bisect_left(L, b) - bisect.bisect_left(L, a) for a, b in units]
            run = longest_uniform_run(counts)
            if not run: continue
            i0, i1 = run
            if i1 - i0 < 3 or not span or (units[i1 - 1][1] - units[i0][0]) / span < 0.5: continue
            quals.append(dict(thread=key, family=n, kind=k, count=i1 - i0, period=(units[i1 - 1][1] - units[i0][0]) / (i1 - i0),
                              units=[(occ[i][1], (units[i][1] - units[i][0]) / scale) for i in range(i0, i1)],
                              per_unit=st.median(counts[i0:i1]), set_aside=len(units) - (i1 - i0)))
    return quals
def choose(quals):
    if not quals: return None
    fewest = min(q['count'] for q in quals)
    coarsest = max((q for q in quals if q['count'] == fewest), key=lambda q: q['period'])
    cls = [q for q in quals if q['count'] <= fewest + 1 and abs(q['period'] - coarsest['period']) <= 0.1 * coarsest['period']]
    cls.sort(key=lambda q: (q['kind'] != 'annotation', q['family'].encode(), str(q['thread'])))
    return cls[0], cls
if __name__ == '__main__':
    for p in sys.argv[1:]:
        host, launches, steps, scale = (families_nsys if p.endswith('.sqlite') else families_kineto)(p)
        per_pid = collections.defaultdict(list)
        for h in host: per_pid[h[0]].append(h)
        for pid, hs in sorted(per_pid.items()):
            r = choose(infer(hs, {k: v for k, v in launches.items() if k[0] == pid}, scale))
            if not r: print('%-42s pid %s: none' % (p.split('/')[-1], pid)); continue
            q, cls = r
            d = [u for _, u in q['units']]
            print('%-42s pid %s: %s [%s] units %d (set aside %d) median %.3f ms mean %.3f ms gpu/unit %d class %d%s' % (
                p.split('/')[-1], pid, q['family'][:60], q['kind'], len(d), q['set_aside'], st.median(d), st.mean(d), q['per_unit'], len(cls),
                ('; real steps %d median %.3f ms (%+.1f%%)' % (len(steps), st.median(steps), 100 * (st.median(d) / st.median(steps) - 1))) if steps else ''))
