#!/usr/bin/env python3
"""The TPU ops of an XSpace as op rows, worked out independently of perfgate (issue 91, item 1):
tests/real/tpu_real_test.cpp's expected values for its op tables.

Usage: tpu_ops_expected.py FILE.xplane.pb [PERFGATE_REPORT.json]

Each event of a TPU plane's "XLA Ops" line (protobuf wire format decoded by hand, xplane_dump.py) is one
call of an op named by its `tf_op` stat less what follows its last ':' (XProf's top ops group so), else
by its event metadata's display name; copy-starts are left out (a copy is its copy-done). An op's time
is its device_duration_ps (XProf's op time; the event's duration where it has none): a copy-done's is
the time the core waited for its transfer. FLOPs are the metadata's `model_flops` (else `flops`) per
call; MFU is their sum over 4 x the window x the v6e's 918 TFLOP/s. With a report, perfgate's ops table
(its ops with no host time of their own) and compute metrics are printed beside."""
import collections, json, os, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from xplane_dump import space, statval  # the wire format, decoded by hand

PEAK_FLOPS = 918e12  # TPU v6e, bf16 (rules/default.yaml's gpu_peaks)


def ops_of(path):
    rows = collections.defaultdict(lambda: {'calls': 0, 'ps': 0, 'flops': 0})
    tpus = 0
    for p in space(path):
        if not p['name'].startswith('/device:TPU:') or 'SparseCore' in p['name']:
            continue
        tpus += 1
        for line in p['lines']:
            if line['name'] != 'XLA Ops':
                continue
            for e in line['events']:
                md = p['emd'][e['md']]
                st = {p['smd'].get(s['id']): statval(p, s) for s in md['stats']}
                st.update({p['smd'].get(s['id']): statval(p, s) for s in e['stats']})
                if st.get('hlo_category') == 'copy-start':
                    continue
                tf_op = st.get('tf_op') or ''
                name = tf_op.rsplit(':', 1)[0] if ':' in tf_op else tf_op
                name = name or md['display_name'] or md['name']
                r = rows[name]
                r['calls'] += 1
                r['ps'] += st.get('device_duration_ps', e['dur'])
                flops = st.get('model_flops') or st.get('flops') or 0
                r['flops'] += flops
    return rows, tpus


def main(path, report=None):
    rows, tpus = ops_of(path)
    pg = json.load(open(report)) if report else None
    table = {}
    if pg:
        t = pg['workers'][0]['tables']['ops']
        cols = [c['name'] for c in t['columns']]
        table = {r[cols.index('name')]: dict(zip(cols, r)) for r in t['rows']}
    total_ps = sum(r['ps'] for r in rows.values())
    print('%-52s %6s %16s %7s %18s   perfgate: calls, device self us, flops' % (
        'op', 'calls', 'time (us)', 'share', 'FLOPs'))
    for name, r in sorted(rows.items(), key=lambda kv: -kv[1]['ps']):
        mine = table.get(name)
        theirs = '-' if not mine else '%d, %.3f, %s' % (mine['calls'], mine['device_self_us'], mine['flops'])
        print('%-52s %6d %16.3f %6.2f%% %18d   %s' % (name, r['calls'], r['ps'] / 1e6, 100 * r['ps'] / total_ps,
                                                    r['flops'], theirs))
    flops = sum(r['flops'] for r in rows.values())
    print('TPUs %d, op time %.6f s, FLOPs %d' % (tpus, total_ps / 1e12, flops))
    if pg:
        wall = pg['metrics']['window.wall_us'] / 1e6
        mfu = 100 * flops / (tpus * wall * PEAK_FLOPS)
        print('window %.6f s: MFU %.6f%%; perfgate compute.flops %s, compute.mfu_pct %s' % (
            wall, mfu, pg['metrics'].get('compute.flops'), pg['metrics'].get('compute.mfu_pct')))
    return 0


if __name__ == '__main__':
    if len(sys.argv) < 2 or not os.path.exists(sys.argv[1]):
        print('skipped: no XSpace given or it is absent')
        sys.exit(0)
    sys.exit(main(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else None))
