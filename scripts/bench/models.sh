#!/usr/bin/env bash
# Imported models: how long an import takes, and what the physically based
# material costs, on this machine's CPU (all threads) and GPU where it has one.
#   - import: the 2CylinderEngine glTF of assimp-testmodels (121k triangles,
#     instanced meshes) and a 1M-triangle binary PLY torus
#     (scripts/generate/dense_ply.py): the parse phase (reading the file) and
#     the BVH build of `farmrt MODEL --stats`, and the whole command's wall
#     time, median of RUNS;
#   - the engine rendered with its own materials (principled) and in one
#     lambertian material (--set objects[0].material=clay): samples per
#     second of the render phase, median of RUNS, per backend.
# Prints markdown tables.
#
#   scripts/bench/models.sh FARMRT OUT_DIR [MODELS_DIR] [RUNS]
#   (MODELS_DIR: assimp-testmodels' models folder, default /usr/share/assimp/models)
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
farmrt=${1:?usage: bench/models.sh FARMRT OUT_DIR [MODELS_DIR] [RUNS]}
out=${2:?usage: bench/models.sh FARMRT OUT_DIR [MODELS_DIR] [RUNS]}
models=${3:-/usr/share/assimp/models}
runs=${4:-5}
mkdir -p "$out"
engine=$models/glTF2/2CylinderEngine-glTF-Binary/2CylinderEngine.glb
torus=$out/torus_1m.ply
[ -f "$torus" ] || python3 "$root/scripts/generate/dense_ply.py" "$torus" 1000000
backends=(cpu)
if command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then backends+=(cuda); fi

# median of the numbers on stdin
median() { sort -g | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2}'; }
# stat FILE KEY: a number from a --stats file (seconds.KEY or KEY)
stat() { python3 -c "import json,sys; s=json.load(open('$1')); k='$2'; print(s['seconds'][k] if k in s['seconds'] else s[k])"; }

echo "| model | triangles | parse (s) | BVH build (s) | wall (s) |"
echo "|---|---:|---:|---:|---:|"
for model in "$engine" "$torus"; do
  parse=() build=() wall=()
  for r in $(seq "$runs"); do
    start=$(date +%s.%N)
    "$farmrt" "$model" --spp 1 --width 64 --height 36 -q -o "$out/import.pfm" --stats "$out/import.json" >/dev/null || { echo "failed: $model" >&2; exit 1; }
    end=$(date +%s.%N)
    parse+=("$(stat "$out/import.json" parse)") build+=("$(stat "$out/import.json" bvh_build)")
    wall+=("$(python3 -c "print($end - $start)")")
  done
  echo "| $(basename "$model") | $(stat "$out/import.json" rendered_primitives) | $(printf '%s\n' "${parse[@]}" | median) | $(printf '%s\n' "${build[@]}" | median) | $(printf '%s\n' "${wall[@]}" | median) |"
done

echo
echo "| backend | materials | spp | render (s) | samples/s | cost vs lambertian |"
echo "|---|---|---:|---:|---:|---:|"
for backend in "${backends[@]}"; do
  spp=16; [ "$backend" = cuda ] && spp=256
  declare -A rate=()
  for variant in lambertian principled; do
    extra=(); [ "$variant" = lambertian ] && extra=(--set 'materials.clay={type: lambertian, albedo: [0.7, 0.7, 0.7]}' --set 'objects[0].material=clay')
    rates=() renders=()
    for r in $(seq "$runs"); do
      "$farmrt" "$engine" --backend "$backend" --spp "$spp" --width 960 --height 540 "${extra[@]}" -q -o "$out/$variant-$backend.pfm" --stats "$out/render.json" >/dev/null || { echo "failed: $variant $backend" >&2; exit 1; }
      rates+=("$(stat "$out/render.json" samples_per_second)") renders+=("$(stat "$out/render.json" render)")
    done
    rate[$variant]=$(printf '%s\n' "${rates[@]}" | median)
    echo "| $backend | $variant | $spp | $(printf '%s\n' "${renders[@]}" | median) | ${rate[$variant]} | $(python3 -c "print('%.2fx' % (${rate[lambertian]} / ${rate[$variant]}))") |"
  done
done
