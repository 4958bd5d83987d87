# Usage: python3 tests/real/issue56_inferred_expected.py ../shared/traces/nsys/h100x2_fsdp_training_{before,after}.sqlite
# Run-level inferred units of an nsys export, by research/56/choose_family.py's definition: per
# process (worker) the chosen family's units; the run's unit k = the slowest worker's unit k.
import sys, statistics as st, collections
sys.path.insert(0, __import__('os').path.dirname(__file__))
import inferred_iterations_reference as cf
for p in sys.argv[1:]:
    host, launches, steps, scale = cf.families_nsys(p)
    per_pid = collections.defaultdict(list)
    for h in host: per_pid[h[0]].append(h)
    chosen = []
    for pid, hs in sorted(per_pid.items()):
        r = cf.choose(cf.infer(hs, {k: v for k, v in launches.items() if k[0] == pid}, scale))
        chosen.append(r[0] if r else None)
    fams = {(q['family'], q['kind']) for q in chosen if q}
    print(p.split('/')[-1], [ (q['family'], q['kind'], len(q['units']), q['set_aside'], q['per_unit']) for q in chosen])
    if len(fams) == 1 and all(chosen):
        n = min(len(q['units']) for q in chosen)
        run = [max(q['units'][i][1] for q in chosen) for i in range(n)]
        print('  run units', n, 'median %.6f ms mean %.6f' % (st.median(run), st.mean(run)))
        print('  ', ' '.join('%.6f' % u for u in run))
