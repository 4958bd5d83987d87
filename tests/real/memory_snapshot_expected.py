#!/usr/bin/env python3
"""Independent reference for perfgate's memory-snapshot reader (issue 60): python3 THIS FILE.pickle...
Reads a torch.cuda.memory._snapshot() pickle with a restricted Unpickler (no class is ever imported)
and replays each device's trace backwards from the final state. Allocated at the end: the sum of the
sizes of the blocks in an active state; walking backwards, an `alloc` removes its block from the
live set (its site from the alloc's own frames) and a `free_completed` puts the block back, all in
one unit, block bytes (issue 91; torch.cuda.memory_stats' allocated_bytes): a block alive at the end
its size in the segments, another the CUDA caching allocator's round_size of the size the trace
records (512 bytes at least, else a multiple of 512). Beside them, in requested bytes (a block alive
at the end: its requested_size, else its first history entry's real_size, else its size; the trace's
sizes otherwise; as MemoryViz's process_alloc_data draws them): the total at the end and the total
live at the peak;
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

def requested(block):
    if 'requested_size' in block:
        return min(block['requested_size'], block['size'])
    if block.get('history'):
        return min(block['history'][0]['real_size'], block['size'])
    return block['size']

def block_size(requested_bytes):
    """c10/cuda/CUDACachingAllocator.cpp's round_size: at least 512 bytes, else a multiple of 512."""
    return 512 if requested_bytes < 512 else (requested_bytes + 511) // 512 * 512

def site(frames):
    if not frames:
        return '(no frames recorded)'
    for f in frames:
        fn = f['filename'].replace('\\', '/')
        if not fn or fn.startswith('??') or any(p in fn for p in LIBRARY) or fn.endswith(NATIVE):
            continue
        return f"{f['name']} ({fn.rsplit('/', 1)[-1]}:{f['line']})"
    return '(no user frame)'

KNOWN = ('parameter', 'gradient', 'optimizer_state', 'activation', 'input', 'temporary', 'autograd_detail')
PHASES = ['gradient', 'optimizer', 'parameter', 'backward', 'forward']

def category(entry):
    """What the memory holds: the entry's `category` (PyTorch's memory profiler), else its
    user_metadata when it names one, else the strongest phase any frame shows, else unknown."""
    c = entry.get('category')
    if isinstance(c, str) and c:
        return c.lower()
    m = entry.get('user_metadata')
    if isinstance(m, str) and m.lower().strip(' \t') in KNOWN:
        return m.lower().strip(' \t')
    ranks = []
    for f in entry.get('frames') or []:
        path, name = f.get('filename', '').replace('\\', '/'), f.get('name', '')
        if 'AccumulateGrad' in name:
            ranks.append(0)
        elif '/torch/optim/' in path:
            ranks.append(1)
        elif path.endswith('/torch/nn/parameter.py') or (path.endswith('/torch/nn/modules/module.py') and name == '_apply'):
            ranks.append(2)
        elif ((path.endswith('/torch/_tensor.py') and name == 'backward') or 'torch::autograd::Engine::' in name
              or (path.endswith('/torch/autograd/__init__.py') and name in ('backward', 'grad'))):
            ranks.append(3)
        elif path.endswith('/torch/nn/modules/module.py') and name == '_call_impl':
            ranks.append(4)
    return PHASES[min(ranks)] if ranks else 'unknown'

def timeline(trace, entering, block, columns=128, bands=64):
    """MemoryViz's active-memory timeline, bounded: the states 0..N in `columns` equal runs, each at
    its first highest total; the `bands` largest allocations live in a shown state stacked (entering
    ones alive at the end at the bottom by address, then those the trace frees, the first freed on top,
    then the trace's in the order allocated), the others summed on top. Rows [band, first column,
    last column, bottom, size], merged over consecutive columns where a band stays put."""
    els, live = [], {}
    for addr in sorted(entering):
        live[addr] = len(els)
        els.append([entering[addr][0], 0, None])
    n_entering, touch = len(els), [None] * len(trace)
    for i, e in enumerate(trace):
        if e['action'] == 'alloc':
            live[e['addr']] = touch[i] = len(els)
            els.append([block[i][0], i + 1, None])
        elif e['action'] == 'free_completed' and e['addr'] in live:
            touch[i] = live.pop(e['addr'])
            els[touch[i]][2] = i + 1
    states = len(trace) + 1
    end = lambda j: els[j][2] if els[j][2] is not None else states + 1
    def totals(counted):
        t = sum(els[j][0] for j in range(n_entering) if counted[j])
        out = [t]
        for i, e in enumerate(trace):
            j = touch[i]
            if j is not None and counted[j]:
                t += els[j][0] if e['action'] == 'alloc' else -els[j][0]
            out.append(t)
        return out
    tot = totals([True] * len(els))
    cols = min(states, columns)
    first = [c * states // cols for c in range(cols)]
    stop = first[1:] + [states]
    shown = [max(range(first[c], stop[c]), key=lambda k: (tot[k], -k)) for c in range(cols)]
    visible = [j for j in range(len(els)) if any(els[j][1] <= k < end(j) for k in shown)]
    drawn = sorted(visible, key=lambda j: -els[j][0])[:bands]
    band = {j: b + 1 for b, j in enumerate(drawn)}
    others = totals([j not in band for j in range(len(els))])
    order = lambda j: (2, els[j][1]) if j >= n_entering else ((0, j) if els[j][2] is None else (1, -els[j][2]))
    stack = sorted(drawn, key=lambda j: (order(j), j))
    rects = []
    for c, k in enumerate(shown):
        bottom = 0
        for j in stack:
            if els[j][1] <= k < end(j):
                rects.append((band[j], c, bottom, els[j][0]))
                bottom += els[j][0]
        if others[k] > 0:
            rects.append((0, c, bottom, others[k]))
    rows = []
    for b, c, bottom, size in sorted(rects):
        if rows and rows[-1][0] == b and rows[-1][2] == c - 1 and rows[-1][3:] == [bottom, size]:
            rows[-1][2] = c
        else:
            rows.append([b, c, c, bottom, size])
    return [(b, first[c0], stop[c1] - 1, bottom, size) for b, c0, c1, bottom, size in rows], len(drawn)

def main(path):
    opener = gzip.open if path.endswith('.gz') else open
    snap = Restricted(opener(path, 'rb')).load()
    segments, traces = snap['segments'], snap.get('device_traces', [])
    devices = sorted({s['device'] for s in segments} | set(range(len(traces))))
    highest = []  # the device whose peak is highest (the first of equals): its timeline
    for dev in devices:
        segs = [s for s in segments if s['device'] == dev]
        reserved = sum(s['total_size'] for s in segs)
        live = {b['address']: (b['size'], site(b.get('frames', [])), category(b))
                for s in segs for b in s['blocks'] if b['state'].startswith('active')}
        trace = traces[dev] if dev < len(traces) else []
        total, res = sum(v[0] for v in live.values()), reserved
        end_total = total  # the replay's unit: block bytes
        final = sum(b['size'] for s in segs for b in s['blocks'] if b['state'].startswith('active'))
        final_requested = sum(requested(b) for s in segs for b in s['blocks'] if b['state'].startswith('active'))
        req = final_requested
        before_req = [None] * len(trace)
        # Backwards, keeping the totals before each action.
        before = [None] * len(trace)
        block = [None] * len(trace)  # what each alloc made live: (size, site)
        for i in range(len(trace) - 1, -1, -1):
            e = trace[i]
            a = e['action']
            if a == 'alloc':
                block[i] = (live.pop(e['addr'], (block_size(e['size']), None))[0], site(e.get('frames', [])),
                            category(e))
                total -= block[i][0]
                req -= e['size']
            elif a == 'free_completed':
                live[e['addr']] = (block_size(e['size']), site(e.get('frames', [])), category(e))
                total += block_size(e['size'])
                req += e['size']
            elif a in ('segment_alloc', 'segment_map'):
                res -= e['size']
            elif a in ('segment_free', 'segment_unmap'):
                res += e['size']
            before[i] = (total, res)
            before_req[i] = req
        entering = dict(live)
        # Forwards from the entering state to find the first highest total and its live set.
        peak, peak_res, peak_at, peak_live = total, res, 0, dict(live)
        for i, e in enumerate(trace):
            a = e['action']
            if a == 'alloc':
                live[e['addr']] = block[i]
            elif a == 'free_completed':
                live.pop(e['addr'], None)
            after = before[i + 1] if i + 1 < len(trace) else (end_total, reserved)
            peak_res = max(peak_res, after[1])
            if after[0] > peak:
                peak, peak_at, peak_live = after[0], i + 1, dict(live)
        peak_req = (before_req[peak_at] if peak_at < len(trace) else final_requested) if trace else final_requested
        print(f"device {dev}: segments {len(segs)} actions {len(trace)} reserved {reserved} allocated {final} "
              f"entering {before[0][0] if trace else end_total} peak {peak} after action {peak_at} peak_reserved {peak_res}")
        print(f"  requested bytes: allocated at the end {final_requested}, live at the peak {peak_req}; "
              f"peak >= allocated at the dump: {peak >= final}")
        by, count = collections.Counter(), collections.Counter()
        by_category, count_category = collections.Counter(), collections.Counter()
        for size, where, what in peak_live.values():
            by[where] += size
            count[where] += 1
            by_category[what] += size
            count_category[what] += 1
        # Fragmentation at the end: inactive blocks of segments split into several blocks.
        inactive = [b['size'] for s in segs for b in s['blocks'] if b['state'] == 'inactive']
        split = [b['size'] for s in segs if len(s['blocks']) > 1 for b in s['blocks'] if b['state'] == 'inactive']
        print(f"  fragmentation: reserved-allocated {reserved - final} split inactive {len(split)} blocks "
              f"{sum(split)} bytes largest inactive {max(inactive, default=0)} "
              f"expandable segments {sum(1 for s in segs if s.get('is_expandable'))}")
        for i, e in enumerate(trace):
            if e['action'] == 'oom':
                after = before[i + 1] if i + 1 < len(trace) else (end_total, reserved)
                print(f"  oom at action {i + 1}: request {e['size']} device_free {e.get('device_free')} "
                      f"allocated {after[0]} reserved {after[1]} site {site(e.get('frames', []))}")
        print(f"  live at the peak: {sum(by.values())} bytes in {len(peak_live)} blocks")
        for where, size in sorted(by.items(), key=lambda kv: (-kv[1], kv[0]))[:None if ALL else 6]:
            print(f"  {size:>14} {count[where]:>5}  {where}")
        if ALL:
            by_both = collections.Counter()
            for size, where, what in peak_live.values():
                by_both[(where, what)] += size
            print("  live at the peak by site and category:")
            for (where, what), size in sorted(by_both.items(), key=lambda kv: (-kv[1], kv[0])):
                print(f"  {size:>14}  {where}  [{what}]")
        print("  live at the peak by category:")
        for what, size in sorted(by_category.items(), key=lambda kv: (-kv[1], kv[0])):
            print(f"  {size:>14} {count_category[what]:>5}  {what}")
        if not highest or peak > highest[0]:
            highest[:] = [peak, dev, trace, entering, block, peak_at]
    if highest:
        peak, dev, trace, entering, block, peak_at = highest
        rows, drawn = timeline(trace, entering, block)
        peak_rows = [r for r in rows if r[1] <= peak_at <= r[2]]
        print(f"timeline of device {dev}: {len(rows)} rows, {drawn} bands drawn, highest top in the peak's "
              f"column {max(r[3] + r[4] for r in peak_rows)}, sum of bottoms {sum(r[3] for r in rows)}, "
              f"sum of sizes {sum(r[4] for r in rows)}")
        for r in rows[:None if ALL else 5]:
            print(f"  band {r[0]} states {r[1]}..{r[2]} bottom {r[3]} size {r[4]}")

ALL = '--all' in sys.argv  # every site, not the 6 largest

if __name__ == '__main__':
    for p in [a for a in sys.argv[1:] if a != '--all']:
        print(p)
        main(p)
