#!/usr/bin/env bash
# The cost of the precision rules (docs/precision.md): two builds of farmrt,
# BEFORE and AFTER, on the same machine in one run, interleaved, medians of
# REPEATS (default 3):
#   - CPU frames of configs/spheres.yaml and configs/many_spheres.yaml at 1
#     thread (300x169, 16 spp) and at all threads (1200x675, 16 spp);
#   - the GPU headline, configs/spheres.yaml 1200x675 at 4096 spp, exact and
#     fast math (where both builds have CUDA and there is a GPU).
# Each row: wall time of the whole command and the render phase (--stats),
# and AFTER / BEFORE as the ratio of medians.
#
#   scripts/bench/precision.sh BEFORE_FARMRT AFTER_FARMRT OUT_DIR [REPEATS]
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
before=${1:?usage: bench/precision.sh BEFORE_FARMRT AFTER_FARMRT OUT_DIR [REPEATS]}
after=${2:?usage: bench/precision.sh BEFORE_FARMRT AFTER_FARMRT OUT_DIR [REPEATS]}
out=${3:?usage: bench/precision.sh BEFORE_FARMRT AFTER_FARMRT OUT_DIR [REPEATS]}
repeats=${4:-3}
mkdir -p "$out"
cd "$root" || exit 1
threads=$(nproc)
cases=(
  "spheres_1thread|configs/spheres.yaml --width 300 --height 169 --spp 16 --backend cpu --threads 1"
  "many_spheres_1thread|configs/many_spheres.yaml --width 300 --height 169 --spp 16 --backend cpu --threads 1"
  "spheres_${threads}threads|configs/spheres.yaml --width 1200 --height 675 --spp 16 --backend cpu --threads $threads"
  "many_spheres_${threads}threads|configs/many_spheres.yaml --width 1200 --height 675 --spp 16 --backend cpu --threads $threads"
)
if command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then
  cases+=("gpu_exact_4096spp|configs/spheres.yaml --width 1200 --height 675 --spp 4096 --backend cuda --gpu-math exact"
          "gpu_fast_4096spp|configs/spheres.yaml --width 1200 --height 675 --spp 4096 --backend cuda --gpu-math fast")
fi
# One run: prints "wall render" in seconds.
run() {
  local binary=$1 stats=$2; shift 2
  local start end
  start=$(date +%s.%N)
  "$binary" "$@" -q -o "$out/image.pfm" --stats "$stats" >/dev/null || return 1
  end=$(date +%s.%N)
  python3 -c "import json,sys; s=json.load(open('$stats')); print('%.4f %.4f' % ($end-$start, s['render_seconds']))"
}
median() { sort -g | awk '{v[NR]=$1} END {print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'; }
{
  echo "| case | before wall s | after wall s | after/before wall | before render s | after render s | after/before render |"
  echo "|---|---:|---:|---:|---:|---:|---:|"
} > "$out/summary.md"
for entry in "${cases[@]}"; do
  name=${entry%%|*}; read -r -a args <<< "${entry#*|}"
  : > "$out/$name.before"; : > "$out/$name.after"
  for ((i = 0; i < repeats; ++i)); do
    run "$before" "$out/stats.json" "${args[@]}" >> "$out/$name.before"
    run "$after" "$out/stats.json" "${args[@]}" >> "$out/$name.after"
  done
  bw=$(cut -d' ' -f1 "$out/$name.before" | median); aw=$(cut -d' ' -f1 "$out/$name.after" | median)
  br=$(cut -d' ' -f2 "$out/$name.before" | median); ar=$(cut -d' ' -f2 "$out/$name.after" | median)
  awk -v n="$name" -v bw="$bw" -v aw="$aw" -v br="$br" -v ar="$ar" \
    'BEGIN {printf "| %s | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f |\n", n, bw, aw, aw/bw, br, ar, ar/br}' >> "$out/summary.md"
done
rm -f "$out/image.pfm" "$out/stats.json"
cat "$out/summary.md"
