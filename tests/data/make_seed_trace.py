#!/usr/bin/env python3
"""make_seed_trace.py OUT: writes a synthetic trace (sim/trace.hpp, version 1) of one 32x32 block of
the seed transpose, as bankscope-gpu trace would record it on sm_90: per warp w the row write
tile[w][tx] (STS, pc 0x100, line 12) and the column read tile[tx][w] (LDS, pc 0x200, line 14), with
the 1 KiB reserved window before the tile. Used by tests/cli_tests.sh; the same trace is built in
C++ by tests/test_trace.cpp."""
import sys


def varint(v):
    out = bytearray()
    while v >= 0x80:
        out.append((v & 0x7f) | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)


def zz(v):
    return varint(v << 1 if v >= 0 else ((-v) << 1) - 1)


def string(s):
    return varint(len(s)) + s.encode()


def record(tag, payload):
    return tag.encode() + varint(len(payload)) + payload


def main():
    res = 1024
    out = b"BSTRACE\0" + (1).to_bytes(4, "little")
    out += record("K", varint(0) + string("transpose_seed") + b"".join(varint(x) for x in (1, 1, 1, 32, 32, 1))
                  + varint(4096) + varint(res) + varint(0))
    out += record("P", varint(0) + varint(0x100) + bytes([1]) + varint(4) + string("STS") + string("transpose.cu") + varint(12))
    out += record("P", varint(1) + varint(0x200) + bytes([0]) + varint(4) + string("LDS") + string("transpose.cu") + varint(14))
    warps = b""
    for pc, (base, stride) in enumerate([(lambda w: res + 128 * w, 4), (lambda w: res + 4 * w, 128)]):
        for w in range(32):
            warps += varint(0) + varint(w) + varint(pc) + (0xffffffff).to_bytes(4, "little")
            warps += varint(base(w)) + bytes([0]) + zz(stride)
    out += record("W", varint(64) + warps)
    out += record("E", varint(0) + varint(64) + varint(0) + varint(0))
    out += record("Z", varint(1) + zz(0))
    with open(sys.argv[1], "wb") as f:
        f.write(out)


if __name__ == "__main__":
    main()
