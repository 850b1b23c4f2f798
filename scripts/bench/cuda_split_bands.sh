#!/usr/bin/env bash
# The GPU's tuning switches side by side, and beside a build of another
# commit. First made for how long a band the farm deals a GPU whose frames
# run the split kernels: FARMRT_CUDA_SPLIT_BAND_POOLS=K (the shortest band,
# in pools of paths; 0: the GPU's resident threads), FARMRT_FARM_BAND_DIVISOR=1
# (one band a round: an upper bound on what fewer drains of the pool gain),
# FARMRT_CUDA_PATHS and FARMRT_CUDA_BANDS. One GPU:
#   PHASE=check  images at 320x180, 64 spp (several pools) the CPU's bytes
#                for each of CHECKS (variants, default: K = 0, 1, 4, 16 and
#                one band) on each of CHECK_CONFIGS (config names, or env:
#                the million triangles; default: cornell models);
#   PHASE=bench  CASES (scene:spp:variant ...) REPEATS times, interleaved;
#                scene: a config's name, or env (scripts/generate/env_model.sh's
#                million triangles); interior runs adaptive (0.01, 480x270);
#                spheres runs at 1200x675; variant: pK, d1, nP (paths), bN
#                (bands in flight), sN (FARMRT_CUDA_SPLIT_STREAMS=N), qN
#                (FARMRT_CUDA_QUEUE_FETCH=N), w1 (FARMRT_CUDA_EXACT_WIDE=1), c0
#                (FARMRT_CUDA_TRIANGLE_CORNERS=0), lN (FARMRT_CUDA_LEAF_SIZE=N),
#                e1 (FARMRT_CUDA_EXACT_LEAVES=1), kN (FARMRT_CUDA_BLOCK=N),
#                gN (FARMRT_CUDA_GRID_DIVISOR=N),
#                joined with + (s4+n8388608), now (defaults), base (BASE's
#                farmrt on this tree's configs)
#                or before (BEFORE's farmrt on BEFORE_CONFIGS's configs);
#                medians of the render phase and whole command.
#   FARMRT=build/farmrt BEFORE=old/farmrt BEFORE_CONFIGS=old/configs OUT=dir \
#     CASES="env:256:p0 env:256:p4 env:256:before" PHASE=bench scripts/bench/cuda_split_bands.sh
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
out=${OUT:-/tmp/split_bands}; mkdir -p "$out"
s=$SECONDS
F=${FARMRT:-$root/build/farmrt}
scene_dir=$out/scene
# The environment of a variant of this build (see above) in env=().
# Variants join with +: s2+n4194304.
variant_env() {
  env=()
  local part
  for part in ${1//+/ }; do
    case $part in
      now) ;;
      p*) env+=(FARMRT_CUDA_SPLIT_BAND_POOLS=${part#p}) ;;
      d1) env+=(FARMRT_FARM_BAND_DIVISOR=1) ;;
      n*) env+=(FARMRT_CUDA_PATHS=${part#n}) ;;
      b*) env+=(FARMRT_CUDA_BANDS=${part#b}) ;;
      s*) env+=(FARMRT_CUDA_SPLIT_STREAMS=${part#s}) ;;
      q*) env+=(FARMRT_CUDA_QUEUE_FETCH=${part#q}) ;;
      w1) env+=(FARMRT_CUDA_EXACT_WIDE=1) ;;
      c0) env+=(FARMRT_CUDA_TRIANGLE_CORNERS=0) ;;
      l*) env+=(FARMRT_CUDA_LEAF_SIZE=${part#l}) ;;
      e1) env+=(FARMRT_CUDA_EXACT_LEAVES=1) ;;
      k*) env+=(FARMRT_CUDA_BLOCK=${part#k}) ;;
      g*) env+=(FARMRT_CUDA_GRID_DIVISOR=${part#g}) ;;
      *) echo "unknown variant $part" >&2; exit 2 ;;
    esac
  done
}
case ${PHASE:?PHASE=check or bench} in
check)
  { nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; nproc
    $F --version | head -1; } > "$out/machine.txt"
  cat "$out/machine.txt"
  [[ " ${CHECK_CONFIGS:-} " == *" env "* ]] && scripts/generate/env_model.sh "$scene_dir" > /dev/null 2>&1
  {
    for name in ${CHECK_CONFIGS:-cornell models}; do
      config=configs/$name.yaml
      [ $name = env ] && config=$scene_dir/env_model.yaml
      a=("$config" --width 320 --height 180 --spp 64 --quiet)
      $F "${a[@]}" --backend cpu -o "$out/cpu.pfm" || { echo "$name cpu FAILED"; continue; }
      for run in ${CHECKS:-p0 p1 p4 p16 d1}; do
        variant_env $run
        env "${env[@]}" $F "${a[@]}" --backend cuda -o "$out/gpu.pfm" --stats "$out/gpu.json" 2> /dev/null ||
          { echo "$name $run none"; continue; }
        bands=$(python3 -c "import json, sys; print(json.load(open(sys.argv[1]))['bands'])" "$out/gpu.json" 2> /dev/null)
        cmp -s "$out/cpu.pfm" "$out/gpu.pfm" && echo "$name $run same bands=$bands" ||
          echo "$name $run DIFFER bands=$bands"
      done
    done
  } > "$out/correctness.txt" 2>&1
  cat "$out/correctness.txt"
  ;;
bench)
  scripts/generate/env_model.sh "$scene_dir" > /dev/null 2>&1
  field() { python3 -c "import json, sys; d = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$@" 2>/dev/null || echo nan; }
  for rep in $(seq ${REPEATS:-3}); do for c in ${CASES:?}; do
    IFS=: read -r name spp variant <<< "$c"
    config=configs/$name.yaml; extra=(); env=(); bin=$F
    [ $name = spheres ] && extra+=(--width 1200 --height 675)
    [ $name = env ] && config=$scene_dir/env_model.yaml
    [ $name = interior ] && extra+=(--noise-threshold 0.01 --min-spp 16 --width 480 --height 270)
    case $variant in
      before) bin=${BEFORE:?BEFORE=farmrt of another commit}; [ $name != env ] && config=${BEFORE_CONFIGS:?}/$name.yaml ;;
      base) bin=${BASE:?BASE=farmrt of another commit} ;;
      *) variant_env $variant ;;
    esac
    t0=$(date +%s.%N)
    env "${env[@]}" $bin "$config" --spp $spp "${extra[@]}" --backend cuda --quiet -o "$out/b.pfm" \
      --stats "$out/b.json" > "$out/b.log" 2>&1
    rc=$?; t1=$(date +%s.%N)
    echo "$variant $name $spp $rc $(field "$out/b.json" "d['render_seconds']") $(awk "BEGIN {print $t1 - $t0}") $(field "$out/b.json" "d['samples_per_second']") $(field "$out/b.json" "d.get('rays', {}).get('per_second', float('nan'))") $(field "$out/b.json" "d.get('bands', 'nan')")"
  done; done > "$out/scenes.txt"
  echo "bench at $((SECONDS - s)) s"
  python3 - "$out/scenes.txt" <<'PY' | tee "$out/medians.txt"
import collections, statistics, sys
runs = collections.defaultdict(list)
for line in open(sys.argv[1]):
    p = line.split()
    if len(p) >= 9 and p[3] == "0":
        runs[(p[1], p[0])].append([float(x) for x in p[4:9]])
print("%-10s %-8s %9s %8s %12s %9s %6s %2s" % ("scene", "variant", "render s", "wall s", "G samples/s", "G rays/s", "bands", "n"))
for (scene, variant), r in sorted(runs.items()):
    m = lambda i: statistics.median(x[i] for x in r)
    print("%-10s %-8s %9.4f %8.3f %12.4f %9.3f %6.0f %2d" % (scene, variant, m(0), m(1), m(2) / 1e9, m(3) / 1e9, m(4), len(r)))
PY
  ;;
esac
echo "phase $PHASE done at $((SECONDS - s)) s"
