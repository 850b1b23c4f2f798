#!/usr/bin/env bash
# Hostile files and faults end to end: inputs of a few bytes that ask for a
# crash, an endless walk, gigabytes or a device write; outputs that would
# replace the image or a device node; stop signals while a scene loads;
# command lines that could be misread. Each gets one line, the right exit
# code, no file left, within seconds and a bounded memory.
#
# usage: hostile_inputs.sh FARMRT_BINARY SOURCE_DIR
set -u
. "$(dirname "$0")/cli_checks.sh" "$@"
tiny=$source_dir/configs/tiny.yaml
hostile=$work/hostile
mkdir -p "$hostile"

# Every run here is bounded: 20 s, and 3 GB of address space (not under
# ASan, which maps terabytes of shadow memory); a hang or a runaway
# allocation fails the check.
bounded() {
    if [ -n "${FARMRT_SANITIZED:-}" ]; then timeout -s KILL 20 "$@"; else timeout -s KILL 20 prlimit --as=3000000000 "$@"; fi
}
runner=(bounded)

# ---- glTF files that crashed, walked forever or allocated gigabytes ---------------------
python3 - "$hostile" <<'PY'
import json, sys
d = sys.argv[1]
# JSON nested 20,000 levels in a node's extras (tinygltf's parser recursed off the stack).
open(d + '/deep.gltf', 'w').write('{"asset":{"version":"2.0"},"nodes":[{"extras":' + '[' * 20000 + ']' * 20000 + '}]}')
# 40 nodes each naming the next twice: 2^40 paths, a mesh at the bottom.
tri = {"asset": {"version": "2.0"},
       "buffers": [{"uri": "data:application/octet-stream;base64,AAAAAAAAAAAAAAAAAACAPwAAAAAAAAAAAAAAAAAAgD8AAAAA", "byteLength": 36}],
       "bufferViews": [{"buffer": 0, "byteLength": 36}],
       "accessors": [{"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3",
                      "min": [0, 0, 0], "max": [1, 1, 0]}],
       "meshes": [{"primitives": [{"attributes": {"POSITION": 0}}]}]}
dag = dict(tri, nodes=[{"children": [i + 1, i + 1]} for i in range(40)] + [{"mesh": 0}], scenes=[{"nodes": [0]}])
json.dump(dag, open(d + '/dag.gltf', 'w'))
# An accessor of 2^28 - 1 elements held by no buffer view.
count = dict(tri, accessors=[{"componentType": 5126, "count": 268435455, "type": "VEC3"}], nodes=[{"mesh": 0}])
json.dump(count, open(d + '/count.gltf', 'w'))
# One accessor of 30,000 indices shared by 4,000 primitives: 40 M triangles from 300 KB.
import base64, struct
positions = struct.pack('<9f', 0, 0, 0, 1, 0, 0, 0, 1, 0)
indices = struct.pack('<30000H', *([0, 1, 2] * 10000))
data = positions + indices
shared = dict(tri, buffers=[{"uri": "data:application/octet-stream;base64," + base64.b64encode(data).decode(), "byteLength": len(data)}],
              bufferViews=[{"buffer": 0, "byteLength": 36}, {"buffer": 0, "byteOffset": 36, "byteLength": 60000}],
              accessors=tri["accessors"] + [{"bufferView": 1, "componentType": 5123, "count": 30000, "type": "SCALAR"}],
              meshes=[{"primitives": [{"attributes": {"POSITION": 0}, "indices": 1}] * 4000}], nodes=[{"mesh": 0}])
json.dump(shared, open(d + '/shared.gltf', 'w'))
PY
expect_error "glTF nested 20,000 levels" ".*deep\.gltf: malformed glTF: JSON nested more than 256 levels deep \(at byte [0-9]+\)" \
    "$hostile/deep.gltf" -q -o o.png
expect_error "glTF node graph of 2^40 paths" ".*dag\.gltf: /nodes: the node graph expands to more than 1048576 node instances .*" \
    "$hostile/dag.gltf" -q -o o.png
expect_error "glTF count without bytes" ".*count\.gltf: /accessors/0: count 268435455 has no buffer view to hold it .*" \
    "$hostile/count.gltf" -q -o o.png
expect_error "glTF accessor shared by 4,000 primitives" ".*shared\.gltf: /meshes/0/primitives/[0-9]+: makes more than 2097152 triangles, .*" \
    "$hostile/shared.gltf" -q -o o.png

# ---- image headers against the pixel budget: 69 bytes may not ask for 16k x 16k --------------
python3 - "$hostile" <<'PY'
import struct, sys, zlib
def chunk(kind, data):
    return struct.pack('>I', len(data)) + kind + data + struct.pack('>I', zlib.crc32(kind + data) & 0xffffffff)
open(sys.argv[1] + '/claims.png', 'wb').write(b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', 16384, 16384, 8, 2, 0, 0, 0)) +
                                              chunk(b'IDAT', zlib.compress(b'\0' * 64)) + chunk(b'IEND', b''))
PY
expect_error "a 69-byte PNG of 16k x 16k as a texture" \
    ".*claims\.png: image of 16384x16384 pixels and 3 channels: more than the 16 Mpixels farmrt reads from a file of this size" \
    "$tiny" -q -o o.ppm --set "materials.ground={type: lambertian, albedo: {texture: image, file: $hostile/claims.png}}"
expect_error "a 69-byte PNG of 16k x 16k as an environment" ".*claims\.png: image of 16384x16384 pixels .*" \
    "$tiny" -q -o o.ppm --set "background={environment: {file: $hostile/claims.png}}"

# A one-row Radiance HDR 16 M pixels wide: within the pixel budget, but OpenImageIO converts 256
# rows at a time, whatever the height (50 GiB for this row).
printf '#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y 1 +X 16384242\n\x02\x02\x40\x00' >"$hostile/wide.hdr"
expect_error "a 56-byte HDR of one row 16 M pixels wide as an environment" \
    ".*wide\.hdr: image of 16384242x1 pixels and 3 channels: a row of 196610904 bytes, more than the 1048576 farmrt reads" \
    "$tiny" -q -o o.ppm --set "background={environment: {file: $hostile/wide.hdr}}"

# A TIFF of 234 bytes: 16 x 16 float pixels in one tile of 16384 x 16384, whose
# bytes are missing (OpenImageIO allocates whole tiles: 6 GiB before it read any).
python3 - "$hostile/big_tile.tif" <<'PY'
import struct, sys
entries = [(256, 4, 1, 16), (257, 4, 1, 16), (258, 3, 3, 158), (259, 3, 1, 1), (262, 3, 1, 2), (277, 3, 1, 3),
           (284, 3, 1, 1), (322, 4, 1, 16384), (323, 4, 1, 16384), (324, 4, 1, 170), (325, 4, 1, 64), (339, 3, 3, 164)]
ifd = struct.pack('<H', len(entries)) + b''.join(struct.pack('<HHII', *e) for e in entries) + struct.pack('<I', 0)
data = struct.pack('<3H', 32, 32, 32) + struct.pack('<3H', 3, 3, 3) + bytes(64)  # bits at 158, sample format at 164
open(sys.argv[1], 'wb').write(b'II*\0' + struct.pack('<I', 8) + ifd + data)
PY
expect_error "a 234-byte TIFF of one 16384 x 16384 tile as an environment" \
    ".*big_tile\.tif: image of 16x16 pixels and 3 channels in tiles of 16384x16384: [0-9]+ bytes read at once, more than the 268435456 farmrt reads" \
    "$tiny" -q -o o.ppm --set "background={environment: {file: $hostile/big_tile.tif}}"

# ---- model kinds farmrt does not read, said as such ---------------------------------------
printf '{"asset": {"version": "1.0"}, "meshes": {}}' >"$hostile/old.gltf"
expect_error "a glTF 1.0 file" ".*old\.gltf: a glTF 1\.0 file: farmrt reads glTF 2\.0 .*" "$hostile/old.gltf" -q -o o.png
printf 'ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\nproperty float z\nelement face 1\nproperty list uchar int vertex_indices\nend_header\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n' >"$hostile/tri.ply"
expect_error "a PLY given to type: mesh" ".*objects\[0\]\.file: type: mesh reads OBJ files; a \.ply file is placed with \{type: model, file: \.\.\.\}" \
    "$tiny" -q -o o.ppm --set "objects=[{type: mesh, file: $hostile/tri.ply, material: glass}]"
expect_error "half data in a TIFF" ".*TIFF images are written with float, not half, data .*" "$tiny" -q -o o.tif --set image.data_type=half

# The colour tag says what the values are: the book's gamma 2 is not sRGB.
if command -v oiiotool >/dev/null; then
    "$farmrt" "$tiny" -q -o gamma2.png --set image.encoding=gamma2 && oiiotool --info -v gamma2.png >"$work/info" 2>&1
    grep -q 'oiio:ColorSpace: "Gamma2.0"' "$work/info" || fail "a gamma2 PNG is not tagged Gamma2.0: $(grep -i colorspace "$work/info")"
    rm -f gamma2.png
fi

# ---- a frame larger than the machine's free memory: refused before rendering ----------------
available_kb=$(awk '/^MemAvailable:/ { print $2 }' /proc/meminfo)
if [ -n "$available_kb" ] && [ "$available_kb" -lt 50000000 ]; then
    expect_error "a frame beyond the free memory" \
        "image\.width x image\.height: a 65536x4096 frame with its AOVs needs about [0-9.]+ GiB while it renders and is written, more than the [0-9.]+ GiB this machine has available" \
        "$tiny" -q -o big.exr --width 65536 --height 4096 --aov albedo,normal,depth,samples,variance
fi

# ---- OBJ: one convex face of 35,000 corners (quadratic before), a library named 3,000 times -----
python3 - "$hostile" <<'PY'
import math, sys
d = sys.argv[1]
n = 35000
with open(d + '/bigface.obj', 'w') as f:
    f.writelines("v %.6f %.6f 0\n" % (math.cos(2 * math.pi * i / n), math.sin(2 * math.pi * i / n)) for i in range(n))
    f.write("f " + " ".join(str(i + 1) for i in range(n)) + "\n")
open(d + '/m.mtl', 'w').write("newmtl a\nKd 1 0 0\n")
with open(d + '/manymtl.obj', 'w') as f:
    f.write("mtllib m.mtl\n" * 3000 + "v 0 0 0\nv 1 0 0\nv 0 1 0\nusemtl a\nf 1 2 3\n")
PY
for model in bigface manymtl; do
    start=$(date +%s)
    bounded "$farmrt" "$hostile/$model.obj" -q -o "$model.png" --width 16 --height 16 --spp 1 2>"$work/stderr" ||
        fail "$model.obj: exit code $?: $(head -c 300 "$work/stderr")"
    [ $(($(date +%s) - start)) -le 10 ] || fail "$model.obj: took more than 10 s"
    rm -f "$model.png"
done

# ---- threads the machine refuses: one line naming --threads, not libgomp's abort ----------
if [ -z "${FARMRT_SANITIZED:-}" ]; then
    runner=(prlimit --as=1500000000)
    expect_error "--threads beyond an address-space limit" "--threads 4096: this process can start only [0-9]+ threads .*" \
        "$tiny" -q -o o.ppm --threads 4096
    runner=(bounded)
fi

# ---- outputs that would replace the image, a device node or never open ------------------
mkfifo "$hostile/log.fifo"
expect_error "--frame-log a FIFO" "--frame-log: $hostile/log\.fifo: is a FIFO; farmrt writes its outputs as regular files only" \
    "$tiny" -q -o o.ppm --frame-log "$hostile/log.fifo"
expect_error "--stats /dev/null" "--stats: /dev/null: is a device; farmrt writes its outputs as regular files only" \
    "$tiny" -q -o o.ppm --stats /dev/null
[ -c /dev/null ] || fail "/dev/null is no longer a device"
expect_error "--stats over the image" "--stats: o\.ppm is the output image itself" "$tiny" -q -o o.ppm --stats o.ppm
expect_error "--frame-log over the image" "--frame-log: \./o\.ppm is the output image itself" \
    "$tiny" -q -o o.ppm --frame-log ./o.ppm
expect_error "--stats a directory" "--stats: \.: output path is a directory" "$tiny" -q -o o.ppm --stats .
long=$(printf 'x%.0s' $(seq 300)).ppm
expect_error "a 304-byte output name" "x+\.ppm: the file name is 304 bytes, longer than the file system's limit of 255" \
    "$tiny" -q -o "$long"
expect_error "an output name holding NUL" "o\\\\x00x\.ppm: the name holds a NUL byte" "$tiny" -q --set 'image.output="o\0x.ppm"'

# ---- messages: one printable, bounded line ----------------------------------------------
expect_error "right-to-left override" ".*got 'a\\\\u202eb'" "$tiny" -q --set "camera.vfov=$(printf 'a\u202eb')"
expect_error "100 KB value" ".*\.\.\. \([0-9]+ more bytes\)" "$tiny" -q --set "camera.vfov=$(head -c 100000 /dev/zero | tr '\0' 9)"
[ "$(wc -c <"$work/stderr")" -le 1200 ] || fail "100 KB value: a line of $(wc -c <"$work/stderr") bytes"
python3 -c "open('$hostile/deep.yaml','w').write('image: ' + '[' * 3000 + ']' * 3000 + '\n')"
expect_error "YAML nested 3,000 levels" ".*deep\.yaml:1:[0-9]+: malformed YAML: nested more than [0-9]+ levels deep" \
    "$hostile/deep.yaml"

# ---- the command line: nothing silently misread ------------------------------------------
expect_error "a stray word after a value" "7: unexpected argument; the scene file is '.*tiny\.yaml' .*" "$tiny" --spp 2 7
expect_error "two outputs" "second\.png: unexpected argument; .*" "$tiny" -o first.png second.png
expect_error "an AOV list as two words" "normal: unexpected argument; .*" "$tiny" --aov albedo normal
expect_error "a scalar option twice" "--spp: given twice \('2' and '7'\); give it once" "$tiny" --spp 2 --spp 7
expect_error "frames given twice" "--frames: given twice \('1-2' and '3'\); give it once" "$tiny" --frames 1-2 --frames 3
expect_error "a flag with a value" "--resume: takes no value, got 'yes'" "$tiny" --resume=yes
expect_error "a Blender file" ".*scene\.blend: not a format farmrt reads \(scenes: \.yaml; models: \.gltf, \.glb, \.obj, \.ply.*\)" \
    "$hostile/scene.blend"
# STL, Collada, FBX and 3DS come through assimp, where the build has it: its errors are one line too.
if "$farmrt" --version | grep -q assimp; then
    { printf '%080d' 0; printf '\350\003\000\000'; printf 'short'; } >"$hostile/short.stl"
    expect_error "a truncated STL" ".*short\.stl: .*" "$hostile/short.stl" -q -o o.png
    printf '<?xml version="1.0"?><COLLADA><library_geometries><geometry' >"$hostile/cut.dae"
    expect_error "a truncated Collada file" ".*cut\.dae: .*" "$hostile/cut.dae" -q -o o.png
fi
# Options before the scene, and repeated --aov, are read as written.
"$farmrt" --spp 2 --threads 1 -q "$tiny" -o before.pfm --aov albedo --aov normal 2>"$work/stderr" ||
    fail "options before the scene: $(cat "$work/stderr")"
for aov in albedo normal; do
    [ -s "before.$aov.pfm" ] || fail "--aov albedo --aov normal: no $aov image"
done
rm -f before.pfm before.albedo.pfm before.normal.pfm
"$farmrt" --version | grep -Eq '^farmrt [0-9.]+ \(commit [^;]+; built with [^;]*openmp[^;]*; this CPU: [a-z0-9.]+\)$' ||
    fail "--version: '$("$farmrt" --version)' names no commit or build features"

# ---- a stop while the scene loads: out at once, nothing written, exit 75 -------------------
# slow.yaml: thousands of model files; huge.yaml: one 20 MB scene file, a
# single parse inside yaml-cpp that polls nothing.
python3 - "$hostile" <<'PY'
import sys
d = sys.argv[1]
header = ("image: {width: 8, height: 8, output: slow.ppm}\nsampling: {spp: 1}\ncamera: {lookfrom: [0, 0, 5], lookat: [0, 0, 0]}\n"
          "materials: {m: {type: lambertian, albedo: [0.5, 0.5, 0.5]}}\nobjects:\n")
with open(d + '/slow.yaml', 'w') as f:
    f.write(header)
    f.writelines("  - {type: model, file: big%d.obj, material: m}\n" % (i % 2) for i in range(4000))
for k in range(2):
    with open(d + '/big%d.obj' % k, 'w') as f:
        for i in range(200000):
            f.write("v %d 0 0\nv %d 1 0\nv %d 0 1\nf %d %d %d\n" % (i, i, i, 3 * i + 1, 3 * i + 2, 3 * i + 3))
with open(d + '/huge.yaml', 'w') as f:
    f.write(header)
    f.writelines("  - {type: sphere, center: [%d, 0, -9], radius: 0.5, material: m}\n" % i for i in range(300000))
PY
# The goal is 1 s; the handler itself ends the process in this phase, so
# the sanitizers get no more.
for scene in slow huge; do
    for signal in TERM INT HUP USR1; do
        (cd "$hostile" && exec "$farmrt" $scene.yaml -q) 2>"$work/stderr" &
        pid=$!
        sleep 0.5
        kill -s "$signal" "$pid" 2>/dev/null
        sent=$(date +%s%N)
        wait "$pid"
        rc=$?
        waited_ms=$((($(date +%s%N) - sent) / 1000000))
        what="SIG$signal while loading $scene.yaml"
        [ "$rc" -eq 75 ] || fail "$what: exit code $rc: $(head -c 300 "$work/stderr")"
        [ "$waited_ms" -le 1000 ] || fail "$what: exited $waited_ms ms after the signal"
        grep -Eqx "farmrt: stopped by SIG$signal while loading the scene: nothing was rendered, no image or checkpoint written" \
            "$work/stderr" || fail "$what: stderr '$(head -c 300 "$work/stderr")'"
        [ -e "$hostile/slow.ppm" ] && fail "$what: an image was written"
    done
done

leftovers=$(ls -A "$work/out")
[ -n "$leftovers" ] && fail "files left behind: $leftovers"
if [ "$failures" -gt 0 ]; then
    echo "$failures hostile-input checks failed"
    exit 1
fi
echo "all hostile-input checks passed"
