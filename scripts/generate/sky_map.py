#!/usr/bin/env python3
"""Writes configs/textures/sky.pfm: a small generated high-dynamic-range sky
for configs/lights.yaml, a latitude-longitude map as farmrt reads it
(docs/scene-format.md, background.environment): a blue gradient above the
horizon, a dim brown ground below, and a small sun some 1,000 times
brighter than the sky, 35 degrees up and a quarter turn to the right of -z.
Linear float PFM, so that farmrt reads it with or without OpenImageIO.
Deterministic: the same arguments always write the same bytes.

    python3 scripts/generate/sky_map.py [--width 256] [--height 128] [--output configs/textures/sky.pfm]
"""
import argparse
import math
import struct


def radiance(direction):
    x, y, z = direction
    if y < 0:
        return (0.12, 0.09, 0.06)
    up = y ** 0.5
    sky = (0.35 + 0.25 * (1 - up), 0.55 + 0.2 * (1 - up), 1.0)
    elevation, azimuth = math.radians(35), math.radians(90)
    sun = (math.cos(elevation) * math.sin(azimuth), math.sin(elevation), -math.cos(elevation) * math.cos(azimuth))
    if x * sun[0] + y * sun[1] + z * sun[2] > math.cos(math.radians(2.5)):
        return (600.0, 560.0, 480.0)
    return sky


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--width", type=int, default=256)
    parser.add_argument("--height", type=int, default=128)
    parser.add_argument("--output", default="configs/textures/sky.pfm")
    args = parser.parse_args()
    rows = []
    for row in range(args.height):  # top row first: straight up
        theta = math.pi * (row + 0.5) / args.height
        texels = []
        for column in range(args.width):
            phi = 2 * math.pi * ((column + 0.5) / args.width - 0.5)
            direction = (math.sin(theta) * math.sin(phi), math.cos(theta), -math.sin(theta) * math.cos(phi))
            texels.extend(radiance(direction))
        rows.append(struct.pack("<%df" % len(texels), *texels))
    with open(args.output, "wb") as f:
        f.write(b"PF\n%d %d\n-1.0\n" % (args.width, args.height))
        for data in reversed(rows):  # PFM rows run bottom to top
            f.write(data)


if __name__ == "__main__":
    main()
