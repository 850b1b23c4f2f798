#!/usr/bin/env bash
# The GPU's two path tracers side by side: the megakernel and the split
# kernels (FARMRT_CUDA_INTEGRATOR), exact and fast math, on the book's final
# scene (configs/spheres.yaml, 1200x675, depth 50), the Cornell box and the
# models scene; render phase (--stats) and whole command, interleaved, the
# median of REPEAT runs. Also checks that the two exact images are the same bytes.
#
#   scripts/bench/cuda_integrators.sh BUILD_DIR OUT_DIR [REPEAT]     (about 3 minutes on an H100)
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:?usage: bench/cuda_integrators.sh BUILD_DIR OUT_DIR [REPEAT]}
out=${2:?usage: bench/cuda_integrators.sh BUILD_DIR OUT_DIR [REPEAT]}
repeat=${3:-3}
mkdir -p "$out"
cases=${FARMRT_BENCH_CASES:-"spheres:4096 cornell:1024 models:1024"}
md=$out/integrators.md
{
  echo "# GPU integrators, $(date -u '+%Y-%m-%d %H:%M UTC'), $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1), $(nproc) cores"
  echo "# git ${FARMRT_COMMIT:-$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)}"
  echo "| scene | spp | math | integrator | G samples/s (render) | render s | whole command s |"
  echo "|---|---:|---|---|---:|---:|---:|"
} > "$md"
cd "$root" || exit 1
for c in $cases; do
  IFS=: read -r scene spp <<< "$c"
  for math in exact fast; do
    for integrator in megakernel split; do rm -f "$out/times_${integrator}.txt"; done
    for ((rep = 0; rep < repeat; ++rep)); do
      for integrator in megakernel split; do
        stats=$out/${scene}_${math}_${integrator}_$rep.json
        start=$(date +%s.%N)
        FARMRT_CUDA_INTEGRATOR=$integrator "$build/farmrt" "configs/$scene.yaml" --spp "$spp" --backend cuda \
          --gpu-math "$math" --quiet -o "$out/${scene}_${math}_${integrator}.pfm" --stats "$stats" || exit 1
        end=$(date +%s.%N)
        python3 -c "import json;d=json.load(open('$stats'));print(d['samples']/d['render_seconds']/1e9, d['render_seconds'], $end-$start)" \
          >> "$out/times_${integrator}.txt"
      done
    done
    for integrator in megakernel split; do
      python3 - "$out/times_${integrator}.txt" "$scene" "$spp" "$math" "$integrator" >> "$md" <<'PY'
import statistics, sys
rows = [list(map(float, line.split())) for line in open(sys.argv[1])]
med = [statistics.median(r[i] for r in rows) for i in range(3)]
print(f"| {sys.argv[2]} | {sys.argv[3]} | {sys.argv[4]} | {sys.argv[5]} | {med[0]:.4f} | {med[1]:.3f} | {med[2]:.3f} |")
PY
    done
    if [ "$math" = exact ]; then
      cmp -s "$out/${scene}_exact_megakernel.pfm" "$out/${scene}_exact_split.pfm" &&
        echo "$scene exact: same bytes" >> "$out/bytes.txt" || echo "$scene exact: DIFFERENT bytes" >> "$out/bytes.txt"
    fi
  done
done
cat "$md" "$out/bytes.txt"
