#!/usr/bin/env bash
# cd4f8b2 (before the split kernels) and this tree built side by side; the
# 1M-triangle environment-map scene, then Cornell and models at 1024 spp.
set -uo pipefail
root=$PWD; out=${OUT:-/tmp/out}; mkdir -p $out
export PATH=/usr/local/cuda/bin:$PATH
export LD_LIBRARY_PATH=$root/.deps/root/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
deps=(-DCMAKE_PREFIX_PATH=$root/.deps/root/usr -DCMAKE_LIBRARY_PATH=$root/.deps/root/usr/lib/x86_64-linux-gnu)
s=$SECONDS
mkdir -p /tmp/old && tar -xzf .deps/exp/cd4f8b2.tar.gz -C /tmp/old
for t in old now; do
  src=/tmp/old; [ $t = now ] && src=$root
  ( cmake -S $src -B /tmp/b_$t -G Ninja -DCMAKE_BUILD_TYPE=Release -DFARMRT_BUILD_TESTS=OFF -DFARMRT_WITH_OPENIMAGEIO=OFF \
      -DFARMRT_WITH_ASSIMP=OFF "${deps[@]}" > /tmp/cfg_$t.log 2>&1 && ninja -C /tmp/b_$t -j 8 farmrt > /tmp/build_$t.log 2>&1
    echo "$t build rc=$? at $((SECONDS-s)) s" ) &
done
wait
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $out/machine.txt; nproc >> $out/machine.txt
( git -C $root log -1 --format=%h 2>/dev/null || echo tree ) >> $out/machine.txt
scripts/bench/env_model.sh /tmp/em 3 256 today=/tmp/b_old/farmrt now=/tmp/b_now/farmrt:auto now=/tmp/b_now/farmrt:megakernel \
  now=/tmp/b_now/farmrt:split > $out/env_model.md 2>&1
cp /tmp/em/times.txt $out/env_model_times.txt
echo "env done at $((SECONDS-s)) s"
# The Cornell box and the models scene, the two builds interleaved.
for rep in 1 2 3; do for c in cornell:1024 models:1024; do for t in old now; do
  IFS=: read -r scene spp <<< "$c"
  src=/tmp/old; [ $t = now ] && src=$root
  t0=$(date +%s.%N)
  /tmp/b_$t/farmrt $src/configs/$scene.yaml --spp $spp --backend cuda --quiet -o /tmp/${t}_$scene.pfm --stats /tmp/${t}_$scene.json > /tmp/${t}_$scene.log 2>&1
  rc=$?; t1=$(date +%s.%N)
  echo "$t $scene $spp $rc $(python3 -c "import json; print(json.load(open('/tmp/${t}_$scene.json'))['render_seconds'])" 2>/dev/null || echo nan) $(awk "BEGIN {print $t1 - $t0}")"
done; done; done > $out/scenes.txt
for sc in cornell models; do cmp -s /tmp/old_$sc.pfm /tmp/now_$sc.pfm && echo "$sc same bytes" || echo "$sc differ (expected: the sampler changed)"; done >> $out/scenes.txt
echo "all done at $((SECONDS-s)) s"
cat $out/env_model.md $out/scenes.txt
