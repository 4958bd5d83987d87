#!/usr/bin/env python3
"""Expected values for tests/real/xplane_command_buffer_test.cpp (issue 59, XLA command buffers), from an
independent walk of the protobuf (xplane_dump.py, xplane_hlo_expected.py: no perfgate code, no protobuf library):

    python3 tests/real/xplane_command_buffer_expected.py tests/data/h100_jax_block.xplane.pb.gz \\
        tests/data/h100_jax_block_nocmdbuf.xplane.pb.gz

The first capture ran with XLA's command buffers (JAX's default): every kernel's hlo_op is the thunk
(command_buffer_1). The second is the same model without them (--xla_gpu_enable_command_buffer=): each
kernel's hlo_op names its instruction, the truth the first capture's attribution is checked against.
The rule (docs/formats.md, "Command buffers"): a kernel named as XLA names a fusion's kernel
(SanitizeFunctionName) is that instruction's; any other activity of the launch belongs to the one
instruction of the computation that lies between the instructions of the named kernels before and after
it and ran no named kernel, else it stays with the command buffer. Times in ns, each end rounded down."""
import sys, re, collections, os
sys.path.insert(0, os.path.dirname(__file__))
from xplane_dump import space, statval, union
from xplane_hlo_expected import hlo_modules

def kernel_name(s):
    s = re.sub(r'[^A-Za-z0-9_$]', '_', s)
    return '_' + s if s[:1].isdigit() else s

NO_WORK = {'parameter', 'constant', 'bitcast', 'get-tuple-element', 'tuple', 'after-all', 'add-dependency',
           'opt-barrier', 'domain', 'partition-id', 'replica-id'}

def activities(path):
    out = []
    for p in space(path):
        if not p['name'].startswith('/device:GPU'): continue
        for l in p['lines']:
            if not l['name'].startswith('Stream #'): continue
            for e in l['events']:
                st = {p['smd'].get(s['id']): statval(p, s) for s in e['stats']}
                start = l['ts'] * 1000 + e['off']
                kind = 'memset' if 'Memset_details' in st else 'memcpy' if 'memcpy_details' in st else 'kernel'
                out.append({'start': start // 1000, 'end': (start + e['dur']) // 1000, 'name': p['emd'][e['md']]['name'],
                            'op': st.get('hlo_op'), 'module': st.get('hlo_module'), 'corr': st.get('correlation_id'),
                            'kind': kind})
    return sorted(out, key=lambda a: a['start'])

def attribute(path):
    mods = hlo_modules(path)
    acts = activities(path)
    launches = collections.defaultdict(list)
    for a in acts:
        if a['op'] and a['op'].startswith('command_buffer'): launches[a['corr']].append(a)
    result = []
    for corr, g in launches.items():
        comps = mods[g[0]['module']]
        fused = {cid for c in comps for i in c['instrs'] if i['opcode'] == 'fusion' for cid in i['called']}
        sched = []  # (name, computation index, position)
        for ci, c in enumerate(comps):
            if c['id'] in fused: continue
            for k, i in enumerate(c['instrs']):
                if i['opcode'] not in NO_WORK and not i['opcode'].endswith('-done'): sched.append((i['name'], ci, k))
        by_kernel = {}
        for n, ci, k in sched: by_kernel.setdefault(kernel_name(n), (n, ci, k))
        named = [by_kernel.get(a['name']) if a['kind'] == 'kernel' else None for a in g]
        ran = {x[0] for x in named if x}
        for i, a in enumerate(g):
            if named[i]: result.append((a, named[i][0], 'name')); continue
            before = next((named[j] for j in range(i - 1, -1, -1) if named[j]), None)
            after = next((named[j] for j in range(i + 1, len(g)) if named[j]), None)
            got = None
            if before and after and before[1] == after[1]:
                lo, hi = sorted((before[2], after[2]))
                cands = [n for n, ci, k in sched if ci == before[1] and lo < k < hi and n not in ran]
                if len(cands) == 1: got = cands[0]
            result.append((a, got, 'place' if got else 'stays'))
    return result, len(launches), acts

def truth_after(path):
    """In the capture without command buffers: the instruction of each library activity, by the XLA kernel before it."""
    acts = activities(path)
    t = collections.defaultdict(set)
    prev = None
    for a in acts:
        if a['op'] is None: continue
        if a['kind'] == 'kernel' and a['name'] == kernel_name(a['op']): prev = a['name']; continue
        t[prev].add(a['op'])
    return t

res, launches, acts = attribute(sys.argv[1])
truth = truth_after(sys.argv[2])
prev = None; disagree = 0
prev_of = {}
for a in acts:
    prev_of[id(a)] = prev
    if a['kind'] == 'kernel' and not a['name'].startswith(('nvjet', 'cutlass', 'sm90', 'sm80')): prev = a['name']
for a, op, how in res:
    if how == 'place' and op not in truth.get(prev_of[id(a)], set()): disagree += 1
c = collections.Counter(how for _, _, how in res)
seen = sum(a['end'] - a['start'] for a, _, _ in res)
stays = sum(a['end'] - a['start'] for a, _, how in res if how == 'stays')
print(f"launches={launches} activities={len(res)} by_name={c['name']} by_place={c['place']} stay={c['stays']} "
      f"stay_pct={100.0 * stays / seen:.1f} by_place_disagreeing_with_the_capture_without_command_buffers={disagree}")
per = collections.defaultdict(lambda: [0, 0])
for a, op, how in res:
    key = op or 'command_buffer_1'
    per[key][0] += 1; per[key][1] += a['end'] - a['start']
for op in sorted(per, key=lambda o: -per[o][1])[:12]:
    print(f"  {op}: activities={per[op][0]} time_ns={per[op][1]}")
kernels = [a for a in acts if a['kind'] == 'kernel']
print(f"kernels={len(kernels)} kernel_sum_ns={sum(a['end'] - a['start'] for a in kernels)}")
print("kernels only (no memsets): " + ", ".join(
    f"{op}={sum(a['end'] - a['start'] for a, o, _ in res if (o or 'command_buffer_1') == op and a['kind'] == 'kernel')}"
    for op in ('command_buffer_1', 'custom-call.1', 'custom-call.3')))

for path in sys.argv[1:3]:
    a = activities(path)
    print(f"{os.path.basename(path)}: kernels={sum(x['kind'] == 'kernel' for x in a)} "
          f"others={sum(x['kind'] != 'kernel' for x in a)} "
          f"kernel_union_ns={union([(x['start'], x['end']) for x in a if x['kind'] == 'kernel'])} "
          f"busy_ns={union([(x['start'], x['end']) for x in a])} (kernels, memsets and copies; ns, each end rounded down)")
