#!/usr/bin/env python3
"""Writes the fuzz seeds for xplane_fuzz that reach the TPU and TensorFlow-steps paths (issue 75):
  tpu:   a /device:TPU:0 plane ("TPU v6 lite") whose "XLA Ops" events carry XLA's counts on their
         metadata (flops, model_flops, bytes_accessed, hlo_category, tf_op; display names the
         instructions) and on the events, and a host plane whose TfrtTpuLoadedExecutable::Execute
         calls launch them (src/load/xplane/tpu_ops.cpp), one returning after its ops, one before;
  steps: two GPU planes whose "Steps" lines mark steps by group_id stat, by name and as "Step N",
         and a host plane of launches and a TraceMe name that encodes its step ("train#step_num=3,_r=1#")
         (src/load/xplane/steps.cpp, host_plane.cpp);
  steps-apart: two GPU planes that mark step 0 at times 647 ms apart, each launched from a thread of
         its own: a worker per GPU (src/load/xplane/steps.cpp, device_groups.cpp);
  tpu-hlo: a TPU plane whose ops carry no cost stats, matched to the HLO module of a /host:metadata
         plane (jit_step, program 7: a dot and a fusion) by a program_id stat and by the "XLA Modules"
         run around them, one op the module does not hold (src/load/xplane/tpu_ops.cpp);
  sparse-core: a TPU plane and two "/device:TPU:N SparseCore M" planes whose "Sparse Core Ops" lines
         are read as their TPU's work, one of a TPU with no TensorCore plane (device_plane.cpp);
  tpu-lines: a TPU plane of 5,000 "XLA Ops" lines of one op each at the same instant (issue 92);
  tpu-links: 3,000 program runs linked to their calls through TraceMe contexts, consumers nested 20 deep,
         a link into itself and 50 producers of one id (issue 91, src/load/xplane/tpu_launches.cpp).
Field numbers: tsl/profiler/protobuf/xplane.proto, xla/service/hlo.proto, xla/xla_data.proto.
Usage: xplane_tpu_seed.py tpu|steps|steps-apart|tpu-hlo|sparse-core|tpu-lines|tpu-links OUT"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from xspace_pb import b, i, s, varint  # noqa: E402
def stat_i(key, v): return i(1, key) + i(4, v)
def stat_s(key, text): return i(1, key) + s(5, text)
def event(meta, offset_ps, duration_ps, stats=()): return i(1, meta) + i(2, offset_ps) + i(3, duration_ps) + b''.join(b(4, x) for x in stats)
def line(lid, name, events): return i(1, lid) + s(2, name) + i(3, 0) + b''.join(b(4, e) for e in events)


def plane(pid, name, lines, events, stats, plane_stats=()):
    out = i(1, pid) + s(2, name) + b''.join(b(3, l) for l in lines)
    for key, (n, display, st) in events.items():
        meta = i(1, key) + s(2, n) + (s(4, display) if display else b'') + b''.join(b(5, x) for x in st)
        out += b(4, i(1, key) + b(2, meta))
    for key, n in stats.items():
        out += b(5, i(1, key) + b(2, i(1, key) + s(2, n)))
    return out + b''.join(b(6, x) for x in plane_stats)


STATS = {1: 'flops', 2: 'model_flops', 3: 'bytes_accessed', 4: 'hlo_category', 5: 'tf_op', 6: 'device_type_string',
         7: 'group_id', 8: 'correlation_id', 9: 'step_num'}


def tpu():
    ops = {1: ('%fusion.1 = bf16[128,256]{1,0} fusion(p0, p1), kind=kOutput', 'fusion.1',
               [stat_i(1, 4000000000), stat_i(2, 3000000000), stat_i(3, 1000000), stat_s(4, 'convolution fusion'),
                stat_s(5, 'model/dense/MatMul')]),
           2: ('%fusion.2 = f32[128,256]{1,0} fusion(fusion.1), kind=kLoop', 'fusion.2',
               [stat_i(3, 2000000), stat_s(4, 'loop fusion')])}
    xla_ops = [event(1, 1000000, 5000000), event(2, 6000000, 3000000, [stat_i(1, 1000000)]),
               event(2, 21500000, 3500000, [stat_i(1, 1000000)])]
    device = plane(3, '/device:TPU:0', [line(1, 'XLA Ops', xla_ops), line(2, 'XLA Modules', [event(1, 1000000, 8000000)]),
                                        line(3, 'Steps', [event(3, 0, 10000000, [stat_i(7, 1)])])],
                   {**ops, 3: ('Step 1', None, [])}, STATS, [stat_s(6, 'TPU v6 lite')])
    host = plane(0, '/host:CPU', [line(4, 'tf_inference', [event(1, 0, 10000000), event(1, 20000000, 1000000)])],
                 {1: ('TfrtTpuLoadedExecutable::Execute', None, [])}, STATS)
    return b(1, device) + b(1, host)


def steps():
    out = b''
    for d in (0, 1):
        kernels = [event(1, 1000000, 8000000, [stat_i(8, 1 + 10 * d)]),
                   event(1, 13000000 + d * 1000000, 6000000, [stat_i(8, 2 + 10 * d)])]
        marks = [event(2, 0, 10000000, [stat_i(7, 4)]), event(3, 12000000 + d * 1000000, 8000000)]
        if d == 0: marks.append(event(4, 30000000, 5000000))
        out += b(1, plane(d + 1, f'/device:GPU:{d}', [line(1, 'Stream #1(Compute)', kernels), line(2, 'Steps', marks)],
                          {1: ('volta_sgemm_128x64_nn', None, []), 2: ('4', None, []), 3: ('5', None, []),
                           4: ('Step 6', None, [])}, STATS))
    launches = [event(100, 500000 + k * 11700000, 100000, [stat_i(8, c)]) for d in (0, 1) for k, c in
                enumerate((1 + 10 * d, 2 + 10 * d))]
    host = plane(0, '/host:CPU', [line(5, 'python', [event(1, 0, 11000000)] + launches)],
                 {1: ('train#step_num=3,_r=1#', None, []), 100: ('cuLaunchKernel', None, [])}, STATS)
    return out + b(1, host)


def steps_apart():
    ms = 1000000000
    out, launches = b'', {}
    for d, start, kernels in ((4, 1, ((2, 8), (11, 7))), (6, 648, ((650, 11),))):
        stream = [event(1, k * ms, n * ms, [stat_i(8, d * 100 + j + 1)]) for j, (k, n) in enumerate(kernels)]
        launches[d] = [event(100, (k * ms) - ms // 2, ms // 10, [stat_i(8, d * 100 + j + 1)])
                       for j, (k, _) in enumerate(kernels)]
        out += b(1, plane(d, f'/device:GPU:{d}', [line(1, 'Stream #1(Compute)', stream),
                                                   line(2, 'Steps', [event(2, start * ms, 20 * ms, [stat_i(7, 0)])])],
                          {1: ('volta_sgemm_128x64_nn', None, []), 2: ('0', None, [])}, STATS))
    host = plane(0, '/host:CPU', [line(5, 'worker-0', launches[4]), line(6, 'worker-1', launches[6])],
                 {100: ('cuLaunchKernel', None, [])}, STATS)
    return out + b(1, host)


def shape(t, dims): return i(2, t) + (b(3, b''.join(varint(d) for d in dims)) if dims else b'')
def instr(name, op, shp, iid, operands, extra=b''):
    return s(1, name) + s(2, op) + b(3, shp) + i(35, iid) + b''.join(i(36, o) for o in operands) + extra
def comp(name, cid, instrs): return s(1, name) + i(5, cid) + b''.join(b(2, x) for x in instrs)


def tpu_hlo():
    BF16, F32 = 16, 11
    main = [instr('p2', 'parameter', shape(F32, [64, 128]), 4, []),
            instr('p3', 'parameter', shape(F32, [128, 256]), 5, []),
            instr('dot.1', 'dot', shape(F32, [64, 256]), 6, [4, 5], b(30, i(1, 1) + i(2, 0))),
            instr('p4', 'parameter', shape(BF16, [8, 16, 16, 64]), 7, []),
            instr('fusion.2', 'fusion', shape(BF16, [8, 16, 16, 64]), 8, [7], i(38, 2))]
    fused = [instr('param_0', 'parameter', shape(BF16, [8, 16, 16, 64]), 1, []),
             instr('multiply', 'multiply', shape(BF16, [8, 16, 16, 64]), 2, [1, 1])]
    hlo = b(1, s(1, 'jit_step') + b(3, comp('fused', 2, fused)) + b(3, comp('main', 1, main)))
    stats = {**STATS, 10: 'program_id', 11: 'Hlo Proto'}
    ops = {1: ('%dot.1 = f32[64,256]{1,0} dot(p2, p3)', 'dot.1', [stat_i(10, 7)]),
           2: ('%fusion.2 = bf16[8,16,16,64]{3,2,1,0} fusion(p4), kind=kLoop', 'fusion.2', [stat_s(4, 'loop fusion')]),
           3: ('%copy.9 = f32[64,256]{0,1} copy(dot.1)', 'copy.9', [stat_i(10, 7)]),
           4: ('jit_step(7)', None, [])}
    xla_ops = [event(1, 1000000, 2000000), event(2, 3000000, 2000000),
               event(1, 5000000, 1000000, [stat_i(1, 1000), stat_i(3, 2000)]), event(3, 6000000, 1000000)]
    device = plane(3, '/device:TPU:0', [line(1, 'XLA Ops', xla_ops), line(2, 'XLA Modules', [event(4, 0, 10000000)])],
                   ops, stats, [stat_s(6, 'TPU v6 lite')])
    host = plane(0, '/host:CPU', [line(4, 'tf_inference', [event(1, 0, 10000000)])],
                 {1: ('TfrtTpuLoadedExecutable::Execute', None, [])}, stats)
    meta = plane(0, '/host:metadata', [], {7: ('jit_step(7)', None, [i(1, 11) + b(6, hlo)])}, stats)
    return b(1, device) + b(1, host) + b(1, meta)


def sparse_core():
    ops = {1: ('%fusion.1 = bf16[128,256]{1,0} fusion(p0, p1), kind=kOutput', 'fusion.1', [stat_s(4, 'convolution fusion')])}
    out = b(1, plane(3, '/device:TPU:0', [line(1, 'XLA Ops', [event(1, 1000000, 2000000)])], ops, STATS,
                     [stat_s(6, 'TPU v5p')]))
    for pid, name, start in ((4, '/device:TPU:0 SparseCore 0', 5000000), (5, '/device:TPU:1 SparseCore 1', 0)):
        out += b(1, plane(pid, name, [line(7, 'Sparse Core Ops', [event(1, start, 2000000)]),
                                      line(8, 'Sparse Core Modules', [event(2, start, 2000000)])],
                          {1: ('sc_gather', None, []), 2: ('jit_embed(3)', None, [])}, STATS))
    return out


def tpu_lines(count=5000):
    # Issue 92, item 1: a TPU plane of 5,000 "XLA Ops" lines, one op each at the same instant (about
    # 200 KB), ran for ever where 4,200 lines took 0.08 s (the step timeline's merge of small boxes).
    ops = {1: ('%fusion.1 = f32[8]{0} fusion(p0), kind=kLoop', 'fusion.1', [stat_s(4, 'loop fusion')])}
    lines = [line(10 + k, 'XLA Ops', [event(1, 1000000, 2000000)]) for k in range(count)]
    device = plane(3, '/device:TPU:0', lines + [line(2, 'Steps', [event(2, 0, 10000000, [stat_i(7, 1)])])],
                   {**ops, 2: ('Step 1', None, [])}, STATS, [stat_s(6, 'TPU v6 lite')])
    host = plane(0, '/host:CPU', [line(4, 'tf_inference', [event(1, 0, 10000000)])],
                 {1: ('TfrtTpuLoadedExecutable::Execute', None, [])}, STATS)
    return b(1, device) + b(1, host)


def tpu_links(count=3000):
    # Issue 91: program runs joined to their Execute calls by TraceMe context links (_pt/_p, _ct/_c;
    # src/load/xplane/tpu_launches.cpp), the host far ahead of the TPU: 3,000 calls back to back on one
    # thread, each producing a runtime context (type 7) that a queue thread consumes around a launch
    # context (type 12) that a run consumes; every consumer also nested 20 deep in one long one, a link
    # that points back into itself, and 50 producers of one id. The walk is bounded: linear time.
    st = {**STATS, 10: '_pt', 11: '_p', 12: '_ct', 13: '_c'}
    def produced(kind, k): return [stat_i(10, kind), stat_i(11, k)]
    def consumed(kind, k): return [stat_i(12, kind), stat_i(13, k)]
    ops = {1: ('%fusion.1 = f32[8]{0} fusion(p0), kind=kLoop', 'fusion.1', [stat_s(4, 'loop fusion')]),
           2: ('jit_f(1)', None, [])}
    us = 1000000
    runs = [event(2, (10 * count + k * 5) * us, 5 * us, consumed(12, 200000 + k)) for k in range(count)]
    xla = [event(1, (10 * count + k * 5) * us, 5 * us) for k in range(count)]
    device = plane(3, '/device:TPU:0', [line(1, 'XLA Ops', xla), line(2, 'XLA Modules', runs)], ops, st,
                   [stat_s(6, 'TPU v6 lite')])
    calls, queue = [], [event(5, 0, 10 * count * us, consumed(7, 999))]  # one consumer around them all
    for d in range(20):
        queue.append(event(5, d * us, (10 * count - 2 * d) * us, consumed(7, 100000 + d)))
    for k in range(count):
        calls += [event(1, k * 10 * us, 10 * us), event(3, k * 10 * us, 8 * us),
                  event(4, (k * 10 + 9) * us, us // 2, produced(7, 100000 + k))]
        queue += [event(5, (k * 10 + 9) * us + us // 2, us // 4, consumed(7, 100000 + k)),
                  event(6, (k * 10 + 9) * us + us // 2, us // 8, produced(12, 200000 + k))]
    queue += [event(6, 5 * us, us, produced(7, 999)) for _ in range(50)]  # a link back into itself, 50 times
    host = plane(0, '/host:CPU', [line(4, 'py_xla_execute', calls), line(5, 'tfrt-non-blocking-queue', queue)],
                 {1: ('Scheduled TfrtTpuLoadedExecutable::Execute', None, []), 3: ('Acquire semaphore', None, []),
                  4: ('tpu::System::Execute', None, []), 5: ('tpu::System::Execute=>IssueSequencedEvent', None, []),
                  6: ('DoEnqueueProgram', None, [])}, st)
    return b(1, device) + b(1, host)


seeds = {'tpu': tpu, 'steps': steps, 'steps-apart': steps_apart, 'tpu-hlo': tpu_hlo, 'sparse-core': sparse_core,
         'tpu-lines': tpu_lines, 'tpu-links': tpu_links}
open(sys.argv[2], 'wb').write(seeds[sys.argv[1]]())
