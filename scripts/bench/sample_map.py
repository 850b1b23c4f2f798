#!/usr/bin/env python3
"""The samples AOV (a greyscale PFM of per-pixel sample counts) as a PNG
heat map: log scale from the fewest samples in the image (black) through
purple and orange to MAX_SPP (pale yellow), with a scale bar of the same
colours along the bottom. Plain Python (no numpy on the GPU machine).

    scripts/bench/sample_map.py SAMPLES.pfm OUT.png MAX_SPP
"""
import math
import struct
import sys
import zlib

from image_error import read_pfm

# Control points of the colour map (an inferno-like ramp), t in [0, 1].
RAMP = [(0.0, (0, 0, 4)), (0.25, (87, 16, 110)), (0.5, (188, 55, 84)), (0.75, (249, 142, 9)), (1.0, (252, 255, 164))]


def colour(t):
    t = min(max(t, 0.0), 1.0)
    for (t0, c0), (t1, c1) in zip(RAMP, RAMP[1:]):
        if t <= t1:
            f = (t - t0) / (t1 - t0)
            return bytes(round(a + (b - a) * f) for a, b in zip(c0, c1))
    return bytes(RAMP[-1][1])


def read_counts(path):
    values, width, height = read_pfm(path)
    assert len(values) == width * height, "not a greyscale PFM"
    # PFM rows run bottom to top.
    rows = [values[(height - 1 - y) * width:(height - y) * width] for y in range(height)]
    return rows, width, height


def write_png(path, rows, width):
    raw = b"".join(b"\x00" + row for row in rows)
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n")
        f.write(chunk(b"IHDR", struct.pack(">IIBBBBB", width, len(rows), 8, 2, 0, 0, 0)))
        f.write(chunk(b"IDAT", zlib.compress(raw, 9)))
        f.write(chunk(b"IEND", b""))


def main():
    rows, width, height = read_counts(sys.argv[1])
    top = float(sys.argv[3])
    bottom = max(1.0, min(min(row) for row in rows))
    span = math.log(top) - math.log(bottom) or 1.0
    scale = lambda n: (math.log(max(n, bottom)) - math.log(bottom)) / span
    image = [b"".join(colour(scale(n)) for n in row) for row in rows]
    bar = b"".join(colour(x / (width - 1)) for x in range(width))
    image += [b"\xff" * (3 * width)] * 2 + [bar] * max(4, height // 20)
    write_png(sys.argv[2], image, width)
    print("%s: %d to %g samples per pixel, log scale" % (sys.argv[2], bottom, top))


if __name__ == "__main__":
    main()
