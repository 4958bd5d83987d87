#!/usr/bin/env python3
"""tests/real/tpu_real_test.cpp's expected values: an independent reader of an XSpace (tsl/profiler/protobuf/xplane.proto,
the protobuf wire format decoded by hand) and of its TPU copies. Usage: tpu_copies_expected.py FILE.xplane.pb"""
import collections, os, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from xplane_dump import fields, s64 as signed, stat  # the wire format, decoded by hand

def emeta(b):
    m = {'stats': []}
    for f, w, v in fields(b):
        if f == 1: m['id'] = v
        elif f == 2: m['name'] = v.decode('utf-8', 'replace')
        elif f == 4: m['display'] = v.decode('utf-8', 'replace')
        elif f == 5: m['stats'].append(stat(v))
    return m

def smeta(b):
    m = {}
    for f, w, v in fields(b):
        if f == 1: m['id'] = v
        elif f == 2: m['name'] = v.decode('utf-8', 'replace')
    return m

def mapentry(b, valfn):
    k = None; val = None
    for f, w, v in fields(b):
        if f == 1: k = v
        elif f == 2: val = valfn(v)
    return k, val

def event(b):
    e = {'off': 0, 'dur': 0, 'stats': []}
    for f, w, v in fields(b):
        if f == 1: e['mid'] = v
        elif f == 2: e['off'] = signed(v)
        elif f == 3: e['dur'] = signed(v)
        elif f == 4: e['stats'].append(stat(v))
    return e

def line(b):
    l = {'events': [], 'name': '', 'ts': 0}
    for f, w, v in fields(b):
        if f == 1: l['id'] = v
        elif f == 2: l['name'] = v.decode('utf-8', 'replace')
        elif f == 3: l['ts'] = signed(v)
        elif f == 4: l['events'].append(event(v))
    return l

def plane(b):
    p = {'lines': [], 'em': {}, 'sm': {}, 'stats': [], 'name': ''}
    for f, w, v in fields(b):
        if f == 1: p['id'] = v
        elif f == 2: p['name'] = v.decode('utf-8', 'replace')
        elif f == 3: p['lines'].append(line(v))
        elif f == 4:
            k, m = mapentry(v, emeta); p['em'][k] = m
        elif f == 5:
            k, m = mapentry(v, smeta); p['sm'][k] = m
        elif f == 6: p['stats'].append(stat(v))
    return p

def space(path):
    b = open(path, 'rb').read()
    return [plane(v) for f, w, v in fields(b) if f == 1]

def named_stats(p, stats):
    out = {}
    for s in stats:
        name = p['sm'].get(s.get('id'), {}).get('name', '?')
        if 'ref' in s: out[name] = p['sm'].get(s['ref'], {}).get('name', '?')
        else: out[name] = s.get('v')
    return out


def main(path):
    """Per TPU: each copy-start..copy-done pair's span on the XLA Ops line (checked against the
    Async XLA Ops line's async-copy durations where it has them), the bytes and seconds per direction
    (host memory is S(5) in a layout), and the XLA ops' time without the copy ops, each op lasting
    its device_duration_ps from where it is placed (XProf's op time), summed and as a union per TPU."""
    total = collections.Counter()
    for p in space(path):
        if not p['name'].startswith('/device:TPU'): continue
        ops = [l for l in p['lines'] if l['name'] == 'XLA Ops'][0]
        asyn = [l for l in p['lines'] if l['name'] == 'Async XLA Ops']
        starts, spans = {}, []
        by, secs, n = collections.Counter(), collections.Counter(), collections.Counter()
        compute, intervals = 0, []
        for e in sorted(ops['events'], key=lambda e: e['off']):
            m = p['em'][e['mid']]
            st = dict(named_stats(p, m['stats'])); st.update(named_stats(p, e['stats']))
            cat, at = st['hlo_category'], ops['ts'] * 1000 + e['off']
            if cat == 'copy-start':
                starts[m['display']] = at
                continue
            if cat != 'copy-done':
                length = st.get('device_duration_ps', e['dur'])
                compute += length
                intervals.append((at, at + length))
                continue
            begin = starts.pop(m['name'].rsplit('%', 1)[1].rstrip(')'), at)
            d = 'd2h' if 'S(5)' in st['shape_with_layout'] else 'h2d'
            spans.append(at + e['dur'] - begin)
            by[d] += st['bytes_accessed']; secs[d] += (at + e['dur'] - begin) / 1e12; n[d] += 1
        union = 0
        cs = ce = None
        for a, b in sorted(intervals):
            if ce is None or a > ce:
                union += 0 if ce is None else ce - cs
                cs, ce = a, b
            else:
                ce = max(ce, b)
        union += 0 if ce is None else ce - cs
        print(p['name'], dict(n), dict(by), {d: round(s, 6) for d, s in secs.items()},
              'op time less copies %.6f s (union %.6f s)' % (compute / 1e12, union / 1e12))
        total['union_s'] += union / 1e12
        if asyn and asyn[0]['events']:
            a = sorted(e['dur'] for e in asyn[0]['events'])
            print('  async-copy line: %d events, %.6f s; the pairs: %d, %.6f s, equal: %s' % (
                len(a), sum(a) / 1e12, len(spans), sum(spans) / 1e12, a == sorted(spans)))
        for d in by: total[d + '_bytes'] += by[d]; total[d + '_s'] += secs[d]
        total['compute_s'] += compute / 1e12; total['tpus'] += 1
    for d in ('h2d', 'd2h'):
        print('%s: %d bytes in %.6f s: %.4f GB/s' % (d, total[d + '_bytes'], total[d + '_s'],
                                                    total[d + '_bytes'] / total[d + '_s'] / 1e9))
    print('op time less copies: %.6f s (union per TPU %.6f s) over %d TPUs' % (
        total['compute_s'], total['union_s'], total['tpus']))

if __name__ == '__main__':
    main(sys.argv[1])
