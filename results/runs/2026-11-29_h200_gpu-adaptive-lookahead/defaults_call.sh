#!/usr/bin/env bash
# One device call at the committed defaults: 8c6c8ff (before) and this tree
# built side by side; the sums' cost on uniform frames (spheres, cornell,
# models, interleaved, medians of 3); adaptive sampling at the defaults
# (scripts/bench/cuda_adaptive.sh), and scripts/bench/adaptive.sh for
# results/adaptive_sampling.md.
set -uo pipefail
root=$PWD; out=${OUT:-/tmp/out}; mkdir -p $out
export PATH=/usr/local/cuda/bin:$PATH
export LD_LIBRARY_PATH=$root/.deps/root/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
deps=(-DCMAKE_PREFIX_PATH=$root/.deps/root/usr -DCMAKE_LIBRARY_PATH=$root/.deps/root/usr/lib/x86_64-linux-gnu)
s=$SECONDS
mkdir -p /tmp/old && tar -xzf .deps/exp/8c6c8ff.tar.gz -C /tmp/old
for t in old now; do
  src=/tmp/old; [ $t = now ] && src=$root
  ( cmake -S $src -B /tmp/b_$t -G Ninja -DCMAKE_BUILD_TYPE=Release -DFARMRT_BUILD_TESTS=OFF -DFARMRT_WITH_OPENIMAGEIO=OFF \
      -DFARMRT_WITH_ASSIMP=OFF "${deps[@]}" > /tmp/cfg_$t.log 2>&1 && ninja -C /tmp/b_$t -j 8 farmrt > /tmp/build_$t.log 2>&1
    echo "$t build rc=$? at $((SECONDS-s)) s" ) &
done
wait
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; } > $out/machine.txt
for rep in 1 2 3; do for c in spheres:4096 cornell:1024 models:1024; do for t in old now; do
  IFS=: read -r scene spp <<< "$c"
  t0=$(date +%s.%N)
  /tmp/b_$t/farmrt configs/$scene.yaml --spp $spp --backend cuda --quiet -o /tmp/${t}_$scene.pfm --stats /tmp/${t}_$scene.json > /tmp/${t}_$scene.log 2>&1
  rc=$?; t1=$(date +%s.%N)
  echo "$t $scene $spp $rc $(python3 -c "import json; print(json.load(open('/tmp/${t}_$scene.json'))['render_seconds'])" 2>/dev/null || echo nan) $(awk "BEGIN {print $t1 - $t0}")"
done; done; done > $out/uniform.txt
for sc in spheres cornell models; do cmp -s /tmp/old_$sc.pfm /tmp/now_$sc.pfm && echo "$sc same bytes" || echo "$sc DIFFER"; done >> $out/uniform.txt
cat $out/uniform.txt
echo "uniform done at $((SECONDS-s)) s"
INTEGRATORS="megakernel split" LOOKAHEADS="0 50" CHUNKS=4 scripts/bench/cuda_adaptive.sh /tmp/b_now/farmrt /tmp/ca 3 > $out/cuda_adaptive.md 2>&1
cp /tmp/ca/times.txt $out/cuda_adaptive_times.txt
echo "cuda_adaptive done at $((SECONDS-s)) s"
cat $out/cuda_adaptive.md
timeout 200 scripts/bench/adaptive.sh /tmp/b_now/farmrt /tmp/ad 16384 > $out/adaptive.md 2>&1
cp /tmp/ad/interior_samples.png $out/ 2>/dev/null
echo "adaptive done at $((SECONDS-s)) s"
cat $out/adaptive.md
