#!/usr/bin/env python3
"""RMSE of a linear PFM image against a reference PFM (all channels), in
plain Python (no numpy on the GPU machine). With --sqrt, of the square roots
of the values instead (gamma 2, about how a display spreads the error: the
measure adaptive sampling's noise_threshold equalises). With --sqrt-blocks,
the square roots' RMSE of each 8x8 block, and the 99th percentile of those
(the noisiest 1% of the image). With --outside LEVEL, also the
RMSE over the pixels away from those where the reference exceeds LEVEL
(their 3x3 neighbourhoods left out): lamps seen directly, whose edge pixels'
noise comes from where in the pixel a sample lands, the same for every
integrator.

    scripts/bench/image_error.py IMAGE.pfm REFERENCE.pfm [--outside LEVEL | --sqrt | --sqrt-blocks]
"""
import array
import math
import sys


def read_pfm(path):
    with open(path, "rb") as f:
        kind = f.readline().strip()
        width, height = map(int, f.readline().split())
        scale = float(f.readline())
        values = array.array("f")
        values.frombytes(f.read())
    if scale > 0:
        values.byteswap()
    channels = 3 if kind == b"PF" else 1
    assert len(values) == width * height * channels, path
    return values, width, height


def rmse(image, reference, skip=frozenset()):
    total, count = 0.0, 0
    for pixel in range(len(reference) // 3):
        if pixel in skip:
            continue
        for k in range(3):
            d = image[3 * pixel + k] - reference[3 * pixel + k]
            total += d * d
        count += 3
    return math.sqrt(total / count)


def main():
    image, width, height = read_pfm(sys.argv[1])
    reference, reference_width, _ = read_pfm(sys.argv[2])
    assert len(image) == len(reference) and width == reference_width
    if sys.argv[3:4] in (["--sqrt"], ["--sqrt-blocks"]):
        image = [math.sqrt(max(v, 0.0)) for v in image]
        reference = [math.sqrt(max(v, 0.0)) for v in reference]
    if sys.argv[3:4] == ["--sqrt-blocks"]:
        blocks = []
        for by in range(0, height - 7, 8):
            for bx in range(0, width - 7, 8):
                total = 0.0
                for y in range(by, by + 8):
                    for i in range(3 * (y * width + bx), 3 * (y * width + bx + 8)):
                        total += (image[i] - reference[i]) ** 2
                blocks.append(math.sqrt(total / 192))
        blocks.sort()
        print("%.6g" % blocks[int(0.99 * (len(blocks) - 1))])
        return
    line = "%.6g" % rmse(image, reference)
    if len(sys.argv) > 4 and sys.argv[3] == "--outside":
        level = float(sys.argv[4])
        skip = set()
        for pixel in range(width * height):
            if max(reference[3 * pixel:3 * pixel + 3]) > level:
                x, y = pixel % width, pixel // width
                for dy in (-1, 0, 1):
                    for dx in (-1, 0, 1):
                        if 0 <= x + dx < width and 0 <= y + dy < height:
                            skip.add((y + dy) * width + x + dx)
        line += " %.6g" % rmse(image, reference, skip)
    print(line)


if __name__ == "__main__":
    main()
