#!/usr/bin/env bash
# Adaptive sampling against uniform sampling on configs/interior.yaml (a
# bright sky and facade, a dark room lit through its door), on this machine's
# CPU (all threads) and GPU (exact math) where it has one:
#   - a converged reference: uniform, REF_SPP, on the GPU when there is one;
#   - uniform sampling at 16 to 512 spp, adaptive sampling at several noise
#     thresholds (at most 1024 spp, min_spp 16): wall time, render phase
#     (--stats), the mean samples a pixel took (the samples AOV), RMSE
#     against the reference in linear RGB and of the values' square roots
#     (image_error.py --sqrt: as a display spreads the error, the measure
#     the noise threshold equalises), and the square roots' RMSE of the
#     noisiest 1% of 8x8 blocks (image_error.py --sqrt-blocks);
#   - at equal time: the error uniform sampling reaches in the adaptive run's
#     wall time (RMSE ~ 1/sqrt(time), from the uniform run nearest in time),
#     and the time uniform sampling needs for the adaptive run's error,
#     both for the square roots' RMSE.
# Prints markdown tables; keeps the images under OUT_DIR, and the sample
# counts of the 0.02 run as OUT_DIR/interior_samples.png (sample_map.py).
#
#   scripts/bench/adaptive.sh FARMRT OUT_DIR [REF_SPP]   (default 16384)
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
farmrt=${1:?usage: bench/adaptive.sh FARMRT OUT_DIR [REF_SPP]}
out=${2:?usage: bench/adaptive.sh FARMRT OUT_DIR [REF_SPP]}
reference_spp=${3:-16384}
mkdir -p "$out"
cd "$root" || exit 1
backends=(cpu)
if command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then backends+=(cuda); fi
scene=(configs/interior.yaml --width 480 --height 270 --aov samples)

# run NAME ARGS...: renders OUT/NAME.pfm (and its samples AOV); prints "wall render mean_spp".
run() {
  local name=$1; shift
  local start end
  start=$(date +%s.%N)
  "$farmrt" "${scene[@]}" "$@" -q -o "$out/$name.pfm" --stats "$out/$name.json" >/dev/null || { echo "failed: $name" >&2; return 1; }
  end=$(date +%s.%N)
  python3 - "$out/$name.json" "$out/$name.samples.pfm" "$start" "$end" <<'PY'
import array, json, sys
stats = json.load(open(sys.argv[1]))
with open(sys.argv[2], "rb") as f:
    f.readline(); f.readline(); f.readline()
    counts = array.array("f"); counts.frombytes(f.read())
print("%.3f %.3f %.1f" % (float(sys.argv[4]) - float(sys.argv[3]), stats["render_seconds"], sum(counts) / len(counts)))
PY
}

run reference --spp "$reference_spp" --noise-threshold 0 --backend "${backends[-1]}" >/dev/null || exit 1
echo "| backend | sampling | spp (max) | mean spp taken | wall s | render s | RMSE linear | RMSE √ | noisiest 1% of blocks, RMSE √ | uniform's RMSE √ in this wall time | uniform's wall s for this RMSE √ | uniform's wall s for this noisiest 1% |"
echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
for backend in "${backends[@]}"; do
  uniform_runs=()
  for spp in 16 32 64 128 256 512; do
    name=${backend}_uniform_$spp
    read -r wall render mean < <(run "$name" --spp "$spp" --noise-threshold 0 --backend "$backend") || continue
    rmse=$(python3 scripts/bench/image_error.py "$out/$name.pfm" "$out/reference.pfm")
    rmse_sqrt=$(python3 scripts/bench/image_error.py "$out/$name.pfm" "$out/reference.pfm" --sqrt)
    worst=$(python3 scripts/bench/image_error.py "$out/$name.pfm" "$out/reference.pfm" --sqrt-blocks)
    uniform_runs+=("$wall:$rmse_sqrt:$worst")
    echo "| $backend | uniform | $spp | $mean | $wall | $render | $rmse | $rmse_sqrt | $worst | | | |"
  done
  for threshold in 0.05 0.02 0.01 0.005; do
    name=${backend}_adaptive_$threshold
    read -r wall render mean < <(run "$name" --spp 1024 --min-spp 16 --noise-threshold "$threshold" --backend "$backend") || continue
    rmse=$(python3 scripts/bench/image_error.py "$out/$name.pfm" "$out/reference.pfm")
    rmse_sqrt=$(python3 scripts/bench/image_error.py "$out/$name.pfm" "$out/reference.pfm" --sqrt)
    worst=$(python3 scripts/bench/image_error.py "$out/$name.pfm" "$out/reference.pfm" --sqrt-blocks)
    read -r equal_time_rmse equal_error_wall equal_worst_wall < <(python3 - "$wall" "$rmse_sqrt" "$worst" "${uniform_runs[@]}" <<'PY'
import sys
wall, rmse, worst = map(float, sys.argv[1:4])
runs = [tuple(map(float, r.split(":"))) for r in sys.argv[4:]]
u_wall, u_rmse, u_worst = min(runs, key=lambda r: abs(r[0] - wall))
print("%.4g %.3f %.3f" % (u_rmse * (u_wall / wall) ** 0.5, u_wall * (u_rmse / rmse) ** 2, u_wall * (u_worst / worst) ** 2))
PY
)
    echo "| $backend | adaptive $threshold | 1024 | $mean | $wall | $render | $rmse | $rmse_sqrt | $worst | $equal_time_rmse | $equal_error_wall | $equal_worst_wall |"
    if [ "$backend" = cpu ] && [ "$threshold" = 0.02 ]; then
      python3 scripts/bench/sample_map.py "$out/$name.samples.pfm" "$out/interior_samples.png" 1024
    fi
  done
done
