#!/usr/bin/env bash
# Kernels for scenes of the book's material types without lights, one call
# on one H200. Builds made on the dev VM (scripts/gpu_build_and_test.sh's
# configuration, CUDA 13, stripped, xz-compressed) are carried in
# .deps/ship: farmrt_before (the base commit), farmrt_after and
# farmrt_cuda_tests_after (this tree).
#  1. the GPU tests of this tree;
#  2. this tree's GPU images against its CPU's bytes: every config at 120x68,
#     8 spp, both integrators; the book's scene with its own estimator; and
#     the images of before and after against each other;
#  3. render phase and whole command, before and after interleaved, REPEATS
#     times (CASES: name:spp:extra-flags), medians (medians.txt);
#  4. Nsight Compute's launch statistics for one launch of each build.
set -uo pipefail
root=$PWD; out=${OUT:-/tmp/out}; mkdir -p "$out"
s=$SECONDS
export LD_LIBRARY_PATH=$root/.deps/root/usr/lib/x86_64-linux-gnu
bin=/tmp/bin; mkdir -p $bin
for f in "$root"/.deps/ship/*.xz; do xz -dc "$f" > "$bin/$(basename "$f" .xz)"; chmod +x "$bin/$(basename "$f" .xz)"; done
[ -e /work/main ] || { mkdir -p /work && ln -s "$root" /work/main; }
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; nproc; for b in before after; do $bin/farmrt_$b --version | head -1; done; } > "$out/machine.txt"
cat "$out/machine.txt"

if [ "${TESTS:-1}" = 1 ]; then
  timeout -k 5 300 $bin/farmrt_cuda_tests_after > "$out/cuda_tests.log" 2>&1
  echo "cuda tests rc=$? at $((SECONDS - s)) s"; grep -E "^\[  (PASSED|FAILED)|FAILED|tests ran" "$out/cuda_tests.log" | tail -8
fi

F=$bin/farmrt_after
{
  for config in configs/*.yaml; do
    name=$(basename $config .yaml)
    for integrator in nee naive; do
      a=($config --width 120 --height 68 --spp 8 --quiet --integrator $integrator)
      $F "${a[@]}" --backend cpu -o /tmp/c_cpu.pfm || { echo "$name $integrator cpu FAILED"; continue; }
      for gi in auto megakernel; do
        FARMRT_CUDA_INTEGRATOR=$gi $F "${a[@]}" --backend cuda -o /tmp/c_gpu.pfm --stats /tmp/c.json &&
          cmp -s /tmp/c_cpu.pfm /tmp/c_gpu.pfm && r=same || r=DIFFER
        echo "$name $integrator $gi $r | $(python3 -c "import json; print(json.load(open('/tmp/c.json'))['backend'])" 2>/dev/null)"
      done
    done
  done
  a=(configs/spheres.yaml --width 320 --height 180 --spp 64 --quiet)
  for m in exact fast; do
    $bin/farmrt_before "${a[@]}" --backend cuda --gpu-math $m -o /tmp/b_$m.pfm
    $F "${a[@]}" --backend cuda --gpu-math $m -o /tmp/a_$m.pfm
    cmp -s /tmp/b_$m.pfm /tmp/a_$m.pfm && echo "spheres $m before/after same" || echo "spheres $m before/after DIFFER"
  done
} > "$out/correctness.txt" 2>&1
echo "correctness at $((SECONDS - s)) s: $(grep -c ' same' "$out/correctness.txt") same, $(grep -c DIFFER "$out/correctness.txt") differ"
grep -E "DIFFER|FAILED" "$out/correctness.txt" | head -20
grep "^spheres nee auto" "$out/correctness.txt"

field() { python3 -c "import json, sys; d = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$@" 2>/dev/null || echo nan; }
cases=${CASES:-"spheres:4096:exact spheres:4096:fast spheres:4096:exact,naive many_spheres:512:exact mesh:256:exact"}
for rep in $(seq ${REPEATS:-3}); do for c in $cases; do for v in before after; do
  IFS=: read -r name spp flags <<< "$c"
  extra=(--gpu-math ${flags%%,*}); [[ $flags == *naive* ]] && extra+=(--integrator naive)
  [ $name = spheres ] && extra+=(--width 1200 --height 675)
  t0=$(date +%s.%N)
  $bin/farmrt_$v configs/$name.yaml --spp $spp "${extra[@]}" --backend cuda --quiet -o /tmp/${v}_$name.pfm --stats /tmp/${v}_$name.json > /tmp/${v}_$name.log 2>&1
  rc=$?; t1=$(date +%s.%N)
  echo "$v $name:$flags $spp $rc $(field /tmp/${v}_$name.json "d['render_seconds']") $(awk "BEGIN {print $t1 - $t0}") $(field /tmp/${v}_$name.json "d['samples_per_second']") $(field /tmp/${v}_$name.json "d['rays']['per_second']")"
done; done; done > "$out/scenes.txt"
echo "scenes at $((SECONDS - s)) s"
python3 - "$out/scenes.txt" <<'PY' | tee "$out/medians.txt"
import collections, statistics, sys
r = collections.defaultdict(list)
for line in open(sys.argv[1]):
    p = line.split()
    if len(p) >= 8 and p[3] == "0": r[(p[1], p[0])].append([float(x) for x in p[4:8]])
for case in sorted({k[0] for k in r}):
    b, a = r.get((case, "before"), []), r.get((case, "after"), [])
    if not a or not b: continue
    m = lambda runs, i: statistics.median(x[i] for x in runs)
    print("%-24s render %.4f -> %.4f s (%.3fx)  wall %.3f -> %.3f s  G samples/s %.3f -> %.3f  G rays/s %.3f -> %.3f  n %d/%d" % (
        case, m(b, 0), m(a, 0), m(b, 0) / m(a, 0), m(b, 1), m(a, 1), m(b, 2) / 1e9, m(a, 2) / 1e9, m(b, 3) / 1e9, m(a, 3) / 1e9, len(b), len(a)))
PY

if [ "${NCU:-1}" = 1 ]; then for v in before after; do
  timeout -k 3 120 ncu --clock-control none --section LaunchStats --section Occupancy --section SpeedOfLight --section WarpStateStats \
    -k regex:path_kernel --launch-skip 8 --launch-count 1 $bin/farmrt_$v configs/spheres.yaml --width 1200 --height 675 --spp 4096 \
    --backend cuda --quiet -o /tmp/n.pfm > "$out/ncu_$v.txt" 2>&1
  echo "ncu $v rc=$? at $((SECONDS - s)) s"
  grep -E "path_kernel|Duration|Registers Per|Achieved Occupancy|Compute \(SM\) Throughput|Local Memory|Stall" "$out/ncu_$v.txt" | sed -E 's/\(farmrt::SceneView.*//' | head -12
done; fi
