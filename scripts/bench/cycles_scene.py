"""Builds a farmrt scene file in Blender for Cycles (CPU), identically as far
as the two renderers allow, and renders it: the peer of time-to-equal-error
runs (scripts/bench/cycles_compare.sh).

    blender -b --factory-startup -P scripts/bench/cycles_scene.py -- SCENE.yaml OUT.exr SPP THREADS [SEED]

What it translates (the subset the comparison scenes use): image size;
sampling.max_depth (segments: Cycles bounces = max_depth - 1); the camera
(lookfrom, lookat, vup, vertical vfov; pinhole); quads and boxes (with
rotate_y and translate), spheres (a smooth 256 x 128 UV sphere: Cycles has no
analytic sphere); lambertian (Diffuse BSDF), emissive (Emission: radiance =
colour, both faces), dielectric (sharp Glass BSDF), metal (Glossy GGX,
roughness = fuzz: an approximation of the book's fuzz); background colour
and the book's sky gradient (World shader), sampled as a light where the
scene asks; directional lights (Sun, strength = irradiance). farmrt is
y-up, Blender z-up: (x, y, z) -> (x, -z, y).

Cycles settings for a fair comparison: no denoising, no adaptive sampling,
no clamping (Cycles' default indirect clamp of 10 off), no glossy filter,
caustics on, the Blackman-Harris filter of width 1.5 (farmrt's default too),
Cycles' default sampling pattern, a fixed thread count; the output a linear
float EXR, and beside it the same pixels as a PFM.
"""
import json
import math
import sys

import bpy
import mathutils


def to_blender(p):
    return mathutils.Vector((p[0], -p[2], p[1]))


def material(name, spec):
    m = bpy.data.materials.new(name)
    m.use_nodes = True
    nodes, links = m.node_tree.nodes, m.node_tree.links
    nodes.clear()
    out = nodes.new("ShaderNodeOutputMaterial")
    kind = spec["type"]
    if kind == "lambertian":
        shader = nodes.new("ShaderNodeBsdfDiffuse")
        shader.inputs["Color"].default_value = (*spec["albedo"], 1)
        shader.inputs["Roughness"].default_value = 0
    elif kind == "emissive":
        shader = nodes.new("ShaderNodeEmission")
        c = spec["color"]
        strength = max(c)
        shader.inputs["Color"].default_value = (c[0] / strength, c[1] / strength, c[2] / strength, 1)
        shader.inputs["Strength"].default_value = strength
    elif kind == "dielectric":
        shader = nodes.new("ShaderNodeBsdfGlass")
        shader.distribution = "SHARP"
        shader.inputs["IOR"].default_value = spec.get("ior", 1.5)
        shader.inputs["Color"].default_value = (1, 1, 1, 1)
    elif kind == "metal":
        shader = nodes.new("ShaderNodeBsdfGlossy")
        shader.distribution = "GGX"
        shader.inputs["Color"].default_value = (*spec["albedo"], 1)
        shader.inputs["Roughness"].default_value = spec.get("fuzz", 0)
    else:
        raise SystemExit(f"cycles_scene.py: material type {kind} is not translated")
    links.new(shader.outputs[0], out.inputs["Surface"])
    return m


def add_mesh(name, vertices, faces, mat, smooth=False):
    mesh = bpy.data.meshes.new(name)
    mesh.from_pydata([to_blender(v) for v in vertices], [], faces)
    mesh.update()
    if smooth:
        for polygon in mesh.polygons:
            polygon.use_smooth = True
    mesh.materials.append(mat)
    obj = bpy.data.objects.new(name, mesh)
    bpy.context.scene.collection.objects.link(obj)


def quad_vertices(q, u, v):
    q, u, v = (mathutils.Vector(x) for x in (q, u, v))
    return [q, q + u, q + u + v, q + v]


def transformed(points, transform):
    angle = math.radians(transform.get("rotate_y", 0))
    t = transform.get("translate", [0, 0, 0])
    out = []
    for p in points:
        x = math.cos(angle) * p[0] + math.sin(angle) * p[2]
        z = -math.sin(angle) * p[0] + math.cos(angle) * p[2]
        out.append(mathutils.Vector((x + t[0], p[1] + t[1], z + t[2])))
    return out


def box_quads(lo, hi):
    a, b = lo, hi
    dx, dy, dz = (b[0] - a[0], 0, 0), (0, b[1] - a[1], 0), (0, 0, b[2] - a[2])
    neg = lambda d: tuple(-x for x in d)
    return [
        ((a[0], a[1], b[2]), dx, dy), ((b[0], a[1], b[2]), neg(dz), dy), ((b[0], a[1], a[2]), neg(dx), dy),
        ((a[0], a[1], a[2]), dz, dy), ((a[0], b[1], b[2]), dx, neg(dz)), ((a[0], a[1], a[2]), dx, dz),
    ]


def sphere(name, center, radius, mat):
    vertices, faces = [], []
    rings, segments = 128, 256
    for i in range(1, rings):
        theta = math.pi * i / rings
        for j in range(segments):
            phi = 2 * math.pi * j / segments
            vertices.append((center[0] + radius * math.sin(theta) * math.cos(phi), center[1] + radius * math.cos(theta),
                             center[2] + radius * math.sin(theta) * math.sin(phi)))
    top, bottom = len(vertices), len(vertices) + 1
    vertices += [(center[0], center[1] + radius, center[2]), (center[0], center[1] - radius, center[2])]
    for i in range(rings - 2):
        for j in range(segments):
            a, b = i * segments + j, i * segments + (j + 1) % segments
            faces.append((a, a + segments, b + segments, b))
    for j in range(segments):
        faces.append((top, (j + 1) % segments, j))
        last = (rings - 2) * segments
        faces.append((bottom, last + j, last + (j + 1) % segments))
    add_mesh(name, [mathutils.Vector(v) for v in vertices], faces, mat, smooth=True)


def world(background):
    w = bpy.data.worlds.new("world")
    bpy.context.scene.world = w
    w.use_nodes = True
    nodes, links = w.node_tree.nodes, w.node_tree.links
    nodes.clear()
    out = nodes.new("ShaderNodeOutputWorld")
    bg = nodes.new("ShaderNodeBackground")
    links.new(bg.outputs[0], out.inputs[0])
    if "color" in background:
        bg.inputs["Color"].default_value = (*background["color"], 1)
    else:  # the book's sky: lerp(horizon, zenith, 0.5 (y + 1)) of the unit direction
        sky = background.get("sky") or {}
        coordinates = nodes.new("ShaderNodeTexCoord")
        separate = nodes.new("ShaderNodeSeparateXYZ")
        normalize = nodes.new("ShaderNodeVectorMath")
        normalize.operation = "NORMALIZE"
        links.new(coordinates.outputs["Generated"], normalize.inputs[0])
        links.new(normalize.outputs[0], separate.inputs[0])
        to_unit = nodes.new("ShaderNodeMapRange")
        to_unit.inputs["From Min"].default_value = -1
        to_unit.inputs["From Max"].default_value = 1
        to_unit.clamp = False
        links.new(separate.outputs["Z"], to_unit.inputs["Value"])
        mix = nodes.new("ShaderNodeMixRGB")
        mix.blend_type = "MIX"
        mix.inputs[1].default_value = (*sky.get("horizon", [1, 1, 1]), 1)
        mix.inputs[2].default_value = (*sky.get("zenith", [0.5, 0.7, 1.0]), 1)
        links.new(to_unit.outputs[0], mix.inputs[0])
        links.new(mix.outputs[0], bg.inputs["Color"])
    w.cycles.sampling_method = "AUTOMATIC" if background.get("sampling") == "light" else "NONE"


def main():
    args = sys.argv[sys.argv.index("--") + 1:]
    scene_file, output, spp, threads = args[0], args[1], int(args[2]), int(args[3])
    seed = int(args[4]) if len(args) > 4 else 0
    with open(scene_file) as f:
        text = f.read()
    try:  # JSON is YAML too: cycles_compare.py writes its scenes so, for a Blender without PyYAML
        spec = json.loads(text)
    except ValueError:
        import yaml
        spec = yaml.safe_load(text)
    for obj in list(bpy.data.objects):
        bpy.data.objects.remove(obj)
    scene = bpy.context.scene
    image, sampling, cam = spec["image"], spec["sampling"], spec["camera"]
    scene.render.resolution_x, scene.render.resolution_y = image["width"], image["height"]
    scene.render.resolution_percentage = 100
    scene.render.engine = "CYCLES"
    c = scene.cycles
    c.device = "CPU"
    c.samples = spp
    c.use_adaptive_sampling = False
    c.use_denoising = False
    c.seed = seed
    bounces = sampling.get("max_depth", 50) - 1
    c.max_bounces = c.diffuse_bounces = c.glossy_bounces = c.transmission_bounces = bounces
    c.volume_bounces = 0
    c.transparent_max_bounces = bounces
    c.min_light_bounces = 0
    c.sample_clamp_direct = c.sample_clamp_indirect = 0
    c.blur_glossy = 0
    c.caustics_reflective = c.caustics_refractive = True
    c.pixel_filter_type = "BLACKMAN_HARRIS"
    c.filter_width = 1.5
    scene.render.threads_mode = "FIXED"
    scene.render.threads = threads
    scene.render.use_persistent_data = False
    scene.view_settings.view_transform = "Standard"
    scene.render.image_settings.file_format = "OPEN_EXR"
    scene.render.image_settings.color_depth = "32"
    scene.render.image_settings.color_mode = "RGB"
    scene.render.filepath = output

    materials = {name: material(name, m) for name, m in spec.get("materials", {}).items()}
    def material_of(o):
        m = o["material"]
        return materials[m] if isinstance(m, str) else material(f"inline{len(materials)}", m)
    for i, o in enumerate(spec.get("objects", [])):
        kind = o["type"]
        if kind == "quad":
            add_mesh(f"quad{i}", quad_vertices(o["Q"], o["u"], o["v"]), [(0, 1, 2, 3)], material_of(o))
        elif kind == "box":
            vertices, faces = [], []
            for q, u, v in box_quads(o["min"], o["max"]):
                base = len(vertices)
                vertices += quad_vertices(q, u, v)
                faces.append((base, base + 1, base + 2, base + 3))
            add_mesh(f"box{i}", transformed(vertices, o.get("transform", {})), faces, material_of(o))
        elif kind == "sphere":
            sphere(f"sphere{i}", o["center"], o["radius"], material_of(o))
        else:
            raise SystemExit(f"cycles_scene.py: object type {kind} is not translated")
    for i, light in enumerate(spec.get("lights", [])):
        if light["type"] != "directional":
            raise SystemExit(f"cycles_scene.py: light type {light['type']} is not translated")
        sun = bpy.data.lights.new(f"sun{i}", "SUN")
        e = light["irradiance"]
        sun.energy = max(e)
        sun.color = (e[0] / max(e), e[1] / max(e), e[2] / max(e))
        sun.angle = 0
        obj = bpy.data.objects.new(f"sun{i}", sun)
        obj.rotation_euler = to_blender(light["direction"]).to_track_quat("-Z", "Y").to_euler()
        scene.collection.objects.link(obj)
    world(spec.get("background", {}))

    camera_data = bpy.data.cameras.new("camera")
    camera_data.sensor_fit = "VERTICAL"
    camera_data.angle_y = math.radians(cam.get("vfov", 90))
    camera_data.clip_start, camera_data.clip_end = 1e-4, 1e7  # farmrt clips nothing
    camera = bpy.data.objects.new("camera", camera_data)
    look_from, look_at = to_blender(cam["lookfrom"]), to_blender(cam["lookat"])
    camera.location = look_from
    camera.rotation_euler = (look_at - look_from).to_track_quat("-Z", "Y").to_euler()
    scene.collection.objects.link(camera)
    scene.camera = camera
    bpy.ops.render.render(write_still=True)
    if output.endswith(".exr"):
        write_pfm(output, output[:-4] + ".pfm")


def write_pfm(exr, pfm):
    """The EXR's linear RGB as a little-endian PFM (rows bottom to top, as
    Blender keeps them), which scripts/bench/image_error.py reads."""
    import array
    image = bpy.data.images.load(exr)
    width, height = image.size
    rgba = array.array("f", image.pixels[:])
    rgb = array.array("f", (rgba[i] for i in range(len(rgba)) if i % 4 != 3))
    with open(pfm, "wb") as f:
        f.write(f"PF\n{width} {height}\n-1.0\n".encode())
        rgb.tofile(f)


main()
