#!/usr/bin/env bash
# Sourced by each call's script: farmrt built as scripts/gpu_build_and_test.sh
# builds it (same build folder, so the GPU suite can follow), and run(), one
# timed render of the frame with its --stats, compared with the first image.
root=$PWD; out=${OUT:-/tmp/out}; mkdir -p "$out/runs"
build=${BUILD:-$root/build-gpu}
export PATH=/usr/local/cuda/bin:$PATH
export LD_LIBRARY_PATH=$root/.deps/root/usr/lib/x86_64-linux-gnu
s=$SECONDS
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DFARMRT_WITH_OPENIMAGEIO=OFF -DFARMRT_WITH_ASSIMP=OFF \
  -DFARMRT_WARNINGS_AS_ERRORS=OFF -DFARMRT_CUDA_RESOURCE_USAGE=ON -DCMAKE_PREFIX_PATH=$root/.deps/root/usr \
  -DCMAKE_LIBRARY_PATH=$root/.deps/root/usr/lib/x86_64-linux-gnu >"$out/configure.log" 2>&1 || { tail -20 "$out/configure.log"; exit 1; }
ninja -C "$build" farmrt >"$out/build.log" 2>&1 || { tail -40 "$out/build.log"; exit 1; }
echo "built at $((SECONDS - s)) s"
f=$build/farmrt
"$f" --version | tee "$out/version.txt"
frame=(configs/spheres.yaml --width 1200 --height 675 --spp 4096 --quiet --backend cuda)
run() {  # NAME ENV... -- ARGS...
  local name=$1; shift
  local env=()
  while [ "$1" != -- ]; do env+=("$1"); shift; done; shift
  local tag=${name}_$repeat start end
  start=$(date +%s.%N)
  env FARMRT_EXIT_PROBE=1 "${env[@]}" "$f" "${frame[@]}" "$@" -o /tmp/i.pfm --stats "$out/runs/$tag.json" 2>"$out/runs/$tag.err"
  end=$(date +%s.%N)
  echo "$start $end" >"$out/runs/$tag.clock"
  if [ -f /tmp/iref.pfm ]; then cmp -s /tmp/iref.pfm /tmp/i.pfm || echo "$tag differs"; else cp /tmp/i.pfm /tmp/iref.pfm; fi
}
