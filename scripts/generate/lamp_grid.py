#!/usr/bin/env python3
"""Scenes of many lamps, for the many-lights benchmarks.

    scripts/generate/lamp_grid.py TRIANGLES OUT.obj
        An OBJ of N emissive triangles tiling the Cornell box's lamp (130 x 105
        at y = 554, facing down): the same light as one quad, split into N/2
        cells of two triangles each.
    scripts/generate/lamp_grid.py --hall LAMPS OUT.yaml
        A farmrt scene: a long hall (60 x 4 x 16 m) whose ceiling holds LAMPS
        small lamps of several colours and powers in a grid, with pillars
        and boxes, seen along its length: each point is lit mostly by the
        few lamps near it (where choosing lights by power wastes its samples).
"""
import math
import sys


def hall(lamps, out):
    columns = max(1, int(round(math.sqrt(lamps * 60 / 16))))
    rows = max(1, lamps // columns)
    lines = [
        "# %d lamps on the ceiling of a hall: scripts/generate/lamp_grid.py --hall %d" % (rows * columns, lamps),
        "image: {width: 320, height: 180, output: hall.png}",
        "sampling: {spp: 64, max_depth: 8, seed: 0}",
        "camera: {lookfrom: [-28, 1.7, 6], lookat: [0, 1.2, -2], vup: [0, 1, 0], vfov: 55}",
        "background: {color: [0, 0, 0]}",
        "materials:",
        "  floor: {type: lambertian, albedo: [0.55, 0.5, 0.45]}",
        "  wall: {type: lambertian, albedo: [0.7, 0.7, 0.68]}",
        "  box: {type: lambertian, albedo: [0.3, 0.45, 0.6]}",
    ]
    colours = [[8, 7, 6], [6, 7, 9], [10, 5, 3], [4, 9, 5], [12, 11, 10]]
    for i, c in enumerate(colours):
        lines.append("  lamp%d: {type: emissive, color: [%d, %d, %d]}" % (i, *c))
    lines.append("objects:")
    lines.append("  - {type: quad, Q: [-30, 0, -8], u: [60, 0, 0], v: [0, 0, 16], material: floor}")
    lines.append("  - {type: quad, Q: [-30, 4, -8], u: [60, 0, 0], v: [0, 0, 16], material: wall}")
    lines.append("  - {type: quad, Q: [-30, 0, -8], u: [60, 0, 0], v: [0, 4, 0], material: wall}")
    lines.append("  - {type: quad, Q: [-30, 0, 8], u: [60, 0, 0], v: [0, 4, 0], material: wall}")
    lines.append("  - {type: quad, Q: [30, 0, -8], u: [0, 0, 16], v: [0, 4, 0], material: wall}")
    lines.append("  - {type: quad, Q: [-30, 0, -8], u: [0, 0, 16], v: [0, 4, 0], material: wall}")
    for k in range(12):
        x = -24 + 4.5 * k
        lines.append("  - {type: box, min: [%.2f, 0, -5.5], max: [%.2f, 4, -5], material: wall}" % (x, x + 0.5))
        lines.append("  - {type: box, min: [%.2f, 0, %.2f], max: [%.2f, %.2f, %.2f], material: box}" % (
            x + 1.5, 1 + (k % 3), x + 2.3, 0.5 + 0.4 * (k % 4), 1.8 + (k % 3)))
    for r in range(rows):
        for c in range(columns):
            x = -30 + 60 * (c + 0.5) / columns
            z = -8 + 16 * (r + 0.5) / rows
            lines.append("  - {type: quad, Q: [%.3f, 3.99, %.3f], u: [0.25, 0, 0], v: [0, 0, 0.25], material: lamp%d}" % (
                x - 0.125, z - 0.125, (r * 7 + c * 3) % len(colours)))
    with open(out, "w") as f:
        f.write("\n".join(lines) + "\n")
    print("%d lamps" % (rows * columns))


def main():
    if sys.argv[1] == "--hall":
        hall(int(sys.argv[2]), sys.argv[3])
        return
    triangles, out = int(sys.argv[1]), sys.argv[2]
    cells = max(1, triangles // 2)
    columns = max(1, int(round(math.sqrt(cells * 130 / 105))))
    rows = max(1, cells // columns)
    x0, z0, width, depth, y = 213.0, 227.0, 130.0, 105.0, 554.0
    with open(out, "w") as f:
        for r in range(rows + 1):
            for c in range(columns + 1):
                f.write("v %.6f %.6f %.6f\n" % (x0 + width * c / columns, y, z0 + depth * r / rows))
        for r in range(rows):
            for c in range(columns):
                a = r * (columns + 1) + c + 1
                b, d, e = a + 1, a + columns + 1, a + columns + 2
                f.write("f %d %d %d\nf %d %d %d\n" % (a, b, e, a, e, d))
    print("%d triangles" % (2 * rows * columns))


if __name__ == "__main__":
    main()
