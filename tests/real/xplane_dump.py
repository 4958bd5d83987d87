#!/usr/bin/env python3
"""Independent XSpace walk: a tiny protobuf wire-format decoder (no perfgate code, no protobuf library).
Field numbers from tsl/profiler/protobuf/xplane.proto."""
import sys, struct, collections

def varint(b, i):
    r = 0; s = 0
    while True:
        c = b[i]; i += 1
        r |= (c & 0x7f) << s; s += 7
        if c < 0x80: return r, i

def fields(b):
    i = 0; n = len(b)
    while i < n:
        key, i = varint(b, i)
        f, wt = key >> 3, key & 7
        if wt == 0: v, i = varint(b, i)
        elif wt == 1: v = b[i:i+8]; i += 8
        elif wt == 5: v = b[i:i+4]; i += 4
        elif wt == 2:
            l, i = varint(b, i); v = b[i:i+l]; i += l
        else: raise ValueError("wire type %d" % wt)
        yield f, wt, v

def s64(v): return v - (1 << 64) if v >= 1 << 63 else v

def stat(b):
    d = {'id': 0}
    for f, wt, v in fields(b):
        if f == 1: d['id'] = s64(v)
        elif f == 2: d['v'] = struct.unpack('<d', v)[0]
        elif f == 3: d['v'] = v
        elif f == 4: d['v'] = s64(v)
        elif f == 5: d['v'] = v.decode('utf-8', 'replace')
        elif f == 6: d['v'] = bytes(v)
        elif f == 7: d['ref'] = v
    return d

def mapentry(b):
    k = 0; val = b''
    for f, wt, v in fields(b):
        if f == 1: k = s64(v)
        elif f == 2: val = v
    return k, val

def event_md(b):
    d = {'name': '', 'display_name': '', 'stats': []}
    for f, wt, v in fields(b):
        if f == 1: d['id'] = s64(v)
        elif f == 2: d['name'] = v.decode('utf-8', 'replace')
        elif f == 4: d['display_name'] = v.decode('utf-8', 'replace')
        elif f == 5: d['stats'].append(stat(v))
    return d

def stat_md(b):
    for f, wt, v in fields(b):
        if f == 2: return v.decode('utf-8', 'replace')
    return ''

def event(b):
    d = {'md': 0, 'off': 0, 'dur': 0, 'stats': []}
    for f, wt, v in fields(b):
        if f == 1: d['md'] = s64(v)
        elif f == 2: d['off'] = s64(v)
        elif f == 3: d['dur'] = s64(v)
        elif f == 4: d['stats'].append(stat(v))
        elif f == 5: d['occ'] = s64(v)
    return d

def line(b):
    d = {'name': '', 'display_name': '', 'ts': 0, 'events': [], 'id': 0}
    for f, wt, v in fields(b):
        if f == 1: d['id'] = s64(v)
        elif f == 2: d['name'] = v.decode('utf-8', 'replace')
        elif f == 11: d['display_name'] = v.decode('utf-8', 'replace')
        elif f == 3: d['ts'] = s64(v)
        elif f == 4: d['events'].append(event(v))
    return d

def plane(b):
    d = {'name': '', 'lines': [], 'emd': {}, 'smd': {}, 'stats': [], 'id': 0}
    for f, wt, v in fields(b):
        if f == 1: d['id'] = s64(v)
        elif f == 2: d['name'] = v.decode('utf-8', 'replace')
        elif f == 3: d['lines'].append(line(v))
        elif f == 4:
            k, val = mapentry(v); d['emd'][k] = event_md(val)
        elif f == 5:
            k, val = mapentry(v); d['smd'][k] = stat_md(val)
        elif f == 6: d['stats'].append(stat(v))
    return d

def space(path):
    b = open(path, 'rb').read()
    if b[:2] == b'\x1f\x8b':  # a gzipped profile (tests/data/*.xplane.pb.gz)
        b = __import__('gzip').decompress(b)
    planes = []
    for f, wt, v in fields(b):
        if f == 1: planes.append(plane(v))
    return planes

def union(intervals):
    """The length of the union of (start, end) intervals."""
    total = 0; cs = ce = None
    for s, e in sorted(intervals):
        if ce is None or s > ce:
            if ce is not None: total += ce - cs
            cs, ce = s, e
        else: ce = max(ce, e)
    return total + (ce - cs if ce is not None else 0)

def statval(p, s):
    if 'ref' in s: return p['smd'].get(s['ref'], '?')
    return s.get('v')

if __name__ == '__main__':
    planes = space(sys.argv[1])
    for pi, p in enumerate(planes):
        nev = sum(len(l['events']) for l in p['lines'])
        print(f"plane {pi} id={p['id']} {p['name']!r} lines={len(p['lines'])} events={nev} emd={len(p['emd'])} smd={len(p['smd'])}")
        for s in p['stats']:
            print("   stat", p['smd'].get(s['id']), repr(statval(p, s))[:80])
        for l in p['lines']:
            print(f"   line id={l['id']} {l['name']!r} disp={l['display_name']!r} ts={l['ts']} events={len(l['events'])}")
            for e in l['events'][:2]:
                md = p['emd'].get(e['md'], {})
                st = {p['smd'].get(s['id']): statval(p, s) for s in e['stats']}
                print(f"      ev {md.get('name','')[:60]!r} off={e['off']} dur={e['dur']} stats={str(st)[:300]}")
