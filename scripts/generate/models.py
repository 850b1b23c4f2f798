#!/usr/bin/env python3
"""Writes the model files of configs/models.yaml:

  configs/models/cornell_box.obj + .mtl  the Cornell box of "Ray Tracing: The
      Next Week" as an OBJ whose colours and lamp live in its material library
      (walls Kd, lamp Ke), as exporters write it;
  configs/models/shapes.gltf  a glTF 2.0 file with embedded buffers: one box
      mesh placed by three nodes of a hierarchy (instanced), principled
      materials (a rough gold metal, a glass with KHR_materials_transmission
      and KHR_materials_ior, a plastic), a KHR_lights_punctual spot light and
      a perspective camera; the plastic box's mesh is placed twice.

  configs/models/tiles.gltf  a floor of tiles: a grid mesh with vertex
      colours (COLOR_0, a gradient) under a material whose normal map
      (an embedded PNG) raises a rounded bump on every tile; the file gives
      no TANGENT, so the renderer makes its own;
  configs/models/fence.gltf  cut-outs: a lattice fence card whose RGBA
      texture's alpha cuts the gaps (alphaMode MASK) and a tinted pane of
      alpha 0.35 (alphaMode BLEND);
  configs/models/colored_ball.ply  a sphere (a subdivided octahedron) whose
      vertices carry 8-bit colours, as scanners write them.

  scripts/generate/models.py [OUTPUT_DIR]   (default: configs/models)
"""
import base64
import json
import math
import os
import struct
import sys
import zlib


def cornell_box(directory):
    # Quads of cornell_box(): corner Q and edges u, v, with their material.
    quads = [
        ((555, 0, 0), (0, 555, 0), (0, 0, 555), "green"),
        ((0, 0, 0), (0, 555, 0), (0, 0, 555), "red"),
        ((343, 554, 332), (-130, 0, 0), (0, 0, -105), "light"),
        ((0, 0, 0), (555, 0, 0), (0, 0, 555), "white"),
        ((555, 555, 555), (-555, 0, 0), (0, 0, -555), "white"),
        ((0, 0, 555), (555, 0, 0), (0, 555, 0), "white"),
    ]

    def box(lo, hi, angle, offset):
        a = math.radians(angle)
        c, s = math.cos(a), math.sin(a)

        def place(p):
            x, y, z = p
            return (c * x + s * z + offset[0], y + offset[1], -s * x + c * z + offset[2])

        (x0, y0, z0), (x1, y1, z1) = lo, hi
        corners = [(x0, y0, z0), (x1, y0, z0), (x1, y1, z0), (x0, y1, z0),
                   (x0, y0, z1), (x1, y0, z1), (x1, y1, z1), (x0, y1, z1)]
        faces = [(0, 3, 2, 1), (4, 5, 6, 7), (0, 4, 7, 3), (1, 2, 6, 5), (0, 1, 5, 4), (3, 7, 6, 2)]
        return [place(p) for p in corners], faces

    lines = ["# The Cornell box of \"Ray Tracing: The Next Week\" (v4), its colours and lamp",
             "# in cornell_box.mtl; written by scripts/generate/models.py.", "mtllib cornell_box.mtl"]
    vertex = 0
    current = None
    for q, u, v, material in quads:
        corners = [q, tuple(q[i] + u[i] for i in range(3)), tuple(q[i] + u[i] + v[i] for i in range(3)),
                   tuple(q[i] + v[i] for i in range(3))]
        for p in corners:
            lines.append("v %g %g %g" % p)
        if material != current:
            lines.append("usemtl " + material)
            current = material
        lines.append("f %d %d %d %d" % (vertex + 1, vertex + 2, vertex + 3, vertex + 4))
        vertex += 4
    lines.append("usemtl white")
    for lo, hi, angle, offset in [((0, 0, 0), (165, 330, 165), 15, (265, 0, 295)),
                                  ((0, 0, 0), (165, 165, 165), -18, (130, 0, 65))]:
        corners, faces = box(lo, hi, angle, offset)
        for p in corners:
            lines.append("v %.6f %.6f %.6f" % p)
        for f in faces:
            lines.append("f " + " ".join(str(vertex + i + 1) for i in f))
        vertex += 8
    with open(os.path.join(directory, "cornell_box.obj"), "w") as out:
        out.write("\n".join(lines) + "\n")
    mtl = """# Materials of cornell_box.obj: diffuse walls (illum 1: no specular), a lamp.
newmtl red
Kd 0.65 0.05 0.05
illum 1

newmtl white
Kd 0.73 0.73 0.73
illum 1

newmtl green
Kd 0.12 0.45 0.15
illum 1

newmtl light
Kd 0 0 0
Ke 15 15 15
illum 1
"""
    with open(os.path.join(directory, "cornell_box.mtl"), "w") as out:
        out.write(mtl)


class GltfBuffer:
    """One embedded glTF buffer: each accessor (or raw blob) in a buffer view of its own."""

    def __init__(self):
        self.blob, self.views, self.accessors = b"", [], []

    def view(self, raw, target=None):
        while len(self.blob) % 4:
            self.blob += b"\0"
        view = {"buffer": 0, "byteOffset": len(self.blob), "byteLength": len(raw)}
        if target:
            view["target"] = target
        self.views.append(view)
        self.blob += raw
        return len(self.views) - 1

    def add(self, data, fmt, count, kind, component, target=None, minmax=None):
        view = self.view(struct.pack("<" + fmt * len(data), *data), target)
        accessor = {"bufferView": view, "componentType": component, "count": count, "type": kind}
        if minmax:
            accessor["min"], accessor["max"] = minmax
        self.accessors.append(accessor)
        return len(self.accessors) - 1

    def json(self):
        return {"byteLength": len(self.blob),
                "uri": "data:application/octet-stream;base64," + base64.b64encode(self.blob).decode()}


def shapes_gltf(directory):
    # A unit box (24 vertices: flat normals per face, UVs), indexed with u16.
    positions, normals, uvs, indices = [], [], [], []
    for axis in range(3):
        for sign in (-1, 1):
            n = [0, 0, 0]
            n[axis] = sign
            u_axis, v_axis = [(1, 2), (2, 0), (0, 1)][axis]
            base = len(positions)
            for du, dv in [(-1, -1), (1, -1), (1, 1), (-1, 1)]:
                p = [0.0, 0.0, 0.0]
                p[axis] = 0.5 * sign
                p[u_axis] = 0.5 * du
                p[v_axis] = 0.5 * dv
                positions.append(p)
                normals.append(n)
                uvs.append([(du + 1) / 2, (dv + 1) / 2])
            quad = [0, 1, 2, 0, 2, 3] if sign > 0 else [0, 2, 1, 0, 3, 2]
            indices += [base + i for i in quad]
    # A floor: one quad as a triangle fan of 4 vertices (mode 6), no indices.
    floor = [[-4, 0, -4], [-4, 0, 4], [4, 0, 4], [4, 0, -4]]
    buffer = GltfBuffer()
    add = buffer.add

    flat = lambda rows: [x for row in rows for x in row]
    position = add(flat(positions), "f", len(positions), "VEC3", 5126, 34962, ([-0.5] * 3, [0.5] * 3))
    normal = add(flat(normals), "f", len(normals), "VEC3", 5126, 34962)
    uv = add(flat(uvs), "f", len(uvs), "VEC2", 5126, 34962)
    index = add(indices, "H", len(indices), "SCALAR", 5123, 34963)
    floor_position = add(flat(floor), "f", 4, "VEC3", 5126, 34962, ([-4, 0, -4], [4, 0, 4]))
    gltf = {
        "asset": {"version": "2.0", "generator": "farmrt scripts/generate/models.py"},
        "extensionsUsed": ["KHR_materials_transmission", "KHR_materials_ior", "KHR_lights_punctual"],
        "extensions": {"KHR_lights_punctual": {"lights": [
            {"type": "spot", "color": [1.0, 0.9, 0.8], "intensity": 60000,
             "spot": {"innerConeAngle": 0.3, "outerConeAngle": 0.6}}]}},
        "scene": 0,
        "scenes": [{"nodes": [0, 4, 5, 6]}],
        "nodes": [
            {"name": "shelf", "translation": [0, 0.5, 0], "children": [1, 2, 3, 7]},
            {"name": "gold", "mesh": 0, "translation": [-1.3, 0, 0], "rotation": [0, 0.3826834, 0, 0.9238795]},
            {"name": "glass", "mesh": 1, "translation": [0, 0.1, 0], "scale": [0.9, 1.2, 0.9]},
            {"name": "plastic", "mesh": 2, "translation": [1.3, 0, 0], "rotation": [0, -0.2588190, 0, 0.9659258]},
            {"name": "floor", "mesh": 3},
            {"name": "camera", "camera": 0, "translation": [0, 2.2, 5.5],
             "rotation": [-0.1736482, 0, 0, 0.9848078]},
            {"name": "lamp", "translation": [0, 5, 2], "rotation": [-0.5372996, 0, 0, 0.8433914],
             "extensions": {"KHR_lights_punctual": {"light": 0}}},
            {"name": "plastic small", "mesh": 2, "translation": [1.3, 0.75, 0], "scale": [0.5, 0.5, 0.5]},
        ],
        "cameras": [{"type": "perspective", "perspective": {"yfov": 0.7, "aspectRatio": 1.7777778, "znear": 0.1}}],
        "meshes": [
            {"name": "box gold", "primitives": [{"attributes": {"POSITION": position, "NORMAL": normal, "TEXCOORD_0": uv},
                                                 "indices": index, "material": 0}]},
            {"name": "box glass", "primitives": [{"attributes": {"POSITION": position, "NORMAL": normal},
                                                  "indices": index, "material": 1}]},
            {"name": "box plastic", "primitives": [{"attributes": {"POSITION": position, "NORMAL": normal},
                                                    "indices": index, "material": 2}]},
            {"name": "floor", "primitives": [{"attributes": {"POSITION": floor_position}, "mode": 6, "material": 3}]},
        ],
        "materials": [
            {"name": "gold", "pbrMetallicRoughness": {"baseColorFactor": [1.0, 0.78, 0.34, 1], "metallicFactor": 1,
                                                       "roughnessFactor": 0.3}},
            {"name": "glass", "pbrMetallicRoughness": {"baseColorFactor": [0.9, 0.97, 1.0, 1], "metallicFactor": 0,
                                                        "roughnessFactor": 0.05},
             "extensions": {"KHR_materials_transmission": {"transmissionFactor": 1},
                            "KHR_materials_ior": {"ior": 1.5}}},
            {"name": "plastic", "pbrMetallicRoughness": {"baseColorFactor": [0.05, 0.25, 0.8, 1], "metallicFactor": 0,
                                                          "roughnessFactor": 0.4}},
            {"name": "floor", "pbrMetallicRoughness": {"baseColorFactor": [0.7, 0.7, 0.7, 1], "metallicFactor": 0,
                                                        "roughnessFactor": 0.8}},
        ],
        "buffers": [buffer.json()],
        "bufferViews": buffer.views,
        "accessors": buffer.accessors,
    }
    with open(os.path.join(directory, "shapes.gltf"), "w") as out:
        json.dump(gltf, out, indent=1)
        out.write("\n")


def png_rgb(width, height, pixels):
    """An 8-bit RGB PNG of rows of (r, g, b) tuples, or RGBA of (r, g, b, a) ones."""
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    raw = b"".join(b"\0" + bytes(c for pixel in row for c in pixel) for row in pixels)
    color_type = 6 if len(pixels[0][0]) == 4 else 2
    header = struct.pack(">IIBBBBB", width, height, 8, color_type, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b"")


def tiles_gltf(directory):
    # A normal map of one rounded bump per 32 x 32 texels (a quarter sphere's
    # slope at its rim): +x right, +y up in the image, as glTF's maps are.
    size, cell = 64, 32
    rows = []
    for row in range(size):
        line = []
        for column in range(size):
            x = ((column % cell) + 0.5) / cell * 2 - 1
            y = -(((row % cell) + 0.5) / cell * 2 - 1)  # up in the image
            r = math.hypot(x, y)
            if r < 0.8:
                slope = 0.9 * r / 0.8
                nx, ny = x / r * slope if r > 0 else 0.0, y / r * slope if r > 0 else 0.0
            else:
                nx, ny = 0.0, 0.0
            nz = math.sqrt(max(0.0, 1 - nx * nx - ny * ny))
            line.append(tuple(int(round((c * 0.5 + 0.5) * 255)) for c in (nx, ny, nz)))
        rows.append(line)
    png = png_rgb(size, size, rows)
    # A 4 x 4 m floor in y = 0 as a 9 x 9 grid of vertices, (u, v) repeating
    # the map twice per metre, colours a gradient from warm to cool.
    n = 9
    positions, normals, uvs, colors, indices = [], [], [], [], []
    for j in range(n):
        for i in range(n):
            s, t = i / (n - 1), j / (n - 1)
            positions.append([-2 + 4 * s, 0.0, 2 - 4 * t])
            normals.append([0.0, 1.0, 0.0])
            uvs.append([4 * s, 4 * t])
            colors.append([0.9 - 0.6 * s, 0.5 + 0.2 * t, 0.3 + 0.6 * s])
    for j in range(n - 1):
        for i in range(n - 1):
            a, b, c, d = j * n + i, j * n + i + 1, (j + 1) * n + i + 1, (j + 1) * n + i
            indices += [a, b, c, a, c, d]
    buffer = GltfBuffer()
    add = buffer.add

    flat = lambda rows: [x for row in rows for x in row]
    position = add(flat(positions), "f", len(positions), "VEC3", 5126, minmax=([-2, 0, -2], [2, 0, 2]))
    normal = add(flat(normals), "f", len(normals), "VEC3", 5126)
    uv = add(flat(uvs), "f", len(uvs), "VEC2", 5126)
    color = add(flat(colors), "f", len(colors), "VEC3", 5126)
    index = add(indices, "H", len(indices), "SCALAR", 5123)
    image_view = buffer.view(png)
    gltf = {
        "asset": {"version": "2.0", "generator": "farmrt scripts/generate/models.py"},
        "scene": 0,
        "scenes": [{"nodes": [0]}],
        "nodes": [{"name": "tiles", "mesh": 0}],
        "meshes": [{"name": "tiles", "primitives": [{"attributes": {
            "POSITION": position, "NORMAL": normal, "TEXCOORD_0": uv, "COLOR_0": color},
            "indices": index, "material": 0}]}],
        "materials": [{"name": "glazed tiles", "pbrMetallicRoughness": {
            "baseColorFactor": [1, 1, 1, 1], "metallicFactor": 0, "roughnessFactor": 0.35},
            "normalTexture": {"index": 0, "scale": 1.0}}],
        "textures": [{"source": 0, "sampler": 0}],
        "samplers": [{}],
        "images": [{"bufferView": image_view, "mimeType": "image/png"}],
        "buffers": [buffer.json()],
        "bufferViews": buffer.views,
        "accessors": buffer.accessors,
    }
    with open(os.path.join(directory, "tiles.gltf"), "w") as out:
        json.dump(gltf, out, indent=1)
        out.write("\n")


def fence_gltf(directory):
    # A lattice fence and a tinted pane: two cards (quads) of one mesh each.
    # The fence's RGBA texture is a diamond lattice, alpha 1 on the slats and
    # 0 between them (alphaMode MASK, cutoff 0.5); the pane is a constant
    # alpha of 0.35 (alphaMode BLEND: stochastic transparency).
    size = 64
    rows = []
    for row in range(size):
        line = []
        for column in range(size):
            a, b = (row + column) % 16, (row - column) % 16
            slat = a < 3 or b < 3
            line.append((150, 105, 60, 255) if slat else (0, 0, 0, 0))
        rows.append(line)
    png = png_rgb(size, size, rows)
    buffer = GltfBuffer()
    card = [[-1, 0, 0], [1, 0, 0], [1, 1.4, 0], [-1, 1.4, 0]]
    position = buffer.add([x for p in card for x in p], "f", 4, "VEC3", 5126, minmax=([-1, 0, 0], [1, 1.4, 0]))
    normal = buffer.add([0, 0, 1] * 4, "f", 4, "VEC3", 5126)
    uv = buffer.add([0, 2.8, 4, 2.8, 4, 0, 0, 0], "f", 4, "VEC2", 5126)
    index = buffer.add([0, 1, 2, 0, 2, 3], "H", 6, "SCALAR", 5123)
    image_view = buffer.view(png)
    attributes = {"POSITION": position, "NORMAL": normal, "TEXCOORD_0": uv}
    gltf = {
        "asset": {"version": "2.0", "generator": "farmrt scripts/generate/models.py"},
        "scene": 0,
        "scenes": [{"nodes": [0, 1]}],
        "nodes": [{"name": "fence", "mesh": 0, "translation": [-0.6, 0, -0.8]},
                  {"name": "pane", "mesh": 1, "translation": [1.4, 0, -0.2], "rotation": [0, -0.3826834, 0, 0.9238795],
                   "scale": [0.5, 0.6, 1]}],
        "meshes": [{"name": "fence", "primitives": [{"attributes": attributes, "indices": index, "material": 0}]},
                   {"name": "pane", "primitives": [{"attributes": attributes, "indices": index, "material": 1}]}],
        "materials": [
            {"name": "lattice", "pbrMetallicRoughness": {"baseColorTexture": {"index": 0}, "metallicFactor": 0,
                                                          "roughnessFactor": 0.8},
             "alphaMode": "MASK", "alphaCutoff": 0.5, "doubleSided": True},
            {"name": "tinted pane", "pbrMetallicRoughness": {"baseColorFactor": [0.2, 0.5, 0.9, 0.35],
                                                              "metallicFactor": 0, "roughnessFactor": 0.3},
             "alphaMode": "BLEND", "doubleSided": True}],
        "textures": [{"source": 0}],
        "images": [{"bufferView": image_view, "mimeType": "image/png"}],
        "buffers": [buffer.json()],
        "bufferViews": buffer.views,
        "accessors": buffer.accessors,
    }
    with open(os.path.join(directory, "fence.gltf"), "w") as out:
        json.dump(gltf, out, indent=1)
        out.write("\n")


def colored_ball_ply(directory):
    # An octahedron, each face split 4 x 4 and pushed onto the unit sphere;
    # each vertex coloured by its direction (8-bit, as display colours).
    corners = [(1, 0, 0), (0, 1, 0), (0, 0, 1), (-1, 0, 0), (0, -1, 0), (0, 0, -1)]
    faces = [(0, 1, 2), (1, 3, 2), (3, 4, 2), (4, 0, 2), (1, 0, 5), (3, 1, 5), (4, 3, 5), (0, 4, 5)]
    split = 4
    vertices, index_of, triangles = [], {}, []

    def vertex(p):
        length = math.sqrt(sum(c * c for c in p))
        q = tuple(round(c / length, 6) for c in p)
        if q not in index_of:
            index_of[q] = len(vertices)
            vertices.append(q)
        return index_of[q]

    for a, b, c in faces:
        A, B, C = corners[a], corners[b], corners[c]
        grid = {}
        for i in range(split + 1):
            for j in range(split + 1 - i):
                k = split - i - j
                grid[i, j] = vertex(tuple((i * A[m] + j * B[m] + k * C[m]) / split for m in range(3)))
        for i in range(split):
            for j in range(split - i):
                triangles.append((grid[i, j], grid[i + 1, j], grid[i, j + 1]))
                if i + j + 1 < split:
                    triangles.append((grid[i + 1, j], grid[i + 1, j + 1], grid[i, j + 1]))
    lines = ["ply", "format ascii 1.0", "comment a sphere with vertex colours, written by scripts/generate/models.py",
             "element vertex %d" % len(vertices), "property float x", "property float y", "property float z",
             "property uchar red", "property uchar green", "property uchar blue",
             "element face %d" % len(triangles), "property list uchar int vertex_indices", "end_header"]
    for p in vertices:
        rgb = [int(round(255 * (0.5 + 0.5 * c))) for c in p]
        lines.append("%g %g %g %d %d %d" % (p[0], p[1], p[2], rgb[0], rgb[1], rgb[2]))
    for t in triangles:
        lines.append("3 %d %d %d" % t)
    with open(os.path.join(directory, "colored_ball.ply"), "w") as out:
        out.write("\n".join(lines) + "\n")


def main():
    directory = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..", "configs", "models")
    os.makedirs(directory, exist_ok=True)
    cornell_box(directory)
    shapes_gltf(directory)
    tiles_gltf(directory)
    fence_gltf(directory)
    colored_ball_ply(directory)


if __name__ == "__main__":
    main()
