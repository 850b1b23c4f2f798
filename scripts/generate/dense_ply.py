#!/usr/bin/env python3
"""Writes a binary PLY of a torus with about TRIANGLES triangles (default
1,000,000), vertex normals included: the import benchmark's large model
(scripts/bench/models.sh).

  scripts/generate/dense_ply.py OUTPUT.ply [TRIANGLES]
"""
import array
import math
import sys


def main():
    path = sys.argv[1]
    triangles = int(sys.argv[2]) if len(sys.argv) > 2 else 1000000
    rings = int(math.sqrt(triangles / 2 / 4))  # a 4:1 grid around the torus
    segments = 4 * rings
    major, minor = 1.0, 0.35
    vertices = array.array("f")
    for i in range(segments):
        u = 2 * math.pi * i / segments
        cu, su = math.cos(u), math.sin(u)
        for j in range(rings):
            v = 2 * math.pi * j / rings
            cv, sv = math.cos(v), math.sin(v)
            vertices.extend(((major + minor * cv) * cu, minor * sv, (major + minor * cv) * su, cv * cu, sv, cv * su))
    faces = bytearray()
    face = array.array("i", [0, 0, 0])
    for i in range(segments):
        for j in range(rings):
            a = i * rings + j
            b = ((i + 1) % segments) * rings + j
            c = ((i + 1) % segments) * rings + (j + 1) % rings
            d = i * rings + (j + 1) % rings
            for tri in ((a, b, c), (a, c, d)):
                face[0], face[1], face[2] = tri
                faces += b"\x03" + face.tobytes()
    header = ("ply\nformat binary_little_endian 1.0\ncomment torus, scripts/generate/dense_ply.py\n"
              "element vertex %d\nproperty float x\nproperty float y\nproperty float z\n"
              "property float nx\nproperty float ny\nproperty float nz\n"
              "element face %d\nproperty list uchar int vertex_indices\nend_header\n" % (segments * rings, 2 * segments * rings))
    with open(path, "wb") as out:
        out.write(header.encode())
        out.write(vertices.tobytes())
        out.write(faces)


if __name__ == "__main__":
    main()
