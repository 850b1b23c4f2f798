#!/usr/bin/env bash
# Builds made on the dev VM (scripts/gpu_build_and_test.sh's configuration,
# CUDA 13, stripped), carried in .deps/prebuilt as farmrt_NAME, compared in
# one call on one GPU (README.md names the builds):
#   NAME_pNm  build NAME with a pool of N x 1,048,576 paths (FARMRT_CUDA_PATHS) in step 2.
# NAMES (the first is the base of the ratios), CHANGED (the builds checked
# in step 1), NCU (the builds profiled in step 3) choose; the defaults are
# the first call's.
# 1. Each changed build's split kernels against its own CPU's bytes: every
#    config at 120x68, 8 spp, sorted and unsorted shading; models.yaml with a
#    pool of 1,024 paths; adaptive sampling with its AOVs; the million
#    triangles at 120x68.
# 2. The split kernels' scenes, interleaved, three times: render phase, whole
#    command; medians (medians.txt).
# 3. Nsight Compute: each kernel's duration over one iteration of the million
#    triangles (launches 2001-2007 of the split kernels).
set -uo pipefail
root=$PWD; out=${OUT:-/tmp/out}; mkdir -p "$out"
export PATH=/usr/local/cuda/bin:$PATH
export LD_LIBRARY_PATH=$root/.deps/root/usr/lib/x86_64-linux-gnu
s=$SECONDS
names=${NAMES:-"before wide wide_p2m"}
bin() { echo "$root/.deps/prebuilt/farmrt_${1%_p[0-9]m}"; }
pool() { case $1 in *_p[0-9]m) n=${1##*_p}; echo FARMRT_CUDA_PATHS=$((${n%m} * 1048576)) ;; *) echo FARMRT_CUDA_PATHS=1048576 ;; esac; }
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; for v in $names; do [[ $v == *_p[0-9]m ]] || "$(bin $v)" --version; done; } > "$out/machine.txt"
cat "$out/machine.txt"
scripts/generate/env_model.sh /tmp > /tmp/scene.log 2>&1 || { cat /tmp/scene.log; exit 1; }
echo "scene at $((SECONDS - s)) s"

for v in ${CHANGED:-wide}; do F=$(bin $v); {
  for config in configs/*.yaml /tmp/env_model.yaml; do
    name=$(basename $config .yaml)
    $F $config --width 120 --height 68 --spp 8 --quiet --backend cpu -o /tmp/c_cpu.pfm || { echo "$name cpu FAILED"; continue; }
    for shading in sorted all; do
      FARMRT_CUDA_SHADING=$shading FARMRT_CUDA_INTEGRATOR=split $F $config --width 120 --height 68 --spp 8 --quiet \
        --backend cuda -o /tmp/c_gpu.pfm && cmp -s /tmp/c_cpu.pfm /tmp/c_gpu.pfm && echo "$name split $shading same" || echo "$name split $shading DIFFER"
    done
    FARMRT_CUDA_INTEGRATOR=megakernel $F $config --width 120 --height 68 --spp 8 --quiet \
      --backend cuda -o /tmp/c_gpu.pfm && cmp -s /tmp/c_cpu.pfm /tmp/c_gpu.pfm && echo "$name megakernel same" || echo "$name megakernel DIFFER"
  done
  $F configs/models.yaml --spp 16 --quiet --backend cpu -o /tmp/m_cpu.pfm
  FARMRT_CUDA_PATHS=1024 $F configs/models.yaml --spp 16 --quiet --backend cuda -o /tmp/m_gpu.pfm &&
    cmp -s /tmp/m_cpu.pfm /tmp/m_gpu.pfm && echo "models pool of 1024 same" || echo "models pool of 1024 DIFFER"
  args=(configs/interior.yaml --width 240 --height 135 --spp 160 --min-spp 8 --noise-threshold 0.02 --quiet --aov samples,variance)
  $F "${args[@]}" --backend cpu -o /tmp/a_cpu.pfm
  FARMRT_CUDA_INTEGRATOR=split $F "${args[@]}" --backend cuda -o /tmp/a_gpu.pfm
  for aov in "" .samples .variance; do cmp -s /tmp/a_cpu$aov.pfm /tmp/a_gpu$aov.pfm && echo "adaptive$aov same" || echo "adaptive$aov DIFFER"; done
} 2>&1 | sed "s/^/$v /"; done > "$out/correctness.txt"
echo "correctness at $((SECONDS - s)) s: $(grep -c same "$out/correctness.txt") same, $(grep -c DIFFER "$out/correctness.txt") differ"
grep -v same "$out/correctness.txt" | head -20

field() { python3 -c "import json, sys; d = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$@" 2>/dev/null || echo nan; }
cases=${CASES:-"cornell:1024 models:1024 env:256 lights:256 interior:1024"}
for rep in 1 2 3; do for c in $cases; do for v in $names; do
  IFS=: read -r name spp <<< "$c"
  config=configs/$name.yaml; extra=()
  [ $name = env ] && config=/tmp/env_model.yaml
  [ $name = interior ] && extra=(--noise-threshold 0.01 --min-spp 16 --width 480 --height 270)
  t0=$(date +%s.%N)
  env $(pool $v) $(bin $v) $config --spp $spp "${extra[@]}" --backend cuda --quiet -o /tmp/${v}_$name.pfm --stats /tmp/${v}_$name.json > /tmp/${v}_$name.log 2>&1
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
        print("%-10s %-6s render %.4f -> %.4f (%.3fx)  wall %.3f -> %.3f  n %d/%d" % (scene, v, br, ar, br / ar, bw, aw, len(b), len(a)))
PY
for v in ${NCU-before wide}; do
  timeout -k 3 100 ncu --clock-control none --section SpeedOfLight -k regex:wavefront --launch-skip 2000 --launch-count 7 \
    "$(bin $v)" /tmp/env_model.yaml --spp 256 --backend cuda --quiet -o /tmp/n.pfm > "$out/ncu_env_$v.txt" 2>&1
  echo "ncu $v rc=$? at $((SECONDS - s)) s"
  grep -E "^  [a-z_]+.*wavefront_|^    Duration|^  void wavefront" "$out/ncu_env_$v.txt" | sed -E 's/\(SceneView.*|\(FrameSettings.*|\(BandLaunch.*//' | paste - - | awk '{print}' > "$out/ncu_env_${v}_durations.txt"
  cat "$out/ncu_env_${v}_durations.txt"
done
