#!/usr/bin/env bash
# Builds made on the dev VM (scripts/gpu_build_and_test.sh's configuration,
# CUDA 13, stripped), carried in .deps/prebuilt as farmrt_NAME (README.md
# names them), compared in one call on the 2 x H200 host:
# 1. Each changed build's GPU images against its own CPU's bytes: every
#    config at 120x68, 8 spp (split kernels sorted and unsorted, megakernel,
#    fast math's wide BVH on spheres checked against exact), models.yaml with
#    a pool of 1,024 paths, the million triangles.
# 2. The scenes on GPU 0, interleaved, three times: render phase and whole
#    command; medians (medians.txt).
# 3. TIMELINE: spheres.yaml 1200x675, 4096 spp on GPUs 0,1 (and on GPU 0)
#    with FARMRT_TIMELINE=1 (the measurement lines of timeline.patch).
set -uo pipefail
root=$PWD; out=${OUT:-/tmp/out}; mkdir -p "$out"
export PATH=/usr/local/cuda/bin:$PATH
export LD_LIBRARY_PATH=$root/.deps/root/usr/lib/x86_64-linux-gnu
s=$SECONDS
names=${NAMES:-"base timeline"}
bin() { echo "$root/.deps/prebuilt/farmrt_$1"; }
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; for v in $names; do "$(bin $v)" --version; done; } > "$out/machine.txt"
cat "$out/machine.txt"
scripts/generate/env_model.sh /tmp > /tmp/scene.log 2>&1 || { cat /tmp/scene.log; exit 1; }
echo "scene at $((SECONDS - s)) s"

for v in ${CHANGED:-timeline}; do F=$(bin $v); {
  for config in configs/*.yaml /tmp/env_model.yaml; do
    name=$(basename $config .yaml)
    $F $config --width 120 --height 68 --spp 8 --quiet --backend cpu -o /tmp/c_cpu.pfm || { echo "$name cpu FAILED"; continue; }
    for shading in sorted all; do
      FARMRT_CUDA_SHADING=$shading FARMRT_CUDA_INTEGRATOR=split $F $config --width 120 --height 68 --spp 8 --quiet \
        --backend cuda --gpus 0 -o /tmp/c_gpu.pfm && cmp -s /tmp/c_cpu.pfm /tmp/c_gpu.pfm && echo "$name split $shading same" || echo "$name split $shading DIFFER"
    done
    FARMRT_CUDA_INTEGRATOR=megakernel $F $config --width 120 --height 68 --spp 8 --quiet \
      --backend cuda --gpus 0 -o /tmp/c_gpu.pfm && cmp -s /tmp/c_cpu.pfm /tmp/c_gpu.pfm && echo "$name megakernel same" || echo "$name megakernel DIFFER"
    FARMRT_CUDA_EXACT_WIDE=1 FARMRT_CUDA_INTEGRATOR=megakernel $F $config --width 120 --height 68 --spp 8 --quiet \
      --backend cuda --gpus 0 -o /tmp/c_gpu.pfm && cmp -s /tmp/c_cpu.pfm /tmp/c_gpu.pfm && echo "$name megakernel wide same" || echo "$name megakernel wide DIFFER"
  done
  $F configs/models.yaml --spp 16 --quiet --backend cpu -o /tmp/m_cpu.pfm
  FARMRT_CUDA_PATHS=1024 $F configs/models.yaml --spp 16 --quiet --backend cuda --gpus 0 -o /tmp/m_gpu.pfm &&
    cmp -s /tmp/m_cpu.pfm /tmp/m_gpu.pfm && echo "models pool of 1024 same" || echo "models pool of 1024 DIFFER"
  # Fast math: the same bytes as the base build's fast math (the wide BVH's spheres).
  for config in spheres many_spheres; do
    $F configs/$config.yaml --width 240 --height 135 --spp 16 --gpu-math fast --quiet --backend cuda --gpus 0 -o /tmp/f_new.pfm
    $(bin ${names%% *}) configs/$config.yaml --width 240 --height 135 --spp 16 --gpu-math fast --quiet --backend cuda --gpus 0 -o /tmp/f_base.pfm
    cmp -s /tmp/f_new.pfm /tmp/f_base.pfm && echo "$config fast as base same" || echo "$config fast as base DIFFER"
  done
} 2>&1 | sed "s/^/$v /"; done > "$out/correctness.txt"
echo "correctness at $((SECONDS - s)) s: $(grep -c same "$out/correctness.txt") same, $(grep -c DIFFER "$out/correctness.txt") differ"
grep -v same "$out/correctness.txt" | head -20

field() { python3 -c "import json, sys; d = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$@" 2>/dev/null || echo nan; }
cases=${CASES:-"cornell:1024 models:1024 env:256 lights:256 spheresfast:4096"}
for rep in 1 2 3; do for c in $cases; do for v in $names; do
  IFS=: read -r name spp <<< "$c"
  config=configs/$name.yaml; extra=()
  [ $name = env ] && config=/tmp/env_model.yaml
  [ $name = spheresfast ] && config=configs/spheres.yaml && extra=(--gpu-math fast --width 1200 --height 675)
  t0=$(date +%s.%N)
  $(bin $v) $config --spp $spp "${extra[@]}" --backend cuda --gpus 0 --quiet -o /tmp/${v}_$name.pfm --stats /tmp/${v}_$name.json > /tmp/${v}_$name.log 2>&1
  rc=$?; t1=$(date +%s.%N)
  echo "$v $name $spp $rc $(field /tmp/${v}_$name.json "d['render_seconds']") $(awk "BEGIN {print $t1 - $t0}") $(field /tmp/${v}_$name.json "d['rays']['per_second']")"
done; done; done > "$out/scenes.txt"
echo "scenes at $((SECONDS - s)) s"
python3 - "$out/scenes.txt" "${names%% *}" <<'PY' | tee "$out/medians.txt"
import collections, statistics, sys
r = collections.defaultdict(list)
for line in open(sys.argv[1]):
    p = line.split()
    if len(p) >= 6 and p[3] == "0": r[(p[1], p[0])].append((float(p[4]), float(p[5])))
for scene in sorted({k[0] for k in r}):
    base = sys.argv[2]
    b = r.get((scene, base), [])
    for v in sorted({k[1] for k in r} - {base}):
        a = r.get((scene, v), [])
        if not a or not b: continue
        br, ar = statistics.median(x[0] for x in b), statistics.median(x[0] for x in a)
        bw, aw = statistics.median(x[1] for x in b), statistics.median(x[1] for x in a)
        print("%-12s %-9s render %.4f -> %.4f (%.3fx)  wall %.3f -> %.3f  n %d/%d" % (scene, v, br, ar, br / ar, bw, aw, len(b), len(a)))
PY

if [ -n "${TIMELINE-1}" ]; then
  F=$(bin ${TIMELINE_BUILD:-timeline})
  for run in g2_1 g1_1 g2_2 g2_3; do
    gpus=0,1; [[ $run == g1* ]] && gpus=0
    FARMRT_TIMELINE=1 $F configs/spheres.yaml --width 1200 --height 675 --spp 4096 --backend cuda --gpus $gpus --quiet \
      -o /tmp/tl.pfm --stats "$out/timeline_$run.json" 2> "$out/timeline_$run.txt"
    echo "timeline $run rc=$? render $(field "$out/timeline_$run.json" "d['render_seconds']") at $((SECONDS - s)) s"
  done
fi
