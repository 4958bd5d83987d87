#!/usr/bin/env python3
"""Writes a fuzz seed for xplane_fuzz that reaches the HLO path (src/load/xplane/hlo.cpp, xla_ops.cpp):
a /host:metadata plane whose event metadata 7 carries an "Hlo Proto" stat (module jit_step: a cuDNN
convolution custom call, a dot, a fusion of a multiply, a transpose), a GPU plane whose kernels name
those instructions, and a host plane with their launches. Field numbers: tsl/profiler/protobuf/xplane.proto,
xla/service/hlo.proto, xla/xla_data.proto. Usage: xplane_hlo_seed.py OUT [N] (N: a wide fusion tree, below)"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from xspace_pb import b, i, s, varint  # noqa: E402


def shape(t, dims): return i(2, t) + (b(3, b''.join(varint(d) for d in dims)) if dims else b'')
def instr(name, op, shp, iid, operands, extra=b''):
    return s(1, name) + s(2, op) + b(3, shp) + i(35, iid) + b''.join(i(36, o) for o in operands) + extra


BF16, F32, U8, TUPLE = 16, 11, 6, 13
conv = b(16, i(7, 0) + i(8, 3) + i(11, 1) + i(11, 2) + i(3, 2) + i(4, 3) + i(6, 0) + i(6, 1))
main = [instr('p0', 'parameter', shape(BF16, [8, 32, 32, 16]), 1, []),
        instr('p1', 'parameter', shape(BF16, [3, 3, 16, 64]), 2, []),
        instr('cudnn-conv.1', 'custom-call', i(2, TUPLE) + b(4, shape(BF16, [8, 16, 16, 64])) + b(4, shape(U8, [1024])),
              3, [1, 2], conv + s(28, '__cudnn$convForward')),
        instr('p2', 'parameter', shape(F32, [64, 128]), 4, []),
        instr('p3', 'parameter', shape(F32, [128, 256]), 5, []),
        instr('dot.1', 'dot', shape(F32, [64, 256]), 6, [4, 5], b(30, i(1, 1) + i(2, 0))),
        instr('p4', 'parameter', shape(BF16, [8, 16, 16, 64]), 7, []),
        instr('fusion.2', 'fusion', shape(BF16, [8, 16, 16, 64]), 8, [7], i(38, 2)),
        instr('transpose.3', 'transpose', shape(BF16, [64, 8, 16, 16]), 9, [7])]
fused = [instr('param_0', 'parameter', shape(BF16, [8, 16, 16, 64]), 1, []),
         instr('multiply', 'multiply', shape(BF16, [8, 16, 16, 64]), 2, [1, 1])]
def comp(name, cid, instrs): return s(1, name) + i(5, cid) + b''.join(b(2, x) for x in instrs)
# With N: a wide fusion tree (issue 78): computations 2, 3 and 4 each hold N fusions calling the
# next, and 5 the multiply, so that a cost walk that re-enters each body costs N^4 (N = 1,000: ~8 h
# before the cost was memoised per computation), a memoised one N.
wide = int(sys.argv[2]) if len(sys.argv) > 2 else 0
if wide:
    bodies = b''
    for c in (2, 3, 4):
        body = [fused[0]] + [instr(f'fusion.{c}.{k}', 'fusion', shape(BF16, [8, 16, 16, 64]), k + 2, [1], i(38, c + 1))
                             for k in range(wide)]
        bodies += b(3, comp(f'wide{c}', c, body))
    hlo = b(1, s(1, 'jit_step') + bodies + b(3, comp('fused', 5, fused)) + b(3, comp('main', 1, main)))
else:
    hlo = b(1, s(1, 'jit_step') + b(3, comp('fused', 2, fused)) + b(3, comp('main', 1, main)))


def plane(name, lines, events, stats, stat_meta={}):
    out = i(1, 0) + s(2, name) + b''.join(b(3, l) for l in lines)
    for key, (n, st) in events.items():
        out += b(4, i(1, key) + b(2, i(1, key) + s(2, n) + b''.join(b(5, x) for x in st)))
    for key, n in stats.items():
        out += b(5, i(1, key) + b(2, i(1, key) + s(2, n)))
    return out


STATS = {1: 'Hlo Proto', 2: 'correlation_id', 3: 'hlo_op', 4: 'hlo_module', 5: 'program_id'}
meta = plane('/host:metadata', [], {7: ('jit_step(7)', [i(1, 1) + b(6, hlo)])}, STATS)
ops = ['cudnn-conv.1', 'cudnn-conv.1', 'dot.1', 'fusion.2', 'transpose.3']
kernels = b''.join(b(4, i(1, k + 1) + i(2, 1000000 * (k + 1)) + i(3, 500000) + b(4, i(1, 2) + i(4, 11 + k)) +
                     b(4, i(1, 3) + s(5, op)) + b(4, i(1, 4) + s(5, 'jit_step')) + b(4, i(1, 5) + i(4, 7)))
                   for k, op in enumerate(ops))
gpu = plane('/device:GPU:0', [i(1, 1) + s(2, 'Stream #1(Kernel)') + i(3, 0) + kernels],
            {k + 1: (f'kernel{k}', []) for k in range(len(ops))}, STATS)
launches = b''.join(b(4, i(1, 1) + i(2, 1000000 * (k + 1) - 400000) + i(3, 10000) + b(4, i(1, 2) + i(4, 11 + k)))
                    for k in range(len(ops)))
host = plane('/host:CPU', [i(1, 5) + s(2, 'py_xla_execute') + i(3, 0) + launches], {1: ('hipModuleLaunchKernel', [])}, STATS)
open(sys.argv[1], 'wb').write(b(1, meta) + b(1, gpu) + b(1, host))
