#!/usr/bin/env bash
set -uo pipefail
root=$PWD; out=${OUT:-/tmp/out}
export PATH=/usr/local/cuda/bin:$PATH
export LD_LIBRARY_PATH=$root/.deps/root/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
deps=(-DCMAKE_PREFIX_PATH=$root/.deps/root/usr -DCMAKE_LIBRARY_PATH=$root/.deps/root/usr/lib/x86_64-linux-gnu)
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DFARMRT_WITH_OPENIMAGEIO=OFF -DFARMRT_WITH_ASSIMP=OFF \
    -DFARMRT_WARNINGS_AS_ERRORS=OFF "${deps[@]}" > $out/configure.log 2>&1
s=$SECONDS; ninja -C build-gpu -j $(nproc) farmrt > $out/build.log 2>&1; echo "build rc=$? $((SECONDS-s)) s"
run() { # env... -- args
  local t0=$(date +%s.%N)
  env "$@" FARMRT_CUDA_CHAIN=1 timeout -s INT -k 4 ${T:-6} build-gpu/farmrt configs/spheres.yaml --quiet --backend cuda --gpus 0 -o /tmp/d.pfm --stats /tmp/d.json ${ARGS} > /tmp/d.txt 2>&1
  local rc=$? t1=$(date +%s.%N)
  echo "[$* $ARGS] rc=$rc $(python3 -c "print('%.2f'%($t1-$t0))") s $(tail -c 200 /tmp/d.txt | tr '\n' ' ')"
  [ -f /tmp/d.json ] && python3 -c "
import json; d=json.load(open('/tmp/d.json')); print('  render', d.get('render_seconds'), [(x.get('items'),x.get('launches'),x.get('samples')) for x in d.get('devices',[])])"
  rm -f /tmp/d.json
}
ARGS="--width 120 --height 68 --spp 64" run X=1
ARGS="--width 1200 --height 675 --spp 64" run X=1
ARGS="--width 1200 --height 675 --spp 64" run FARMRT_CUDA_BANDS=1
ARGS="--width 1200 --height 675 --spp 1024" run X=1
ARGS="--width 1200 --height 675 --spp 1024" run FARMRT_CUDA_BANDS=1
ARGS="--width 1200 --height 675 --spp 1024" run FARMRT_CUDA_BANDS=3
