"""The protobuf wire format as the XSpace fuzz seeds write it (xplane_hlo_seed.py, xplane_tpu_seed.py):
varints, and varint (i) and length-delimited (b, s) fields by number."""


def varint(v):
    v &= (1 << 64) - 1
    out = b''
    while v >= 0x80:
        out += bytes([(v & 0x7f) | 0x80]); v >>= 7
    return out + bytes([v])


def i(n, v): return varint(n << 3) + varint(v)
def b(n, data): return varint((n << 3) | 2) + varint(len(data)) + data
def s(n, text): return b(n, text.encode())
