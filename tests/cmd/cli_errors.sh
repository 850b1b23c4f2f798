#!/usr/bin/env bash
# The farmrt command line end to end: every bad input gives exactly one line
# on stderr naming what is wrong and where, exit code 2, nothing on stdout and
# no output file (nor a leftover temporary); --help and --version exit 0; a
# good render writes its file.
#
# usage: cli_errors.sh FARMRT_BINARY SOURCE_DIR
set -u

# Scratch directories, fail and expect_error.
. "$(dirname "$0")/cli_checks.sh" "$@"

# A small valid scene; bad variants replace one line (sed on the line number).
cat >"$work/scenes/good.yaml" <<'EOF'
image:
  width: 8
  height: 6
  output: good.ppm
sampling:
  spp: 1
  max_depth: 4
camera:
  lookfrom: [0, 1, 5]
  lookat: [0, 0, 0]
materials:
  red: {type: lambertian, albedo: [0.8, 0.1, 0.1]}
objects:
  - type: sphere
    center: [0, 0, 0]
    radius: 1
    material: red
EOF
good=$work/scenes/good.yaml
# variant NAME LINE TEXT: good.yaml with line LINE replaced by TEXT; prints the path.
variant() {
    local path=$work/scenes/$1.yaml
    awk -v n="$2" -v text="$3" 'NR == n { print text; next } { print }' "$good" >"$path"
    echo "$path"
}

# ---- the command line itself -----------------------------------------------------
expect_error "no arguments" "no scene file given \(usage: farmrt SCENE.yaml \[options\]; see farmrt --help\)"
expect_error "unknown option" "--bogus: unknown option \(see farmrt --help\)" "$good" --bogus
expect_error "missing option value" "--spp: missing value" "$good" --spp
expect_error "two scene files" "b.yaml: unexpected argument; the scene file is 'a.yaml' .*" a.yaml b.yaml
expect_error "--gpus not a list" "--gpus: expected all or GPU numbers such as 0,2, got 'x'" "$good" --gpus x
expect_error "--gpus empty item" "--gpus: expected all or GPU numbers such as 0,2, got '1,,2'" "$good" --gpus 1,,2
expect_error "--gpus twice the same" "--gpus: GPU 0 is named twice" "$good" --gpus 0,0
expect_error "--gpus with the CPU backend" "--gpus: (the CPU backend renders on no GPU \(--backend cpu\)|this farmrt was built without CUDA .*)" \
    "$good" --backend cpu --gpus 1
expect_error "--gpus beyond the GPUs" "--gpus: (GPU 999 does not exist: this process sees .*|this farmrt was built without CUDA .*)" \
    "$good" --gpus 999
expect_error "bad --threads" "--threads: expected an integer between 1 and 4096, got '0'" "$good" --threads 0
expect_error "zero --rank-timeout" "--rank-timeout: expected seconds between 1 and 10000000, got '0'" "$good" --rank-timeout 0
expect_error "bad --rank-timeout" "--rank-timeout: expected seconds between 1 and 10000000, got 'soon'" "$good" --rank-timeout=soon
for limit in 0 nan -3 inf 1e9 ""; do
    expect_error "--time-limit '$limit'" "--time-limit: expected seconds above 0 and at most 10000000, got '$limit'" \
        "$good" --time-limit "$limit"
done
expect_error "zero --preview-interval" "--preview-interval: expected seconds above 0 and at most 10000000, got '0'" \
    "$good" --preview p.ppm --preview-interval 0
expect_error "preview in a missing directory" "--preview: nowhere/p.ppm: output directory 'nowhere' does not exist" \
    "$good" --preview nowhere/p.ppm
expect_error "preview in an unknown format" "--preview: .*p\\.xyz.*" "$good" --preview p.xyz
expect_error "preview over the output" "--preview: good\\.ppm is the output image itself" "$good" --preview good.ppm
expect_error "frame log in a missing directory" \
    "--frame-log: nowhere/log.jsonl: cannot create it in 'nowhere': No such file or directory" \
    "$good" --frame-log nowhere/log.jsonl
expect_error "unknown --aov" "--aov albedo,nromal: image.aovs\\[1\\]: unknown AOV 'nromal' \\(expected albedo, normal, depth, samples or variance\\)" \
    "$good" --aov albedo,nromal
expect_error "noise threshold above 1" "--noise-threshold 2: sampling\.noise_threshold: must be in \[0, 1\], got 2" \
    "$good" --noise-threshold 2
expect_error "negative noise threshold" "--noise-threshold -0\.1: sampling\.noise_threshold: must be in \[0, 1\], got -0\.1" \
    "$good" --noise-threshold -0.1
expect_error "NaN noise threshold" "--noise-threshold nan: sampling\.noise_threshold: must be a finite number, got nan" \
    "$good" --noise-threshold nan
expect_error "vanishing noise threshold" \
    "--noise-threshold 1e-9: sampling\.noise_threshold: must be 0 \(off\) or at least 1e-06, got 1e-9" \
    "$good" --noise-threshold 1e-9
expect_error "minimum spp of 1" "--min-spp 1: sampling\.min_spp: must be between 2 and 16777216, got 1" "$good" --min-spp 1
expect_error "NaN exposure" "--set image\.exposure=nan: image\.exposure: must be a finite number, got nan" "$good" --set image.exposure=nan
expect_error "exposure beyond 30 EV" "--set image\.exposure=40: image\.exposure: must be in \[-30, 30\], got 40" "$good" --set image.exposure=40
expect_error "unknown view transform" "--set image\.view_transform=agx: image\.view_transform: unknown value 'agx' \(expected standard \| filmic\)" \
    "$good" --set image.view_transform=agx
expect_error "an AOV twice" "--aov depth,depth: image.aovs\\[1\\]: AOV 'depth' listed twice" "$good" --aov depth,depth
printf 'image: {width: 8, height: 6, output: good.ppm,\n        aovs: [albedo, sheen]}\nsampling: {spp: 1}\ncamera: {lookfrom: [0, 1, 5], lookat: [0, 0, 0]}\n' >"$work/scenes/aovs.yaml"
expect_error "unknown AOV in a scene" \
    ".*aovs\\.yaml:2:24: image\\.aovs\\[1\\]: unknown AOV 'sheen' \\(expected albedo, normal, depth, samples or variance\\)" \
    "$work/scenes/aovs.yaml"
expect_error "frame log is a directory" "--frame-log: \\. is a directory" "$good" --frame-log .
expect_error "--opt=value with a bad value" "--spp -3: sampling\.spp: must be between 1 and 16777216, got -3" "$good" --spp=-3
expect_error "bad --tile" "--tile: expected an integer between 1 and 4096, got 'big'" "$good" --tile big
expect_error "unknown --integrator" "--integrator bidirectional: sampling\.integrator: unknown value 'bidirectional' \(expected nee \| naive\)" "$good" --integrator bidirectional

# ---- the scene file ----------------------------------------------------------------
expect_error "missing scene file" "missing.yaml: cannot read scene file: No such file or directory" missing.yaml
expect_error "scene file is a directory" "$work/scenes: cannot read scene file: is a directory" "$work/scenes"
bad=$(variant malformed 12 "  red: {type: lambertian, albedo: [0.8, 0.1, 0.1]")
expect_error "malformed YAML" "$bad:13:1: malformed YAML: .*" "$bad"
bad=$(variant typo 16 "    radus: 1")
expect_error "unknown key" "$bad:16:5: objects\[0\]\.radus: unknown key \(expected one of: type, center, .*\)" "$bad"
bad=$(variant negative 16 "    radius: -1")
expect_error "negative radius" "$bad:16:13: objects\[0\]\.radius: must be > 0, got -1" "$bad"
bad=$(variant wrong_type 2 "  width: wide")
expect_error "wrong type" "$bad:2:10: image\.width: expected an integer, got 'wide'" "$bad"
bad=$(variant missing_key 16 "    # no radius")
expect_error "missing key" "$bad:14:5: objects\[0\]: missing required key 'radius'" "$bad"
bad=$(variant nan 15 "    center: [0, .nan, 0]")
expect_error "NaN" "$bad:15:17: objects\[0\]\.center\[1\]: must be a finite number, got \.nan" "$bad"
bad=$(variant infinite 15 "    center: [0, 0, -.inf]")
expect_error "infinity" "$bad:15:20: objects\[0\]\.center\[2\]: must be a finite number, got -\.inf" "$bad"
bad=$(variant zero_width 2 "  width: 0")
expect_error "zero width" "$bad:2:10: image\.width: must be between 1 and 65536, got 0" "$bad"
bad=$(variant unknown_material 17 "    material: rde")
expect_error "unknown material" "$bad:17:15: objects\[0\]\.material: unknown material 'rde'" "$bad"
bad=$(variant unknown_type 12 "  red: {type: lambertain, albedo: [0.8, 0.1, 0.1]}")
expect_error "unknown material type" "$bad:12:15: materials\.red\.type: unknown value 'lambertain' .*" "$bad"
bad=$(variant bad_extension 4 "  output: good.xyz")
expect_error "unsupported extension in the scene" "$bad:4:11: image\.output: unsupported image extension '\.xyz' .*" "$bad"

# ---- lights and backgrounds -------------------------------------------------------------
expect_error "environment map missing" "--set background=\{environment: \{file: sky.exr\}\}: background\.environment\.file: .*sky\.exr: cannot read image texture: no such file" \
    "$good" --set 'background={environment: {file: sky.exr}}'
expect_error "NaN light intensity" "--set lights=\[\{type: point, position: \[0, 1, 0\], intensity: \.nan\}\]: lights\[0\]\.intensity: must be a finite number, got \.nan" \
    "$good" --set 'lights=[{type: point, position: [0, 1, 0], intensity: .nan}]'
expect_error "unknown background sampling" "--set background.sampling=always: background\.sampling: unknown value 'always' \(expected auto \| light \| bsdf\)" \
    "$good" --set background.sampling=always

# ---- models ------------------------------------------------------------------------------
printf 'ply\nformat ascii 1.0\nelement vertex 99999999\nproperty float x\nproperty float y\nproperty float z\nend_header\n0 0 0\n' >"$work/scenes/lying.ply"
expect_error "PLY with a lying header" "$work/scenes/lying\.ply: the header promises 99999999 vertex elements, more than the file's 6 bytes of data can hold" \
    "$work/scenes/lying.ply" -o "$work/out/lying.ppm"
printf '{"asset": {"version": "2.0"}, "extensionsRequired": ["KHR_draco_mesh_compression"], "meshes": [' >"$work/scenes/cut.gltf"
expect_error "malformed glTF" "$work/scenes/cut\.gltf: malformed glTF: .*" "$work/scenes/cut.gltf" -o "$work/out/cut.ppm"
printf '{"asset": {"version": "2.0"}, "extensionsRequired": ["KHR_draco_mesh_compression"]}' >"$work/scenes/draco.gltf"
expect_error "required extension" "$work/scenes/draco\.gltf: /extensionsRequired: requires extension KHR_draco_mesh_compression \(Draco-compressed meshes\), which farmrt does not decode; .*" \
    "$work/scenes/draco.gltf" -o "$work/out/draco.ppm"
expect_error "model object in a scene" "--set objects\[0\]=\{type: model, file: draco\.gltf\}: objects\[0\]\.file: .*draco\.gltf: /extensionsRequired: requires extension .*" \
    "$good" --set 'objects[0]={type: model, file: draco.gltf}'
expect_error "model that is not a model" "--set objects\[0\]=\{type: model, file: good\.yaml\}: objects\[0\]\.file: not a model farmrt reads \(expected \.gltf, \.glb, \.obj, \.ply.*\)" \
    "$good" --set 'objects[0]={type: model, file: good.yaml}'
expect_error "principled out of range" "--set materials\.red=\{type: principled, roughness: 2\}: materials\.red\.roughness: must be in \[0, 1\], got 2" \
    "$good" --set 'materials.red={type: principled, roughness: 2}'

# ---- overrides -----------------------------------------------------------------------
expect_error "absurd size" "--height 65536: image\.height: image of 65536x65536 exceeds the limit of 268435456 pixels" \
    "$good" --width 65536 --height 65536
expect_error "width x height x spp overflow" \
    "--spp 16777216: sampling\.spp: width x height x spp = [0-9]+ samples exceeds the limit of 17592186044416" \
    "$good" --width 16384 --height 16384 --spp 16777216
expect_error "bad --spp" "--spp abc: sampling\.spp: expected an integer, got 'abc'" "$good" --spp abc
expect_error "--set typo" "--set camera\.vfvo=30: camera\.vfvo: unknown key \(expected one of: .*\)" "$good" --set camera.vfvo=30
expect_error "--set bad value" "--set objects\[0\]\.radius=-2: objects\[0\]\.radius: must be > 0, got -2" \
    "$good" --set 'objects[0].radius=-2'
expect_error "--set without =" "--set camera\.vfov: expected key\.path=value" "$good" --set camera.vfov
expect_error "--set index out of range" "--set objects\[3\]\.radius=1: objects\[3\]\.radius: list index 3 is out of range" \
    "$good" --set 'objects[3].radius=1'

# ---- outputs ---------------------------------------------------------------------------
expect_error "unsupported extension" "-o out\.xyz: image\.output: unsupported image extension '\.xyz' .*" "$good" -o out.xyz
expect_error "no extension" "-o out: image\.output: no file extension to choose the image format by .*" "$good" -o out
expect_error "missing output directory" "nowhere/out\.ppm: output directory 'nowhere' does not exist" "$good" -o nowhere/out.ppm
mkdir "$work/scenes/dir.ppm"
expect_error "output path is a directory" "$work/scenes/dir\.ppm: output path is a directory" "$good" -o "$work/scenes/dir.ppm"
expect_error "stats into a missing directory" "--stats: nowhere/stats\.json: output directory 'nowhere' does not exist" \
    "$good" --stats nowhere/stats.json
if [ "$(id -u)" -ne 0 ]; then  # root may write anywhere: this case needs an ordinary user
    mkdir "$work/locked" && chmod 0500 "$work/locked"
    expect_error "unwritable output directory" "$work/locked/out\.ppm: output directory '$work/locked' is not writable" \
        "$good" -o "$work/locked/out.ppm"
else
    echo "note: running as root, the unwritable-directory case is skipped (root may write anywhere)"
fi

# An existing output file survives a failed run untouched.
echo "the previous image" >"$work/out/keep.ppm"
bad=$(variant keep 16 "    radius: -1")
expect_error "failed run keeps the old file" "$bad:16:13: objects\[0\]\.radius: must be > 0, got -1" "$bad" -o keep.ppm
[ "$(cat "$work/out/keep.ppm")" = "the previous image" ] || fail "the previous output file was changed"
rm "$work/out/keep.ppm"

# ---- hostile files: regular files only, sizes checked before allocation -------------------
hostile=$work/hostile
mkdir -p "$hostile"
tiny=$source_dir/configs/tiny.yaml
# OBJ lines that farmrt's checker and tinyobjloader split differently (a
# vertical tab, a lone carriage return): an error, never a read out of bounds.
printf 'v\v0 0 0\nv\v1 0 0\nv\v0 1 0\nf 1 2 3\n' >"$hostile/vt.obj"
printf 'v 0 0 0\nv 1 0 0\nv 0 1 0\nvn\v0 0 1\nf 1//1 2//1 3//1\n' >"$hostile/vn.obj"
printf 'v 0 0 0\nv 1 0 0\nv 0 1 0\n# a comment\rf 1 2 3\nf 1 2 3\n' >"$hostile/cr.obj"
printf 'v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 -9223372036854775808\n' >"$hostile/min.obj"
for mesh in vt vn min; do
    expect_error "OBJ $mesh" ".*objects\[0\]\.file: $hostile/$mesh\.obj(:[0-9]+)?: .*" "$tiny" -q -o o.ppm \
        --set "objects=[{type: mesh, file: $hostile/$mesh.obj, material: glass}]"
done
"$farmrt" "$tiny" -q -o cr.ppm --set "objects=[{type: mesh, file: $hostile/cr.obj, material: glass}]" \
    >/dev/null 2>"$work/stderr"
rc=$?
{ [ "$rc" -eq 0 ] || [ "$rc" -eq 2 ]; } || fail "OBJ with a lone carriage return: exit code $rc"
rm -f cr.ppm
# Image headers larger than their files; a negative size.
python3 -c "open('$hostile/w.pfm','wb').write(b'PF\n4294901766 1431677609\n-1.0\n'+b'\x00\x00\x80\x3f'*192)"
{ printf 'P6\n20000 20000\n255\n'; head -c 100 /dev/zero; } >"$hostile/big.ppm"
printf 'P6\n-1 1\n255\n' >"$hostile/negative.ppm"
# Through OpenImageIO: a PNG whose header fails its CRC (libpng prints its own
# line: it must join farmrt's), and one whose header asks for 60000 x 60000.
python3 - "$hostile" <<'PNG'
import struct, sys, zlib
def chunk(kind, data):
    return struct.pack('>I', len(data)) + kind + data + struct.pack('>I', zlib.crc32(kind + data) & 0xffffffff)
header = struct.pack('>IIBBBBB', 16, 16, 8, 2, 0, 0, 0)
open(sys.argv[1] + '/crc.png', 'wb').write(b'\x89PNG\r\n\x1a\n' + struct.pack('>I', 13) + b'IHDR' + header + b'junk')
header = struct.pack('>IIBBBBB', 60000, 60000, 8, 2, 0, 0, 0)
open(sys.argv[1] + '/huge.png', 'wb').write(b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', header) +
                                           chunk(b'IDAT', zlib.compress(b'\0' * 100)) + chunk(b'IEND', b''))
PNG
for image in w.pfm big.ppm negative.ppm crc.png huge.png; do
    expect_error "image $image" ".*materials\.ground\.albedo\.file: $hostile/$image: .*" "$tiny" -q -o o.ppm \
        --set "materials.ground={type: lambertian, albedo: {texture: image, file: $hostile/$image}}"
done
# Devices, FIFOs and links to them, as scene, mesh and checkpoint: one line at once.
mkfifo "$hostile/fifo.yaml"
ln -s /dev/zero "$hostile/zero.obj"
expect_error "scene /dev/zero" "/dev/zero: cannot read scene file: is a device, not a regular file" /dev/zero
expect_error "scene FIFO" "$hostile/fifo\.yaml: cannot read scene file: is a FIFO, not a regular file" \
    "$hostile/fifo.yaml"
expect_error "mesh linked to /dev/zero" ".*$hostile/zero\.obj: cannot read mesh file: is a device, not a regular file" \
    "$tiny" -q -o o.ppm --set "objects=[{type: mesh, file: $hostile/zero.obj, material: glass}]"

# ---- values that must not reach the renderer ------------------------------------------------
expect_error "list index beyond stol" "--set objects\[99999999999999999999\]\.radius=1: list index 99999999999999999999 is too large" \
    "$tiny" -q -o o.ppm --set 'objects[99999999999999999999].radius=1'
expect_error "keyframes beyond the frame limit" ".*animation: the keyframes span 10000000 frames, more than the limit of 1000000; give animation\.frames" \
    "$tiny" -q -o o.ppm --set 'animation={camera: {keyframes: [{frame: 0}, {frame: 9999999}]}}'
for key in camera.focus_dist 'objects[0].radius' materials.glass.ior; do
    expect_error "$key underflows in float" ".*: must be at least 1\.17549e-38 \(the smallest normal float\), got 1e-50" \
        "$tiny" -q -o o.ppm --set "$key=1e-50"
done
expect_error "radius below the smallest length" ".*objects\[0\]\.radius: must be at least 1e-09, got 1e-12" \
    "$tiny" -q -o o.ppm --set 'objects[0].radius=1e-12'
# Cell numbers beyond int at the finest checker scale (undefined behaviour under UBSan before).
"$farmrt" "$tiny" -q --spp 1 -o fine.ppm \
    --set 'materials.ground={type: lambertian, albedo: {texture: checker, scale: 1e-9, even: [0, 0, 0], odd: [1, 1, 1]}}' ||
    fail "checker at scale 1e-9: exit code $?"
rm -f fine.ppm
# The longest valid output name: its temporary must be a valid name too.
long_name=$(printf 'a%.0s' $(seq 251)).ppm
"$farmrt" "$tiny" -q --spp 1 -o "$long_name" || fail "255-byte output name: exit code $?"
[ -s "$long_name" ] || fail "255-byte output name: no image"
rm -f "$long_name"

# A key holding a newline: still one line, the newline written as \n.
expect_error "newline in a key" ".*camera\\\\nvfov.*" "$tiny" -q -o o.ppm --set "$(printf 'camera\nvfov=30')"

# ---- measurement switches from the environment: read once, checked, one line -------------
export FARMRT_SIMD_TRAVERSAL=fast
expect_error "bad FARMRT_SIMD_TRAVERSAL" "FARMRT_SIMD_TRAVERSAL: expected auto, wide or scalar, got 'fast'" "$tiny" -q -o o.ppm
unset FARMRT_SIMD_TRAVERSAL
export FARMRT_FARM_BAND_DIVISOR=0
expect_error "bad FARMRT_FARM_BAND_DIVISOR" "FARMRT_FARM_BAND_DIVISOR: expected a number from 1 to 1000000, got '0'" "$tiny" -q -o o.ppm
unset FARMRT_FARM_BAND_DIVISOR

# ---- --help, --version -------------------------------------------------------------------
"$farmrt" --help >"$work/stdout" 2>"$work/stderr" || fail "--help: exit code $?"
grep -q "^usage: farmrt SCENE.yaml" "$work/stdout" || fail "--help: no usage line"
[ -s "$work/stderr" ] && fail "--help: wrote to stderr"
"$farmrt" --version >"$work/stdout" 2>"$work/stderr" || fail "--version: exit code $?"
grep -Eqx "farmrt [0-9]+\.[0-9]+\.[0-9]+ \(commit .*\)" "$work/stdout" || fail "--version: '$(cat "$work/stdout")'"

# ---- a good render ----------------------------------------------------------------------
"$farmrt" "$good" --quiet --stats stats.json >"$work/stdout" 2>"$work/stderr" || fail "good render: exit code $?"
[ -s "$work/stderr" ] && fail "good render with --quiet wrote to stderr: $(cat "$work/stderr")"
[ "$(head -c 2 good.ppm 2>/dev/null)" = "P6" ] || fail "good render: no good.ppm (relative to the current directory)"
grep -q '"samples_per_second"' stats.json || fail "good render: stats.json lacks samples_per_second"
"$farmrt" "$good" -o good.pfm >"$work/stdout" 2>"$work/stderr" || fail "good render to .pfm: exit code $?"
[ "$(head -c 2 good.pfm 2>/dev/null)" = "PF" ] || fail "good render: no good.pfm"
grep -q "^farmrt: wrote good.pfm (8x6, 1 spp)" "$work/stderr" || fail "good render: no summary line: $(cat "$work/stderr")"
# The summary's second line: the rays by kind (an 8x6 frame at 1 spp: 48
# camera rays) and the peak memory.
grep -Eq "^farmrt: [0-9]+ rays traced \(camera 48, extension [0-9]+, shadow [0-9]+\); peak memory [1-9][0-9]* MiB$" \
    "$work/stderr" || fail "good render: no rays and memory line: $(cat "$work/stderr")"
"$farmrt" "$source_dir/configs/tiny.yaml" --spp 1 -q -o tiny.ppm || fail "configs/tiny.yaml: exit code $?"
leftovers=$(ls -A | grep -vxE 'good\.ppm|good\.pfm|stats\.json|tiny\.ppm')
[ -n "$leftovers" ] && fail "files left behind: $leftovers"

if [ "$failures" -ne 0 ]; then
    echo "$failures failure(s)"
    exit 1
fi
echo "all command-line checks passed"
