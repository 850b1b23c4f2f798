#!/usr/bin/env python3
"""RMSE of a linear PFM image against a reference PFM (all channels), in
plain Python (no numpy on the GPU machine).

    scripts/bench/image_error.py IMAGE.pfm REFERENCE.pfm
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
    return values


def main():
    image, reference = read_pfm(sys.argv[1]), read_pfm(sys.argv[2])
    assert len(image) == len(reference)
    total = 0.0
    for a, b in zip(image, reference):
        total += (a - b) * (a - b)
    print("%.6g" % math.sqrt(total / len(image)))


if __name__ == "__main__":
    main()
