#!/usr/bin/env python3
"""png_check.py: what a screenshot of the app shows, for survive.sh (standard library only).

Usage: png_check.py FILE.png WIDTH HEIGHT MIN_COLOURS RRGGBB MIN_PIXELS
Checks the PNG is WIDTH x HEIGHT, has at least MIN_COLOURS distinct colours (a blank or
single-colour frame fails) and at least MIN_PIXELS pixels of colour RRGGBB (a feature the app
draws in that colour). Prints one line saying what it found; exit 0 if all hold, else 1.
"""
import struct
import sys
import zlib


def read_png(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, ihdr = 8, b"", None
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind = data[pos + 4:pos + 8]
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            ihdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    width, height, depth, colour, _, _, interlace = ihdr
    if depth != 8 or colour not in (2, 6) or interlace != 0:
        raise ValueError("only 8-bit RGB/RGBA, not interlaced")
    bpp = 3 if colour == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * bpp
    rows, prev, i = [], bytearray(stride), 0
    for _ in range(height):
        ftype = raw[i]
        line = bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b = prev[x]
            c = prev[x - bpp] if x >= bpp else 0
            if ftype == 1:
                line[x] = (line[x] + a) & 255
            elif ftype == 2:
                line[x] = (line[x] + b) & 255
            elif ftype == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif ftype == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return width, height, bpp, rows


def main():
    path, w, h, min_colours, rgb, min_pixels = sys.argv[1:7]
    want = bytes.fromhex(rgb)
    width, height, bpp, rows = read_png(path)
    colours, hits = set(), 0
    for row in rows:
        for x in range(0, len(row), bpp):
            px = row[x:x + 3]
            colours.add(px)
            hits += px == want
    ok = width == int(w) and height == int(h) and len(colours) >= int(min_colours) and hits >= int(min_pixels)
    print(f"{path}: {width}x{height}, {len(colours)} colours, {hits} pixels of #{rgb}"
          f" (wanted {w}x{h}, >= {min_colours} colours, >= {min_pixels} of #{rgb})")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
