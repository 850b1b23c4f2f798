#!/usr/bin/env bash
# The split kernels' generate with one atomic per block instead of per warp, one call
# on one H200. Builds made on the dev VM (scripts/gpu_build_and_test.sh's
# configuration, CUDA 13, stripped), carried as one xz-compressed tar in
# .deps/ship: farmrt_slab (the tree before the change, 321363d), farmrt_gen and
# farmrt_cuda_tests_gen (with it); the assimp test models the GPU tests
# read in .deps/ship/models.
#  1. the GPU tests of the changed tree;
#  2. each build's GPU images against its own CPU's bytes: every config and
#     the million triangles at 120x68, 8 spp, both estimators, the automatic
#     integrator, the megakernel and the split kernels; the two builds' CPU
#     and GPU images against each other;
#     compute-sanitizer's racecheck, synccheck and memcheck on the split kernels;
#  3. render phase and whole command, the builds interleaved, REPEATS times
#     (CASES: name:spp:math[,naive]), medians (medians.txt).
set -uo pipefail
root=$PWD; out=${OUT:-/tmp/out}; mkdir -p "$out"
s=$SECONDS
export LD_LIBRARY_PATH=$root/.deps/root/usr/lib/x86_64-linux-gnu
bin=/tmp/bin; mkdir -p $bin
xz -dc "$root/.deps/ship/builds.tar.xz" | tar xf - -C $bin
[ -e /work/main ] || { mkdir -p /work && ln -s "$root" /work/main; }
[ -e /usr/share/assimp/models ] || { mkdir -p /usr/share/assimp && ln -s "$root/.deps/ship/models" /usr/share/assimp/models; }
names=${NAMES:-"slab gen"}
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; nproc; for v in $names; do $bin/farmrt_$v --version | head -1; done; } > "$out/machine.txt"
cat "$out/machine.txt"
scripts/generate/env_model.sh /tmp > /tmp/scene.log 2>&1 || { cat /tmp/scene.log; exit 1; }
echo "scene at $((SECONDS - s)) s"

if [ -x $bin/farmrt_cuda_tests_gen ]; then
  timeout -k 5 300 $bin/farmrt_cuda_tests_gen > "$out/cuda_tests.log" 2>&1
  echo "cuda tests rc=$? at $((SECONDS - s)) s"; grep -E "^\[  (PASSED|FAILED)|FAILED|tests ran" "$out/cuda_tests.log" | tail -8
fi

# The block's shared counters: no race, no barrier out of step, no bad access.
for tool in racecheck synccheck memcheck; do
  FARMRT_CUDA_INTEGRATOR=split FARMRT_CUDA_PATHS=4096 timeout -k 3 120 compute-sanitizer --tool $tool --error-exitcode 99 \
    $bin/farmrt_gen configs/cornell.yaml --width 64 --height 36 --spp 8 --backend cuda --quiet -o /tmp/s.pfm > "$out/sanitizer_$tool.txt" 2>&1
  echo "compute-sanitizer $tool rc=$? at $((SECONDS - s)) s: $(tail -1 "$out/sanitizer_$tool.txt")"
done
{
  for config in configs/*.yaml /tmp/env_model.yaml; do
    name=$(basename $config .yaml)
    for integrator in nee naive; do
      a=($config --width 120 --height 68 --spp 8 --quiet --integrator $integrator)
      for v in $names; do
        F=$bin/farmrt_$v
        $F "${a[@]}" --backend cpu -o /tmp/c_cpu_$v.pfm || { echo "$v $name $integrator cpu FAILED"; continue; }
        for gi in auto megakernel split; do
          FARMRT_CUDA_INTEGRATOR=$gi $F "${a[@]}" --backend cuda -o /tmp/c_gpu_$v.pfm 2>/dev/null || { echo "$v $name $integrator $gi none"; continue; }
          cmp -s /tmp/c_cpu_$v.pfm /tmp/c_gpu_$v.pfm && echo "$v $name $integrator $gi same" || echo "$v $name $integrator $gi DIFFER"
        done
      done
      cmp -s /tmp/c_cpu_${names%% *}.pfm /tmp/c_cpu_${names##* }.pfm && echo "cpu $name $integrator builds same" || echo "cpu $name $integrator builds differ"
    done
  done
  a=(configs/interior.yaml --width 240 --height 135 --spp 160 --min-spp 8 --noise-threshold 0.02 --quiet --aov samples,variance)
  for v in $names; do
    $bin/farmrt_$v "${a[@]}" --backend cpu -o /tmp/a_cpu.pfm
    FARMRT_CUDA_INTEGRATOR=split FARMRT_CUDA_PATHS=1024 $bin/farmrt_$v "${a[@]}" --backend cuda -o /tmp/a_gpu.pfm
    for aov in "" .samples .variance; do cmp -s /tmp/a_cpu$aov.pfm /tmp/a_gpu$aov.pfm && echo "$v adaptive$aov pool 1024 same" || echo "$v adaptive$aov pool 1024 DIFFER"; done
  done
} > "$out/correctness.txt" 2>&1
echo "correctness at $((SECONDS - s)) s: $(grep -c ' same' "$out/correctness.txt") same, $(grep -c DIFFER "$out/correctness.txt") differ, $(grep -c 'builds differ' "$out/correctness.txt") CPU images changed"
grep -E "DIFFER|FAILED|builds differ" "$out/correctness.txt" | head -20

field() { python3 -c "import json, sys; d = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$@" 2>/dev/null || echo nan; }
cases=${CASES:-"cornell:1024:exact cornell:1024:fast models:1024:exact env:256:exact lights:256:exact interior:1024:exact"}
for rep in $(seq ${REPEATS:-3}); do for c in $cases; do for v in $names; do
  IFS=: read -r name spp flags <<< "$c"
  extra=(--gpu-math ${flags%%,*}); [[ $flags == *naive* ]] && extra+=(--integrator naive)
  config=configs/$name.yaml
  [ $name = spheres ] && extra+=(--width 1200 --height 675)
  [ $name = env ] && config=/tmp/env_model.yaml
  [ $name = interior ] && extra+=(--noise-threshold 0.01 --min-spp 16 --width 480 --height 270)
  t0=$(date +%s.%N)
  $bin/farmrt_$v $config --spp $spp "${extra[@]}" --backend cuda --quiet -o /tmp/${v}_$name.pfm --stats /tmp/${v}_$name.json > /tmp/${v}_$name.log 2>&1
  rc=$?; t1=$(date +%s.%N)
  echo "$v $name:$flags $spp $rc $(field /tmp/${v}_$name.json "d['render_seconds']") $(awk "BEGIN {print $t1 - $t0}") $(field /tmp/${v}_$name.json "d['samples_per_second']") $(field /tmp/${v}_$name.json "d['rays']['per_second']")"
done; done; done > "$out/scenes.txt"
echo "scenes at $((SECONDS - s)) s"
python3 - "$out/scenes.txt" ${names%% *} <<'PY' | tee "$out/medians.txt"
import collections, statistics, sys
r = collections.defaultdict(list)
for line in open(sys.argv[1]):
    p = line.split()
    if len(p) >= 8 and p[3] == "0": r[(p[1], p[0])].append([float(x) for x in p[4:8]])
base = sys.argv[2]
for case in sorted({k[0] for k in r}):
    b = r.get((case, base), [])
    for v in sorted({k[1] for k in r} - {base}):
        a = r.get((case, v), [])
        if not a or not b: continue
        m = lambda runs, i: statistics.median(x[i] for x in runs)
        print("%-22s %s render %.4f -> %.4f s (%.3fx)  wall %.3f -> %.3f s  G samples/s %.4f -> %.4f  G rays/s %.3f -> %.3f  n %d/%d" % (
            case, v, m(b, 0), m(a, 0), m(b, 0) / m(a, 0), m(b, 1), m(a, 1), m(b, 2) / 1e9, m(a, 2) / 1e9, m(b, 3) / 1e9, m(a, 3) / 1e9, len(b), len(a)))
PY
