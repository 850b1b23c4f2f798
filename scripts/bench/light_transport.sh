#!/usr/bin/env bash
# Time to equal error of the two integrators (docs/scene-format.md,
# sampling.integrator), and the cost of many lights, on this machine's CPU
# (all threads) and GPU (exact math) where it has one:
#   - configs/cornell.yaml at 300x300 and configs/spheres.yaml (the sky-lit
#     final scene) at 400x225, each integrator at several spp (and on the
#     final scene nee with the sky sampled as a light, background.sampling:
#     light): wall time, render phase (--stats), RMSE against a converged
#     reference (nee, REF_SPP, on the GPU when there is one), the RMSE away
#     from the pixels that see the lamp directly (image_error.py --outside 1),
#     and RMSE^2 x render time (the time-independent cost of an estimate: the
#     lower, the sooner it is clean);
#   - the Cornell box's lamp as 1 quad, 2 triangles and 10,000 triangles
#     (scripts/generate/lamp_grid.py): samples per second of the render phase.
# Prints markdown tables; keeps the images under OUT_DIR.
#
#   scripts/bench/light_transport.sh FARMRT OUT_DIR [REF_SPP]   (default 16384)
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
farmrt=${1:?usage: bench/light_transport.sh FARMRT OUT_DIR [REF_SPP]}
out=${2:?usage: bench/light_transport.sh FARMRT OUT_DIR [REF_SPP]}
reference_spp=${3:-16384}
mkdir -p "$out"
cd "$root" || exit 1
backends=(cpu)
if command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then backends+=(cuda); fi
reference_backend=${backends[-1]}

# run NAME ARGS...: renders to OUT/NAME.pfm; prints "wall render samples".
run() {
  local name=$1; shift
  local start end
  start=$(date +%s.%N)
  "$farmrt" "$@" -q -o "$out/$name.pfm" --stats "$out/$name.json" >/dev/null || { echo "failed: $name" >&2; return 1; }
  end=$(date +%s.%N)
  python3 -c "import json; s=json.load(open('$out/$name.json')); print('%.3f %.3f %d' % ($end-$start, s['render_seconds'], s.get('samples', 0)))"
}

# SCENE|ARGS|SPPS|INTEGRATORS (nee_sky: nee with background.sampling: light)
scenes=(
  "cornell|configs/cornell.yaml --width 300 --height 300|16 64 256 1024|naive nee"
  "final|configs/spheres.yaml --width 400 --height 225|16 64 256|naive nee nee_sky"
)
echo "## Time to equal error"
echo
echo "| scene | backend | integrator | spp | wall s | render s | RMSE | RMSE² × render s | RMSE outside the lamp | its RMSE² × render s |"
echo "|---|---|---|---:|---:|---:|---:|---:|---:|---:|"
for entry in "${scenes[@]}"; do
  IFS='|' read -r scene args spps integrators <<<"$entry"
  # shellcheck disable=SC2086
  run "${scene}_reference" $args --spp "$reference_spp" --backend "$reference_backend" >/dev/null || continue
  for backend in "${backends[@]}"; do
    for integrator in $integrators; do
      settings=(--set "sampling.integrator=${integrator%_sky}")
      [ "$integrator" = nee_sky ] && settings+=(--set background.sampling=light)
      for spp in $spps; do
        name="${scene}_${backend}_${integrator}_${spp}"
        # shellcheck disable=SC2086
        read -r wall render _ < <(run "$name" $args --spp "$spp" --backend "$backend" "${settings[@]}") || continue
        read -r rmse outside < <(python3 scripts/bench/image_error.py "$out/$name.pfm" "$out/${scene}_reference.pfm" --outside 1)
        cost=$(python3 -c "print('%.4g' % ($rmse * $rmse * $render))")
        outside_cost=$(python3 -c "print('%.4g' % ($outside * $outside * $render))")
        echo "| $scene | $backend | $integrator | $spp | $wall | $render | $rmse | $cost | $outside | $outside_cost |"
      done
    done
  done
done

echo
echo "## Many lights (nee, Cornell box 300x300, 64 spp)"
echo
python3 scripts/generate/lamp_grid.py 2 "$out/lamp_2.obj" >/dev/null
python3 scripts/generate/lamp_grid.py 10000 "$out/lamp_10000.obj" >/dev/null
lamp_line='  - {type: quad, Q: [343, 554, 332], u: [-130, 0, 0], v: [0, 0, -105], material: light}'
for lamps in 2 10000; do
  grep -vF "$lamp_line" configs/cornell.yaml >"$out/cornell_lamp_$lamps.yaml"
  echo "  - {type: mesh, file: $out/lamp_$lamps.obj, material: light}" >>"$out/cornell_lamp_$lamps.yaml"
done
echo "| backend | lamp | emissive primitives | render s | samples/s | per sample vs 1 quad |"
echo "|---|---|---:|---:|---:|---:|"
for backend in "${backends[@]}"; do
  base=""
  for lamp in quad:1 triangles:2 triangles:10000; do
    kind=${lamp%%:*}; count=${lamp##*:}
    scene_file=configs/cornell.yaml
    [ "$kind" = triangles ] && scene_file=$out/cornell_lamp_$count.yaml
    read -r _ render samples < <(run "lamps_${backend}_${count}" "$scene_file" --width 300 --height 300 --spp 64 \
      --backend "$backend") || continue
    rate=$(python3 -c "print('%.4g' % ($samples / $render))")
    [ -z "$base" ] && base=$render
    echo "| $backend | $kind | $count | $render | $rate | $(python3 -c "print('%.2f' % ($render / $base))") |"
  done
done
