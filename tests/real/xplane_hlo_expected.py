#!/usr/bin/env python3
"""Independent reference for issue 59 (XLA ops' FLOPs and bytes, tests/real/xplane_real_test.cpp): decodes the HloProto stats of an XSpace's /host:metadata
plane with its own wire-format walk (xplane_dump.py's, no protobuf library, no perfgate code) and prints
per HLO instruction that ran on a GPU its FLOPs and bytes by the definitions of docs/metrics.md:
convolution 2 * out_elems * (C_in / feature_groups) * prod(kernel spatial); dot 2 * out_elems *
prod(lhs contracting) (a cuBLAS GEMM custom call: the contracting dimensions of its backend config);
fusions: their data movement only (the files' fusions are transposes, converts, a subtract: the subtract's
elementwise FLOPs are not counted here); bytes = operands read once + the output written once (a custom call's tuple:
its first element; the scratch u8 buffer is not data).
Field numbers: xla/service/hlo.proto, xla/xla_data.proto (openxla/xla)."""
import sys, os
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from xplane_dump import fields, s64, space

TYPES = {1: ('pred', 1), 2: ('s8', 1), 3: ('s16', 2), 4: ('s32', 4), 5: ('s64', 8), 6: ('u8', 1), 7: ('u16', 2),
         8: ('u32', 4), 9: ('u64', 8), 10: ('f16', 2), 11: ('f32', 4), 12: ('f64', 8), 16: ('bf16', 2),
         15: ('c64', 8), 18: ('c128', 16), 19: ('f8e5m2', 1), 20: ('f8e4m3fn', 1), 24: ('f8e5m2fnuz', 1),
         25: ('f8e4m3fnuz', 1), 13: ('tuple', 0)}

def packed(wt, v):
    if wt == 0: return [s64(v)]
    out = []; i = 0
    from xplane_dump import varint
    while i < len(v):
        x, i = varint(v, i); out.append(s64(x))
    return out

def shape(b):
    d = {'type': 0, 'dims': [], 'tuple': []}
    for f, wt, v in fields(b):
        if f == 2: d['type'] = v
        elif f == 3: d['dims'] += packed(wt, v)
        elif f == 4: d['tuple'].append(shape(v))
    return d

def conv_dims(b):
    d = {'ib': 0, 'if': 0, 'is': [], 'ki': 0, 'ko': 0, 'ks': [], 'ob': 0, 'of': 0, 'os': []}
    names = {7: 'ib', 8: 'if', 11: 'is', 3: 'ki', 4: 'ko', 6: 'ks', 9: 'ob', 10: 'of', 12: 'os'}
    for f, wt, v in fields(b):
        if f in names:
            k = names[f]
            if isinstance(d[k], list): d[k] += packed(wt, v)
            else: d[k] = s64(v)
    return d

def dot_dims(b):
    d = {1: [], 2: [], 3: [], 4: []}
    for f, wt, v in fields(b):
        if f in d: d[f] += packed(wt, v)
    return d

def window(b):
    out = []
    for f, wt, v in fields(b):
        if f == 1:
            w = {1: 0, 2: 1, 3: 0, 4: 0, 5: 1, 6: 1}
            for g, wt2, x in fields(v):
                if g in w: w[g] = s64(x)
            out.append(w)
    return out

def instruction(b):
    d = {'name': '', 'opcode': '', 'shape': None, 'operands': [], 'called': [], 'fgc': 1, 'bgc': 1,
         'target': '', 'conv': None, 'dot': None, 'window': []}
    for f, wt, v in fields(b):
        if f == 1: d['name'] = v.decode()
        elif f == 2: d['opcode'] = v.decode()
        elif f == 3: d['shape'] = shape(v)
        elif f == 35: d['id'] = s64(v)
        elif f == 36: d['operands'] += packed(wt, v)
        elif f == 38: d['called'] += packed(wt, v)
        elif f == 50: d['fgc'] = s64(v)
        elif f == 58: d['bgc'] = s64(v)
        elif f == 28: d['target'] = v.decode()
        elif f == 43: d['config'] = bytes(v).decode('utf-8', 'replace')
        elif f == 16: d['conv'] = conv_dims(v)
        elif f == 30: d['dot'] = dot_dims(v)
        elif f == 15: d['window'] = window(v)
    return d

def module(b):
    comps = []
    name = ''
    for f, wt, v in fields(b):
        if f == 1: name = v.decode()
        elif f == 3:
            c = {'name': '', 'instrs': [], 'id': 0}
            for g, wt2, x in fields(v):
                if g == 1: c['name'] = x.decode()
                elif g == 2: c['instrs'].append(instruction(x))
                elif g == 5: c['id'] = s64(x)
            comps.append(c)
    return name, comps

def hlo_modules(path):
    planes = space(path)
    mods = {}
    for p in planes:
        if p['name'] != '/host:metadata': continue
        for md in p['emd'].values():
            for s in md['stats']:
                if p['smd'].get(s['id']) == 'Hlo Proto':
                    for f, wt, v in fields(s['v']):
                        if f == 1:
                            name, comps = module(v)
                            mods[name] = comps
    return mods

def prod(xs):
    r = 1
    for x in xs: r *= x
    return r

def array(s):
    """(type name, dims, bytes) of an array shape; a tuple: its first element."""
    if s['type'] == 13: return array(s['tuple'][0]) if s['tuple'] else ('tuple', [], 0)
    t, size = TYPES.get(s['type'], ('?', 0))
    return t, s['dims'], prod(s['dims']) * size

def cost(ins, by_id):
    ops = [by_id[o] for o in ins['operands'] if o in by_id]
    out_t, out_dims, out_bytes = array(ins['shape'])
    bytes_ = out_bytes + sum(array(o['shape'])[2] for o in ops)
    flops = 0
    if ins['conv'] is not None and len(ops) >= 2:
        c = ins['conv']
        lhs = array(ops[0]['shape'])[1]; rhs = array(ops[1]['shape'])[1]
        cin = lhs[c['if']] // max(ins['fgc'], 1)
        flops = 2 * prod(out_dims) * cin * prod(rhs[k] for k in c['ks'])
    elif ins['dot'] is not None and len(ops) >= 2:
        lhs = array(ops[0]['shape'])[1]
        flops = 2 * prod(out_dims) * prod(lhs[k] for k in ins['dot'][1])
    elif ins['opcode'] == 'custom-call' and ('gemm' in ins['target'] or 'matmul' in ins['target']) and ops:
        # cuBLAS(Lt) GEMM: its dot dimension numbers are in the backend config (JSON)
        import json, re
        m = re.search(r'"lhs_contracting_dimensions"\s*:\s*\[([^\]]*)\]', ins.get('config', ''))
        if m:
            lhs = array(ops[0]['shape'])[1]
            dims = [int(x.strip().strip('"')) for x in m.group(1).split(',') if x.strip()]
            flops = 2 * prod(out_dims) * prod(lhs[k] for k in dims)
    return flops, bytes_, [array(o['shape'])[:2] for o in ops], (out_t, out_dims)

if __name__ == '__main__' and '--runs' not in sys.argv:
    mods = hlo_modules(sys.argv[1])
    for mname, comps in mods.items():
        if len(sys.argv) > 2 and mname != sys.argv[2]: continue
        print('module', mname)
        for c in comps:
            by_id = {i['id']: i for i in c['instrs']}
            for ins in c['instrs']:
                f, b, ops, out = cost(ins, by_id)
                print(f"  {c['name'][:30]:30} {ins['name']:28} {ins['opcode']:14} {ins['target'][:24]:24} "
                      f"flops={f} bytes={b} ops={ops} out={out} fgc={ins['fgc']} win={[ (w[1],w[2],w[3],w[4]) for w in ins['window']]} conv={ins['conv']}")


def runs(path):
    """Per HLO instruction that ran: its runs (consecutive launches of one instruction on one host
    thread, a new run when a kernel repeats), kernel time (ns, from the device events) and cost."""
    from xplane_dump import statval
    planes = space(path)
    launch = {}  # correlation -> (module, op, kernel name, kernel ps)
    for p in planes:
        if not p['name'].startswith('/device:GPU:'): continue
        for l in p['lines']:
            if not l['name'].startswith('Stream #'): continue
            for e in l['events']:
                st = {p['smd'].get(s['id']): statval(p, s) for s in e['stats']}
                if 'hlo_op' in st and 'correlation_id' in st and 'memcpy_details' not in st:
                    launch[st['correlation_id']] = (st.get('hlo_module'), st['hlo_op'], e['md'], e['dur'])
    host = [p for p in planes if p['name'] == '/host:CPU'][0]
    out = {}
    for l in host['lines']:
        calls = []
        for e in l['events']:
            st = {host['smd'].get(s['id']): statval(host, s) for s in e['stats']}
            c = st.get('correlation_id')
            calls.append((e['off'], c))
        calls.sort()
        group = None
        for off, c in calls:
            k = launch.get(c)
            if k is None:
                group = None
                continue
            if group and group[0] == k[:2] and k[2] not in group[1]:
                group[1].add(k[2])
            else:
                group = (k[:2], {k[2]})
                out.setdefault(k[:2], [0, 0])[0] += 1
            out[k[:2]][1] += k[3]
    return out


if __name__ == '__main__' and '--runs' in sys.argv:
    mods = hlo_modules(sys.argv[1])
    for (module, op), (n, ps) in sorted(runs(sys.argv[1]).items()):
        comps = mods.get(module, [])
        for c in comps:
            by_id = {i['id']: i for i in c['instrs']}
            for ins in c['instrs']:
                if ins['name'] == op:
                    f, b, ops, o = cost(ins, by_id)
                    print(f"{op}: runs {n}, kernel {ps / 1000:.0f} ns, per run flops {f} bytes {b}")
