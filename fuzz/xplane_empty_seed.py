#!/usr/bin/env python3
"""Writes an XSpace of N empty structures (issue 78): each two bytes of the file and tens of bytes
once read, which perfgate must count against --max-input-memory before it makes them.
  lines         a GPU plane of N empty lines
  events        a GPU stream line of N empty events
  event-stats   one event of N empty stats
  plane-stats   a plane of N empty stats
Field numbers: tsl/profiler/protobuf/xplane.proto. Usage: xplane_empty_seed.py KIND N OUT"""
import sys


def varint(v):
    out = b''
    while v >= 0x80:
        out += bytes([(v & 0x7f) | 0x80]); v >>= 7
    return out + bytes([v])


def b(n, data): return varint((n << 3) | 2) + varint(len(data)) + data


kind, n, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
empty = lambda field: varint((field << 3) | 2) + b'\x00'
gpu = b(2, b'/device:GPU:0')
stream = varint(1 << 3) + varint(1) + b(2, b'Stream #1')
if kind == 'lines':
    plane = gpu + empty(3) * n
elif kind == 'events':
    plane = gpu + b(3, stream + empty(4) * n)
elif kind == 'event-stats':
    plane = gpu + b(3, stream + b(4, varint(1 << 3) + varint(1) + empty(4) * n))
elif kind == 'plane-stats':
    plane = gpu + empty(6) * n
else:
    sys.exit(f'unknown kind {kind}')
with open(out, 'wb') as f:
    f.write(b(1, plane))
