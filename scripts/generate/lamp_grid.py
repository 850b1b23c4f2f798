#!/usr/bin/env python3
"""An OBJ of N emissive triangles tiling the Cornell box's lamp (130 x 105 at
y = 554, facing down), for the many-lights benchmark: the same light as one
quad, split into N/2 cells of two triangles each.

    scripts/generate/lamp_grid.py TRIANGLES OUT.obj
"""
import math
import sys


def main():
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
