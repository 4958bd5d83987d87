#!/usr/bin/env python3
"""Writes memory-snapshot pickles whose memo is shared (issue 78): small files that name one value
and place it many times through BINGET, which perfgate must count as placed, not as stored.
  blocks  segments=[seg]*N, seg holding B blocks (Python's pickler: one seg, then N-1 BINGETs)
  steps   device_traces=[[entry]*N] (one trace entry, then N-1 BINGETs)
  traces  device_traces=[[entry]*M]*N (one device's trace placed on N devices)
  gets    N LONG_BINGETs of distinct indices far apart (the first pass's index set)
Usage: snapshot_memo_seed.py KIND N [B|M] OUT   (B: blocks per segment, M: entries per trace; 5000)"""
import pickle
import struct
import sys

kind, n = sys.argv[1], int(sys.argv[2])
out = sys.argv[-1]
frames = [{'name': 'fwd', 'filename': 'm.py', 'line': 3}]
if kind == 'blocks':
    b = int(sys.argv[3]) if len(sys.argv) > 4 else 5000
    blocks = [{'address': 4096 + 512 * k, 'size': 512, 'state': 'active_allocated', 'frames': frames}
              for k in range(b)]
    seg = {'device': 0, 'address': 4096, 'total_size': 512 * b, 'is_expandable': False, 'blocks': blocks}
    data = pickle.dumps({'segments': [seg] * n, 'device_traces': []}, protocol=4)
elif kind == 'steps':
    entry = {'action': 'alloc', 'addr': 4096, 'size': 4, 'time_us': 1, 'frames': frames}
    data = pickle.dumps({'segments': [], 'device_traces': [[entry] * n]}, protocol=4)
elif kind == 'traces':
    m = int(sys.argv[3]) if len(sys.argv) > 4 else 5000
    entry = {'action': 'alloc', 'addr': 4096, 'size': 4, 'time_us': 1, 'frames': frames}
    data = pickle.dumps({'segments': [], 'device_traces': [[entry] * m] * n}, protocol=4)
elif kind == 'gets':
    # {'segments': [], ...} with, before the list is placed, GETs of indices spread over 2^32 (a
    # permutation: all distinct), each popped: PROTO 4, EMPTY_DICT, 'segments', EMPTY_LIST, GETs.
    head = b'\x80\x04}\x94\x8c\x08segments\x94]\x94'
    gets = b''.join(b'j' + struct.pack('<I', (k * 2654435761) & 0xffffffff) + b'0' for k in range(1, n + 1))
    data = head + gets + b's.'
else:
    sys.exit(f'unknown kind {kind}')
with open(out, 'wb') as f:
    f.write(data)
