#!/usr/bin/env bash
# The committed tree on the 2 x H200 host, one call, farmrt and its GPU test
# binary built on the dev VM (CUDA 13, scripts/gpu_build_and_test.sh's
# configuration) and carried in .deps/prebuilt, the assimp test models in
# .deps/models:
#  1. the GPU tests (farmrt_cuda_tests) and the GPU stop test;
#  2. scripts/bench/node_gpus.sh: one process on 1 and 2 GPUs, and 2 GPUs + the CPU;
#  3. two GPUs with the dealer's tail round left out (FARMRT_FARM_TAIL=0)
#     and with its endgame every round (FARMRT_FARM_ENDGAME=every).
set -uo pipefail
root=$PWD; out=${OUT:-/tmp/out}; mkdir -p "$out"
s=$SECONDS
build=$root/.deps/prebuilt
export LD_LIBRARY_PATH=$root/.deps/root/usr/lib/x86_64-linux-gnu
nvidia-smi -L >"$out/gpus.txt"
"$build/farmrt" --version | tee "$out/version.txt"
# The test binary reads configs/ under the dev VM's source path, and the
# model tests the assimp test models.
[ -e /work/main ] || { mkdir -p /work && ln -s "$root" /work/main; }
[ -e /usr/share/assimp/models ] || { mkdir -p /usr/share/assimp && ln -s "$root/.deps/models" /usr/share/assimp/models; }
timeout -k 5 300 "$build/farmrt_cuda_tests" >"$out/cuda_tests.log" 2>&1
echo "cuda tests rc=$? at $((SECONDS - s)) s"; grep -E "^\[  (PASSED|FAILED)|FAILED|tests ran" "$out/cuda_tests.log" | tail -8
timeout -k 5 120 bash tests/farm/stop_within_seconds.sh "$build/farmrt" "$root" "" cuda >"$out/stop_gpu.log" 2>&1
echo "stop test rc=$? at $((SECONDS - s)) s"; tail -2 "$out/stop_gpu.log"
CONFIGS="g1 g2 g2cpu" REPEATS=3 timeout -k 5 240 bash scripts/bench/node_gpus.sh "$build" /tmp/ng >"$out/node_gpus_log.txt" 2>&1
echo "node_gpus rc=$? at $((SECONDS - s)) s"
cp /tmp/ng/node_gpus.md "$out/" 2>/dev/null; cat "$out/node_gpus.md"
for rep in 1 2 3; do for setting in default FARMRT_FARM_TAIL=0 FARMRT_FARM_ENDGAME=every; do
  e=(); [ $setting = default ] || e=($setting)
  env "${e[@]}" "$build/farmrt" configs/spheres.yaml --width 1200 --height 675 --spp 4096 --backend cuda --gpus 0,1 --quiet \
    -o /tmp/d.pfm --stats /tmp/d.json >/dev/null 2>&1
  echo "$setting $? $(python3 -c "import json; d = json.load(open('/tmp/d.json')); print(d['render_seconds'], sum(x['items'] for x in d['devices']), ' '.join('%.4f' % x['last_end_seconds'] for x in d['devices']))")"
done; done | tee "$out/dealer_settings.txt"
echo "done at $((SECONDS - s)) s"
