#!/usr/bin/env python3
"""XProf's own figures for a TPU XSpace, worked out independently of perfgate (issue 91, item 1).

Usage: tpu_xprof_figures.py [FILE.xplane.pb [PERFGATE_REPORT.json]]
FILE defaults to ../shared/references/tpu/tpu_v6e_inference_xprof.xplane.pb beside the repository; the
report (perfgate analyze FILE --json REPORT) adds perfgate's figures beside XProf's. An absent FILE is
skipped (exit 0).

Each figure follows the definition in openxla/xprof (xprof/convert/), restated here from its source:
- op metrics (xplane_to_op_metrics_db.cc, ConvertTensorCoreDeviceTraceXPlaneToOpMetricsDb): the events
  of a TPU plane's "XLA Ops" line (IsOpLineName: not "Async XLA Ops"), timed by their device_offset_ps
  and device_duration_ps stats (GetDeviceEventTimespan); an op's self time is its time less the ops
  nested in it; ops keyed by (program_id, symbol_id), symbol 0 left out; a core's total time is its
  last op end less its first op begin; FLOPs, model FLOPs and bytes are the op metadata's stats times
  the occurrences (op_metrics_db_utils.cc, AdjustFlopsAndBytesAccessed; model FLOPs fall back to FLOPs);
- device idle (op_stats_to_overview_page.cc, ComputeTpuAnalysisResult; op_metrics_db_utils.cc,
  IdleTimeRatio): 1 - (sum of op self times) / (sum of the cores' total times), over every TPU;
- duty cycle (xplane_to_op_stats.cc, ConstructDutyCycleTracker; duty_cycle_tracker.cc): the union of
  the XLA Ops events' own spans (offset and duration, not the device stats) except off-duty categories
  (infeed, outfeed, host send/recv, megacore fusion: xla_op_utils.h, IsOffDutyOp), over the span that
  the XLA Ops and XLA Modules events cover, per chip (CoreDetails.local_chip_id), summed over chips;
- FLOPS and HBM bandwidth utilization of the op profile's root (op_profile_builder.cc,
  PopulateOpMetricsNode): model FLOPs / time / the plane's peak_teraflops_per_second, HBM bytes (the
  memory_access_breakdown stat's HBM reads and writes) / time / peak_hbm_bw_gigabytes_per_second, the
  time being the cores' total time (idle included) or their op time (idle excluded);
- MXU utilization (ConvertOpStatsToOverviewPage): the host plane's matrix_unit_utilization_percent stat;
- top ops (ComputeAnalysisResult): ops grouped by their framework op (tf_op stat, before its ':'), else
  by their own name, ranked by self time over the op time without idle;
- steps (xplane_to_step_events.cc, ConvertDeviceTraceXPlaneToStepEvents): a TPU's steps come from its
  plane's "Steps" line; with none, XProf has no steps.
"""
import collections, json, os, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from xplane_dump import fields, space, statval, union  # the wire format, decoded by hand

OFF_DUTY = {'infeed', 'outfeed', 'host send', 'host send-done', 'host recv', 'host recv-done',
            'megacore fusion'}
HIGH_FLOPS = {'convolution', 'convolution base-dilated', 'convolution window-dilated',
              'convolution fusion', 'output fusion'}


def named(p, stats):
    return {p['smd'].get(s['id']): statval(p, s) for s in stats}


def hbm_bytes(raw):
    """MemoryAccessBreakdown { repeated MemoryAccessed memory_accessed = 1 }, each with operation_type
    (1 read, 2 write) = 1, memory_space (1 HBM) = 2, bytes_accessed = 3."""
    out = collections.Counter()
    for f, _, v in fields(raw or b''):
        if f != 1: continue
        m = {k: val for k, _, val in fields(v)}
        if m.get(2) == 1: out['read' if m.get(1) == 1 else 'write'] += m.get(3, 0)
    return out


def chip_of(p):
    """CoreDetails.local_chip_id (field 4) from the plane's core_details stat."""
    raw = named(p, p['stats']).get('core_details') or b''
    return {f: v for f, _, v in fields(raw)}.get(4, 0)


def tpu_figures(p):
    ops = [l for l in p['lines'] if l['name'] == 'XLA Ops']
    mods = [l for l in p['lines'] if l['name'] == 'XLA Modules']
    r = {'name': p['name'], 'chip': chip_of(p), 'steps_line': any(l['name'] == 'Steps' for l in p['lines'])}
    per_op = {}
    spans = []  # (begin, end, event, metadata, host-aligned begin) by device time
    r['zero_events'] = 0; r['compute_event_ps'] = 0; r['compute_device_ps'] = 0
    for l in ops:
        for e in l['events']:
            md = p['emd'][e['md']]
            est = named(p, e['stats'])
            if 'device_offset_ps' in est and 'device_duration_ps' in est:
                b, d = est['device_offset_ps'], est['device_duration_ps']
            else:
                b, d = l['ts'] * 1000 + e['off'], e['dur']
            if named(p, md['stats']).get('hlo_category') not in ('copy-start', 'copy-done'):
                r['compute_event_ps'] += e['dur']; r['compute_device_ps'] += d
                if e['dur'] == 0 and d > 0: r['zero_events'] += 1
            spans.append((b, b + d, e, md, l['ts'] * 1000 + e['off']))
    spans.sort(key=lambda s: (s[0], -s[1]))
    # self time: time less the ops nested in it (AncestorStack on device spans)
    stack, self_time = [], {}
    for i, (b, en, e, md, _) in enumerate(spans):
        while stack and not (spans[stack[-1]][0] <= b and en <= spans[stack[-1]][1]): stack.pop()
        self_time[i] = en - b
        if stack: self_time[stack[-1]] -= en - b
        stack.append(i)
    first = min((s[0] for s in spans), default=0); last = max((s[1] for s in spans), default=0)
    active, extent = [], []
    for i, (b, en, e, md, host_b) in enumerate(spans):
        mst = named(p, md['stats'])
        cat = mst.get('hlo_category', '')
        extent.append((host_b, host_b + e['dur']))
        if cat not in OFF_DUTY: active.append((host_b, host_b + e['dur']))
        if mst.get('program_id') is None or mst.get('symbol_id') in (None, 0, '0'): continue
        key = (str(mst['program_id']), str(mst['symbol_id']))
        o = per_op.setdefault(key, {'name': md['display_name'] or md['name'], 'cat': cat, 'n': 0,
                                    'time': 0, 'self': 0, 'tf_op': mst.get('tf_op') or '',
                                    'flops': int(mst.get('flops') or 0),
                                    'model_flops': int(mst.get('model_flops') or 0),
                                    'bytes': int(mst.get('bytes_accessed') or 0),
                                    'hbm': hbm_bytes(mst.get('memory_access_breakdown')),
                                    'shape': mst.get('shape_with_layout') or ''})
        o['n'] += 1; o['time'] += en - b; o['self'] += self_time[i]
    for l in mods:
        for e in l['events']:
            extent.append((l['ts'] * 1000 + e['off'], l['ts'] * 1000 + e['off'] + e['dur']))
    r['ops'] = per_op
    r['total_time_ps'] = last - first
    r['op_time_ps'] = sum(o['self'] for o in per_op.values())
    r['active'] = active
    r['extent'] = (min(s for s, _ in extent), max(e for _, e in extent)) if extent else (0, 0)
    r['peak_tflops'] = named(p, p['stats']).get('peak_teraflops_per_second')
    r['peak_hbm_gbps'] = named(p, p['stats']).get('peak_hbm_bw_gigabytes_per_second')
    return r


def main(path, report_path=None):
    if not os.path.exists(path):
        print('skipped: %s is absent' % path)
        return 0
    planes = space(path)
    tpus = [tpu_figures(p) for p in planes if p['name'].startswith('/device:TPU:')]
    host = [p for p in planes if p['name'] == '/host:CPU']
    if not tpus:
        print('no /device:TPU: plane in %s' % path)
        return 0
    pg = json.load(open(report_path)) if report_path else None
    pm = (lambda k: pg['metrics'].get(k)) if pg else (lambda k: None)

    def show(label, xprof, perfgate=None):
        print('%-44s XProf %-28s perfgate %s' % (label, xprof, '-' if perfgate is None else perfgate))

    op_time = sum(t['op_time_ps'] for t in tpus); total = sum(t['total_time_ps'] for t in tpus)
    print('Per TPU (XProf op metrics: XLA Ops line, device time):')
    gpus = {g['id']: g for g in pg['gpus']} if pg else {}
    for i, t in enumerate(tpus):
        cats = collections.Counter()
        for o in t['ops'].values(): cats[o['cat']] += o['self']
        compute = sum(v for c, v in cats.items() if c not in ('copy-start', 'copy-done'))
        g = gpus.get(i, {})
        print('  %s chip %d: op time %.6f s (copy-done %.6f s, copy-start %.6f s, other ops %.6f s) '
              'over %.6f s first op to last: idle %.2f%%; perfgate kernel %s s, busy %s s' % (
                  t['name'], t['chip'], t['op_time_ps'] / 1e12, cats['copy-done'] / 1e12,
                  cats['copy-start'] / 1e12, compute / 1e12, t['total_time_ps'] / 1e12,
                  100 * (1 - t['op_time_ps'] / t['total_time_ps']),
                  '%.6f' % (g['kernel_us'] / 1e6) if g.get('kernel_us') is not None else '-',
                  '%.6f' % (g['busy_us'] / 1e6) if g.get('busy_us') is not None else '-'))
    show('device idle (1 - op time / op span)', '%.2f%% (%.6f of %.6f s)' % (
        100 * (1 - op_time / total), op_time / 1e12, total / 1e12),
         pm('gpu.idle_pct') and '%.2f%% (of the capture, copies busy)' % pm('gpu.idle_pct'))
    chips = collections.defaultdict(lambda: {'active': [], 'extent': []})
    for t in tpus:
        chips[t['chip']]['active'] += t['active']; chips[t['chip']]['extent'].append(t['extent'])
    busy = sum(union(c['active']) for c in chips.values())
    span = sum(max(e for _, e in c['extent']) - min(s for s, _ in c['extent']) for c in chips.values())
    print('  chips\' spans (XLA Ops and XLA Modules): ' + ', '.join(
        '%.6f s' % ((max(e for _, e in c['extent']) - min(b for b, _ in c['extent'])) / 1e12)
        for _, c in sorted(chips.items())))
    show('device duty cycle (on-duty op union / span)', '%.2f%% (%.6f of %.6f s)' % (
        100 * busy / span, busy / 1e12, span / 1e12),
         pm('gpu.busy_pct') and '%.2f%% busy' % pm('gpu.busy_pct'))
    ce = sum(t['compute_event_ps'] for t in tpus); cd = sum(t['compute_device_ps'] for t in tpus)
    print('  XLA ops other than copies: %.6f s by their events\' durations, %.6f s by device_duration_ps '
          '(%d of their events have duration 0 and ran %.6f s by the device)' % (
              ce / 1e12, cd / 1e12, sum(t['zero_events'] for t in tpus), (cd - ce) / 1e12))
    wall = pm('window.wall_us')
    show('  (compute ops only: perfgate utilization)',
         wall and '%.3f%% with device durations' % (100 * cd / 1e6 / (len(tpus) * wall)) or '-',
         pm('gpu.utilization_pct') and '%.3f%%' % pm('gpu.utilization_pct'))
    flops = sum(o['flops'] * o['n'] for t in tpus for o in t['ops'].values())
    model = sum((o['model_flops'] or o['flops']) * o['n'] for t in tpus for o in t['ops'].values())
    matrix = sum((o['model_flops'] or o['flops']) * o['n'] for t in tpus for o in t['ops'].values()
                 if o['cat'] in HIGH_FLOPS)
    show('FLOPs, all ops (flops x occurrences)', '%.6e' % flops, pm('compute.flops'))
    show('model FLOPs, all ops', '%.6e' % model)
    show('model FLOPs of high-FLOPs categories', '%.6e' % matrix)
    print('  per TPU FLOPs: ' + ', '.join('%.6e' % sum(o['flops'] * o['n'] for o in t['ops'].values())
                                         for t in tpus))
    peak = tpus[0]['peak_tflops'] * 1e12
    show('FLOPS utilization (root, idle included)', '%.4f%%' % (100 * model / (total / 1e12) / peak),
         pm('compute.mfu_pct'))
    show('FLOPS utilization (root, idle excluded)', '%.4f%%' % (100 * model / (op_time / 1e12) / peak))
    show('MXU utilization (host counter stat)',
         '%s%%' % named(host[0], host[0]['stats']).get('matrix_unit_utilization_percent') if host else 'n/a',
         pm('matrix_unit.op_time_pct') is not None and '%.1f%% (op time share)' % pm('matrix_unit.op_time_pct'))
    hi = sum(o['self'] for t in tpus for o in t['ops'].values() if o['cat'] in HIGH_FLOPS)
    show('high-FLOPs op time / op time', '%.2f%%' % (100 * hi / op_time))
    hbm = sum(sum(o['hbm'].values()) * o['n'] for t in tpus for o in t['ops'].values())
    ba = sum(o['bytes'] * o['n'] for t in tpus for o in t['ops'].values())
    bw = tpus[0]['peak_hbm_gbps'] * 1e9
    show('bytes_accessed, all ops', '%.6e' % ba)
    show('HBM bytes (memory_access_breakdown)', '%.6e' % hbm)
    show('HBM bandwidth utilization (idle included)', '%.4f%%' % (100 * hbm / (total / 1e12) / bw),
         pm('compute.mbu_pct') and '%.6f%% (MBU)' % pm('compute.mbu_pct'))
    show('HBM bandwidth utilization (idle excluded)', '%.4f%%' % (100 * hbm / (op_time / 1e12) / bw))
    nocopy = [o for t in tpus for o in t['ops'].values() if o['cat'] not in ('copy-start', 'copy-done')]
    hbm_nc = sum(sum(o['hbm'].values()) * o['n'] for o in nocopy)
    ba_nc = sum(o['bytes'] * o['n'] for o in nocopy)
    print('  ops other than copies: %.6e HBM bytes, %.6e bytes_accessed' % (hbm_nc, ba_nc))
    if wall:
        show('  their bytes at peak / (window x TPUs)', '%.4f%% (window %.6f s)' % (
            100 * ba_nc / bw / (len(tpus) * wall / 1e6), wall / 1e6), '%.6f%% (MBU)' % pm('compute.mbu_pct'))
    # copies: XProf times a copy by its copy-done op; perfgate by copy-start begin to copy-done end
    d = collections.defaultdict(collections.Counter)
    for t in tpus:
        for o in t['ops'].values():
            if o['cat'] != 'copy-done': continue
            way = 'd2h' if 'S(5)' in o['shape'] else 'h2d'
            d[way]['n'] += o['n']; d[way]['bytes'] += o['bytes'] * o['n']; d[way]['ps'] += o['self']
    for way in sorted(d):
        show('copy-done %s: %d ops, %d bytes, %.6f s' % (way, d[way]['n'], d[way]['bytes'], d[way]['ps'] / 1e12),
             '%.4f GB/s over copy-done time' % (d[way]['bytes'] / (d[way]['ps'] / 1e12) / 1e9),
             pm('memcpy.%s_gbps' % way) and '%.4f GB/s (copy-start to copy-done)' % pm('memcpy.%s_gbps' % way))
    groups = collections.Counter()
    for t in tpus:
        for o in t['ops'].values():
            groups[o['tf_op'].rsplit(':', 1)[0] if o['tf_op'] else o['name']] += o['self']
    print('Top device ops (XProf overview: by framework op, self time / op time):')
    for name, ps in groups.most_common(6):
        print('  %-44s %6.2f%%  %.6f s' % (name, 100 * ps / op_time, ps / 1e12))
    cats = collections.Counter()
    for t in tpus:
        for o in t['ops'].values(): cats[o['cat']] += o['self']
    print('By category (XProf op profile):', ', '.join('%s %.2f%%' % (c, 100 * v / op_time)
                                                        for c, v in cats.most_common()))
    show('steps (TPU "Steps" line)', 'none' if not any(t['steps_line'] for t in tpus) else 'present',
         pm('steps.count'))
    return 0


if __name__ == '__main__':
    here = os.path.dirname(os.path.abspath(__file__))
    default = os.path.join(here, '..', '..', '..', 'shared', 'references', 'tpu',
                           'tpu_v6e_inference_xprof.xplane.pb')
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else os.path.normpath(default),
                  sys.argv[2] if len(sys.argv) > 2 else None))
