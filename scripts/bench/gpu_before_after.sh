#!/usr/bin/env bash
# The book's scenes (spheres.yaml, cornell.yaml) with both integrators,
# rendered by a build of an earlier commit and by this working tree,
# interleaved: G samples/s of the render phase, medians of RUNS, and the
# ratio. On a GPU machine (--backend cuda), or the CPU (BACKEND=cpu).
# Builds both (farmrt only) under /tmp; prints a markdown table.
#
#   scripts/bench/gpu_before_after.sh BASE_COMMIT_TARBALL OUT_DIR [RUNS]
#   (BASE_COMMIT_TARBALL: `git archive --format=tar COMMIT > base.tar`, made
#   where the repository is; extra configure arguments in FARMRT_CMAKE_EXTRA)
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
base_tar=${1:?usage: gpu_before_after.sh BASE_TAR OUT_DIR [RUNS]}
out=${2:?usage: gpu_before_after.sh BASE_TAR OUT_DIR [RUNS]}
runs=${3:-5}
backend=${BACKEND:-cuda}
mkdir -p "$out"
export PATH=/usr/local/cuda/bin:$PATH
cfg=(-G Ninja -DCMAKE_BUILD_TYPE=Release -DFARMRT_BUILD_TESTS=OFF ${FARMRT_CMAKE_EXTRA:-})
rm -rf /tmp/before_src && mkdir -p /tmp/before_src && tar -xf "$base_tar" -C /tmp/before_src
(cmake -S /tmp/before_src -B /tmp/build_before "${cfg[@]}" >/dev/null && ninja -C /tmp/build_before farmrt >/tmp/build_before.log 2>&1) &
(cmake -S "$root" -B /tmp/build_after "${cfg[@]}" >/dev/null && ninja -C /tmp/build_after farmrt >/tmp/build_after.log 2>&1) &
wait
[ -x /tmp/build_before/farmrt ] && [ -x /tmp/build_after/farmrt ] || { tail -20 /tmp/build_before.log /tmp/build_after.log; exit 1; }
rate() { python3 -c "import json; print(json.load(open('$1'))['samples_per_second'])"; }
for scene in spheres cornell; do for integrator in naive nee; do for r in $(seq "$runs"); do for build in before after; do
  /tmp/build_$build/farmrt "$root/configs/$scene.yaml" --backend "$backend" --integrator $integrator --spp 256 \
      --width 1200 --height 675 -q -o "$out/image.pfm" --stats "$out/stats.json" &&
    echo "$scene $integrator $build $(rate "$out/stats.json")"
done; done; done; done > "$out/runs.txt"
python3 - "$out/runs.txt" <<'PY'
import collections, statistics, sys
d = collections.defaultdict(list)
for line in open(sys.argv[1]):
    scene, integrator, build, rate = line.split()
    d[(scene, integrator, build)].append(float(rate))
print("| scene | integrator | before (G samples/s) | after | after / before |")
print("|---|---|---:|---:|---:|")
for scene in ("spheres", "cornell"):
    for integrator in ("naive", "nee"):
        b = statistics.median(d[(scene, integrator, "before")])
        a = statistics.median(d[(scene, integrator, "after")])
        print(f"| {scene}.yaml | {integrator} | {b / 1e9:.3f} | {a / 1e9:.3f} | {a / b:.3f} |")
PY
