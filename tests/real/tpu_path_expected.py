#!/usr/bin/env python3
"""tests/real/tpu_real_test.cpp's expected critical path on a TPU XSpace (issue 91, item 1), worked out without
perfgate: a TPU runs its program's ops in order, so that the path through a TPU is its XLA ops and the transfers
its copy-dones waited for, joined wherever the next starts within the kernel gap (1.5 ms, rules/default.yaml
critical_path.max_kernel_gap_us) of the last end; the host's Execute calls wait on the device (their "Acquire
semaphore") and add nothing. Each op lasts its device_duration_ps from where the host's clock places it; a copy is
its transfer, from its copy-start to its copy-done's end. Prints, per TPU, the longest such stretch: its span (the
path's length) and its busy time. Usage: tpu_path_expected.py FILE.xplane.pb"""
import os, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from xplane_dump import space, statval  # the wire format, decoded by hand

GAP_PS = 1.5e9


def stretches(plane):
    acts, starts = [], {}
    for line in plane['lines']:
        if line['name'] != 'XLA Ops':
            continue
        for e in line['events']:
            md = plane['emd'][e['md']]
            st = {plane['smd'].get(s['id']): statval(plane, s) for s in md['stats']}
            st.update({plane['smd'].get(s['id']): statval(plane, s) for s in e['stats']})
            start = line['ts'] * 1000 + e['off']
            name = md['display_name'] or md['name']
            if st.get('hlo_category') == 'copy-start':
                starts[name.replace('copy-start', 'copy-done')] = start
                continue
            end = start + st.get('device_duration_ps', e['dur'])
            if st.get('hlo_category') == 'copy-done':
                end = start + e['dur']
                start = starts.pop(name, start)
            acts.append((start, end))
    acts.sort()
    out, cur = [], None  # [start, end, busy, covered up to]
    for s, e in acts:
        if cur and s - cur[1] < GAP_PS:
            cur[2] += max(0, e - max(s, cur[3]))
            cur[1] = cur[3] = max(cur[1], e)
        else:
            if cur:
                out.append(cur)
            cur = [s, e, e - s, e]
    if cur:
        out.append(cur)
    return out


def main(path):
    for p in space(path):
        if not p['name'].startswith('/device:TPU:') or 'SparseCore' in p['name']:
            continue
        runs = stretches(p)
        longest = max(runs, key=lambda r: r[1] - r[0])
        print('%s: %d stretches; the longest spans %.6f s, busy %.6f s' % (
            p['name'], len(runs), (longest[1] - longest[0]) / 1e12, longest[2] / 1e12))
    return 0


if __name__ == '__main__':
    if len(sys.argv) < 2 or not os.path.exists(sys.argv[1]):
        print('skipped: no XSpace given or it is absent')
        sys.exit(0)
    sys.exit(main(sys.argv[1]))
