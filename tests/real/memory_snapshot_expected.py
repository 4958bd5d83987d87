#!/usr/bin/env python3
"""Independent reference for perfgate's memory-snapshot reader (issue 60): python3 THIS FILE.pickle...
Reads a torch.cuda.memory._snapshot() pickle with a restricted Unpickler (no class is ever imported)
and replays each device's trace backwards from the final state. Allocated at the end: the sum of the
sizes of the blocks in an active state; walking backwards, an `alloc` removes its block from the
live set (with the size the live set holds for it: the block's size for blocks alive at the end,
else the size the trace recorded; its site from the alloc's own frames) and a `free_completed` puts the block back with its recorded size;
segment_alloc/map and segment_free/unmap move the reserved total. The peak is the highest allocated
total (the earliest where equal, going forwards); the live set there is grouped by the top user
frame: the first frame not in an installed package (site-packages, dist-packages, torch/, the Python
library) nor in C/C++."""
import collections, gzip, pickle, sys

class Restricted(pickle.Unpickler):
    def find_class(self, module, name):
        raise pickle.UnpicklingError(f"refused {module}.{name}")

LIBRARY = ('/site-packages/', '/dist-packages/', '/torch/', '/lib/python3')
NATIVE = ('.c', '.cc', '.cpp', '.cu', '.h', '.hpp')

def site(frames):
    if not frames:
        return '(no frames recorded)'
    for f in frames:
        fn = f['filename'].replace('\\', '/')
        if not fn or fn.startswith('??') or any(p in fn for p in LIBRARY) or fn.endswith(NATIVE):
            continue
        return f"{f['name']} ({fn.rsplit('/', 1)[-1]}:{f['line']})"
    return '(no user frame)'

def main(path):
    opener = gzip.open if path.endswith('.gz') else open
    snap = Restricted(opener(path, 'rb')).load()
    segments, traces = snap['segments'], snap.get('device_traces', [])
    devices = sorted({s['device'] for s in segments} | set(range(len(traces))))
    for dev in devices:
        segs = [s for s in segments if s['device'] == dev]
        reserved = sum(s['total_size'] for s in segs)
        live = {b['address']: (b['size'], site(b.get('frames', [])))
                for s in segs for b in s['blocks'] if b['state'].startswith('active')}
        trace = traces[dev] if dev < len(traces) else []
        total, res = sum(v[0] for v in live.values()), reserved
        final = total
        # Backwards, keeping the totals before each action.
        before = [None] * len(trace)
        block = [None] * len(trace)  # what each alloc made live: (size, site)
        for i in range(len(trace) - 1, -1, -1):
            e = trace[i]
            a = e['action']
            if a == 'alloc':
                block[i] = (live.pop(e['addr'], (e['size'], None))[0], site(e.get('frames', [])))
                total -= block[i][0]
            elif a == 'free_completed':
                live[e['addr']] = (e['size'], site(e.get('frames', [])))
                total += e['size']
            elif a in ('segment_alloc', 'segment_map'):
                res -= e['size']
            elif a in ('segment_free', 'segment_unmap'):
                res += e['size']
            before[i] = (total, res)
        # Forwards from the entering state to find the first highest total and its live set.
        peak, peak_res, peak_at, peak_live = total, res, 0, dict(live)
        for i, e in enumerate(trace):
            a = e['action']
            if a == 'alloc':
                live[e['addr']] = block[i]
            elif a == 'free_completed':
                live.pop(e['addr'], None)
            after = before[i + 1] if i + 1 < len(trace) else (final, reserved)
            peak_res = max(peak_res, after[1])
            if after[0] > peak:
                peak, peak_at, peak_live = after[0], i + 1, dict(live)
        print(f"device {dev}: segments {len(segs)} actions {len(trace)} reserved {reserved} allocated {final} "
              f"entering {before[0][0] if trace else final} peak {peak} after action {peak_at} peak_reserved {peak_res}")
        by, count = collections.Counter(), collections.Counter()
        for size, where in peak_live.values():
            by[where] += size
            count[where] += 1
        # Fragmentation at the end: inactive blocks of segments split into several blocks.
        inactive = [b['size'] for s in segs for b in s['blocks'] if b['state'] == 'inactive']
        split = [b['size'] for s in segs if len(s['blocks']) > 1 for b in s['blocks'] if b['state'] == 'inactive']
        print(f"  fragmentation: reserved-allocated {reserved - final} split inactive {len(split)} blocks "
              f"{sum(split)} bytes largest inactive {max(inactive, default=0)} "
              f"expandable segments {sum(1 for s in segs if s.get('is_expandable'))}")
        for i, e in enumerate(trace):
            if e['action'] == 'oom':
                after = before[i + 1] if i + 1 < len(trace) else (final, reserved)
                print(f"  oom at action {i + 1}: request {e['size']} device_free {e.get('device_free')} "
                      f"allocated {after[0]} reserved {after[1]} site {site(e.get('frames', []))}")
        print(f"  live at the peak: {sum(by.values())} bytes in {len(peak_live)} blocks")
        for where, size in sorted(by.items(), key=lambda kv: (-kv[1], kv[0]))[:None if ALL else 6]:
            print(f"  {size:>14} {count[where]:>5}  {where}")

ALL = '--all' in sys.argv  # every site, not the 6 largest

if __name__ == '__main__':
    for p in [a for a in sys.argv[1:] if a != '--all']:
        print(p)
        main(p)
