#!/usr/bin/env bash
# The split kernels' intersect and shadow queues shared by fetching
# (FARMRT_CUDA_QUEUE_FETCH) against fixed grid-stride shares, and the side-by-side: the book's final
# scene with this tree, 2dcfb23 and a peer binary (PEER: a program that takes
# the samples per pixel as its argument, renders the scene at 1200x675 and
# prints "took S seconds." on stderr); models.yaml, cornell.yaml and the
# million triangles with this tree and cd4f8b2. One GPU, in two calls:
#   PHASE=build   configures and builds the trees carried in .deps/trees
#                 (git archive tarballs) into build-device, all at once;
#   PHASE=check   this tree's GPU tests, and each config's GPU image against
#                 its CPU's bytes (both estimators, the automatic integrator
#                 and the split kernels with each queue sharing);
#   PHASE=bench   render phase and whole command, interleaved, REPEATS times;
#                 medians (medians.txt).
# Every build has scripts/gpu_build_and_test.sh's configuration (CUDA 13, no
# OpenImageIO or assimp; the header-only packages in .deps/root).
set -uo pipefail
root=$PWD; out=${OUT:-/tmp/out}; mkdir -p "$out"
s=$SECONDS
export PATH=/usr/local/cuda/bin:$PATH
export LD_LIBRARY_PATH=$root/.deps/root/usr/lib/x86_64-linux-gnu
builds=$root/build-device; mkdir -p "$builds"  # not under .deps: a call that carries .deps replaces it
trees=${TREES:-"2dcfb23 cd4f8b2"}
[ -e /usr/share/assimp/models ] || [ ! -d "$root/.deps/ship/models" ] ||
  { mkdir -p /usr/share/assimp && ln -s "$root/.deps/ship/models" /usr/share/assimp/models; }

case ${PHASE:?PHASE=build, check or bench} in
build)
  deps=(-DCMAKE_PREFIX_PATH=$root/.deps/root/usr -DCMAKE_LIBRARY_PATH=$root/.deps/root/usr/lib/x86_64-linux-gnu)
  for c in $trees; do
    ( mkdir -p "$builds/src_$c" && tar -xzf "$root/.deps/trees/$c.tar.gz" -C "$builds/src_$c" &&
      cmake -S "$builds/src_$c" -B "$builds/b_$c" -G Ninja -DCMAKE_BUILD_TYPE=Release -DFARMRT_BUILD_TESTS=OFF \
        -DFARMRT_WITH_OPENIMAGEIO=OFF -DFARMRT_WITH_ASSIMP=OFF "${deps[@]}" > "$out/configure_$c.log" 2>&1 &&
      ninja -C "$builds/b_$c" -j 8 farmrt > "$out/build_$c.log" 2>&1
      echo "$c build rc=$? at $((SECONDS - s)) s" ) &
  done
  cmake -S "$root" -B "$builds/now" -G Ninja -DCMAKE_BUILD_TYPE=Release -DFARMRT_WITH_OPENIMAGEIO=OFF \
    -DFARMRT_WITH_ASSIMP=OFF -DFARMRT_CUDA_RESOURCE_USAGE=ON "${deps[@]}" > "$out/configure_now.log" 2>&1 &&
    ninja -C "$builds/now" -j 8 farmrt farmrt_cuda_tests > "$out/build_now.log" 2>&1
  echo "now build rc=$? at $((SECONDS - s)) s"
  wait
  for c in $trees now; do [ -x "$builds/b_$c/farmrt" ] || [ -x "$builds/$c/farmrt" ] || tail -20 "$out/configure_$c.log" "$out/build_$c.log"; done
  ;;
check)
  { nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; nproc
    "$builds/now/farmrt" --version | head -1; } > "$out/machine.txt"
  cat "$out/machine.txt"
  timeout -k 5 ${TEST_SECONDS:-300} "$builds/now/tests/farmrt_cuda_tests" > "$out/cuda_tests.log" 2>&1
  echo "cuda tests rc=$? at $((SECONDS - s)) s"
  grep -E "^\[  (PASSED|FAILED)|FAILED|tests ran" "$out/cuda_tests.log" | tail -8
  # The fetching warps' counters and shuffles: no race, no warp function
  # out of step, no bad access.
  for tool in racecheck synccheck memcheck; do
    FARMRT_CUDA_INTEGRATOR=split FARMRT_CUDA_PATHS=4096 timeout -k 3 120 compute-sanitizer --tool $tool \
      --error-exitcode 99 "$builds/now/farmrt" configs/models.yaml --width 48 --height 48 --spp 4 --backend cuda \
      --quiet -o /tmp/s.pfm > "$out/sanitizer_$tool.txt" 2>&1
    echo "compute-sanitizer $tool rc=$? at $((SECONDS - s)) s: $(tail -1 "$out/sanitizer_$tool.txt")"
  done
  scripts/generate/env_model.sh "$builds/scene" > /dev/null 2>&1 || echo "scene generation failed"
  F=$builds/now/farmrt
  {
    for config in configs/*.yaml "$builds/scene/env_model.yaml"; do
      name=$(basename "$config" .yaml)
      for integrator in nee naive; do
        a=("$config" --width 120 --height 68 --spp 8 --quiet --integrator $integrator)
        $F "${a[@]}" --backend cpu -o /tmp/c_cpu.pfm || { echo "$name $integrator cpu FAILED"; continue; }
        for run in auto:4 split:0 split:1; do
          FARMRT_CUDA_INTEGRATOR=${run%:*} FARMRT_CUDA_QUEUE_FETCH=${run#*:} $F "${a[@]}" --backend cuda \
            -o /tmp/c_gpu.pfm 2> /dev/null || { echo "$name $integrator $run none"; continue; }
          cmp -s /tmp/c_cpu.pfm /tmp/c_gpu.pfm && echo "$name $integrator $run same" || echo "$name $integrator $run DIFFER"
        done
      done
    done
  } > "$out/correctness.txt" 2>&1
  echo "correctness at $((SECONDS - s)) s: $(grep -c ' same' "$out/correctness.txt") same, $(grep -c DIFFER "$out/correctness.txt") differ"
  grep -E "DIFFER|FAILED" "$out/correctness.txt" | head
  ;;
bench)
  scripts/generate/env_model.sh "$builds/scene" > /dev/null 2>&1
  field() { python3 -c "import json, sys; d = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$@" 2>/dev/null || echo nan; }
  # CASES: scene:spp:math:variant ...; variant: now (this tree, defaults),
  # split (the split kernels forced), qF (FARMRT_CUDA_QUEUE_FETCH=F), a
  # tree's commit, or peer.
  cases=${CASES:?}
  for rep in $(seq ${REPEATS:-3}); do for c in $cases; do
    IFS=: read -r name spp math variant <<< "$c"
    config=configs/$name.yaml; extra=(--gpu-math $math); env=()
    [ $name = spheres ] && extra+=(--width 1200 --height 675)
    [ $name = env ] && config=$builds/scene/env_model.yaml
    [ $name = interior ] && extra+=(--noise-threshold 0.01 --min-spp 16 --width 480 --height 270)
    case $variant in
      now) bin=$builds/now/farmrt ;;
      split) bin=$builds/now/farmrt; env=(FARMRT_CUDA_INTEGRATOR=split) ;;
      q*) bin=$builds/now/farmrt; env=(FARMRT_CUDA_QUEUE_FETCH=${variant#q}) ;;
      peer) bin=$PEER ;;
      *) bin=$builds/b_$variant/farmrt; [ $name != env ] && config=$builds/src_$variant/configs/$name.yaml ;;
    esac
    t0=$(date +%s.%N)
    if [ $variant = peer ]; then
      # The peer traces its scene without a BVH: PEER_SPP (default 64) samples, not 4096.
      peer_spp=${PEER_SPP:-64}
      $bin $peer_spp > /dev/null 2> /tmp/peer.log; rc=$?; t1=$(date +%s.%N)
      render=$(sed -n 's/^took \([0-9.e+-]*\) seconds\./\1/p' /tmp/peer.log)
      echo "$variant $name:$math $peer_spp $rc $render $(awk "BEGIN {print $t1 - $t0}") $(awk "BEGIN {print 1200 * 675 * $peer_spp / $render}") nan"
      continue
    fi
    env "${env[@]}" $bin "$config" --spp $spp "${extra[@]}" --backend cuda --quiet -o /tmp/b.pfm --stats /tmp/b.json > /tmp/b.log 2>&1
    rc=$?; t1=$(date +%s.%N)
    echo "$variant $name:$math $spp $rc $(field /tmp/b.json "d['render_seconds']") $(awk "BEGIN {print $t1 - $t0}") $(field /tmp/b.json "d['samples_per_second']") $(field /tmp/b.json "d.get('rays', {}).get('per_second', float('nan'))") $(field /tmp/b.json "d['backend']" | tr ' ' _)"
  done; done > "$out/scenes.txt"
  echo "bench at $((SECONDS - s)) s"
  python3 - "$out/scenes.txt" <<'PY' | tee "$out/medians.txt"
import collections, statistics, sys
runs = collections.defaultdict(list)
for line in open(sys.argv[1]):
    p = line.split()
    if len(p) >= 8 and p[3] == "0":
        runs[(p[1], p[0])].append([float(x) for x in p[4:8]])
print("%-16s %-8s %9s %8s %12s %9s %2s" % ("case", "variant", "render s", "wall s", "G samples/s", "G rays/s", "n"))
for case, variant in sorted(runs):
    r = runs[(case, variant)]
    m = lambda i: statistics.median(x[i] for x in r)
    print("%-16s %-8s %9.4f %8.3f %12.4f %9.3f %2d" % (case, variant, m(0), m(1), m(2) / 1e9, m(3) / 1e9, len(r)))
PY
  ;;
esac
echo "phase $PHASE done at $((SECONDS - s)) s"
