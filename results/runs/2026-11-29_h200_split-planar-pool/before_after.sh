#!/usr/bin/env bash
# The split kernels' pool in planes (cuda/planar_array.h) against BEFORE
# (.deps/exp/BEFORE.tar.gz, a git archive of the pool as arrays of
# structures), built side by side in one call: first the after build's
# split-kernel images against the CPU's bytes (every config at 120x68, 8 spp,
# sorted and unsorted shading; a pool of 1,024 paths; adaptive sampling with
# its AOVs), then the split kernels' scenes interleaved, three times: render
# phase, whole command, medians; every after image against before's (cmp).
#   BEFORE=e25a18a before_after.sh
#   BEFORE=e25a18a VARIANTS=words:-DFARMRT_PLANAR_QUADS=0 before_after.sh   (4-byte planes beside)
set -uo pipefail
root=$PWD; out=${OUT:-/tmp/out}; mkdir -p $out; before=${BEFORE:?}
export PATH=/usr/local/cuda/bin:$PATH
export LD_LIBRARY_PATH=$root/.deps/root/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
deps=(-DCMAKE_PREFIX_PATH=$root/.deps/root/usr -DCMAKE_LIBRARY_PATH=$root/.deps/root/usr/lib/x86_64-linux-gnu)
s=$SECONDS
mkdir -p /tmp/src_before && tar -xzf .deps/exp/$before.tar.gz -C /tmp/src_before
( python3 scripts/generate/dense_ply.py /tmp/torus_1m.ply 1000000 > /tmp/ply.log 2>&1 ) &
# VARIANTS: more builds of this tree, NAME:CUDA_FLAGS each (e.g. words:-DFARMRT_PLANAR_QUADS=0).
variants="after ${VARIANTS:-}"; names="before"; for x in $variants; do names="$names ${x%%:*}"; done
for x in before $variants; do
  v=${x%%:*}; flags=; [[ $x == *:* ]] && flags=${x#*:}
  src=$root; [ $v = before ] && src=/tmp/src_before
  ( cmake -S $src -B /tmp/b_$v -G Ninja -DCMAKE_BUILD_TYPE=Release -DFARMRT_BUILD_TESTS=OFF -DFARMRT_WITH_OPENIMAGEIO=OFF \
      -DFARMRT_WITH_ASSIMP=OFF -DFARMRT_CUDA_RESOURCE_USAGE=ON "-DCMAKE_CUDA_FLAGS=$flags" "${deps[@]}" > /tmp/cfg_$v.log 2>&1 &&
      ninja -C /tmp/b_$v -j 6 farmrt > /tmp/build_$v.log 2>&1
    echo "$v build rc=$? at $((SECONDS-s)) s" ) &
done
wait
[ -x /tmp/b_after/farmrt ] || { tail -40 /tmp/build_after.log; exit 1; }
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; echo "before $before, after $(git -C $root log -1 --format=%h 2>/dev/null) + working tree"; } > $out/machine.txt
for v in $names; do
  grep -A2 'Function properties for .*wavefront_' /tmp/build_$v.log | grep -E 'Function|registers|spill' | paste - - - |
    sed -E 's/ptxas info *: *//g; s/Function properties for //' | sort -u > $out/registers_$v.txt
done
# Correctness: the split kernels' exact bytes against the CPU's.
for v in ${names#before }; do F=/tmp/b_$v/farmrt; {
  for config in configs/*.yaml; do
    name=$(basename $config .yaml)
    $F $config --width 120 --height 68 --spp 8 --quiet --backend cpu -o /tmp/c_cpu.pfm || { echo "$name cpu FAILED"; continue; }
    for shading in sorted all; do
      FARMRT_CUDA_SHADING=$shading FARMRT_CUDA_INTEGRATOR=split $F $config --width 120 --height 68 --spp 8 --quiet \
        --backend cuda -o /tmp/c_gpu.pfm && cmp -s /tmp/c_cpu.pfm /tmp/c_gpu.pfm && echo "$name split $shading same" || echo "$name split $shading DIFFER"
    done
  done
  $F configs/models.yaml --spp 16 --quiet --backend cpu -o /tmp/m_cpu.pfm
  FARMRT_CUDA_PATHS=1024 $F configs/models.yaml --spp 16 --quiet --backend cuda -o /tmp/m_gpu.pfm &&
    cmp -s /tmp/m_cpu.pfm /tmp/m_gpu.pfm && echo "models pool of 1024 same" || echo "models pool of 1024 DIFFER"
  args=(configs/interior.yaml --width 240 --height 135 --spp 160 --min-spp 8 --noise-threshold 0.02 --quiet --aov samples,variance)
  $F "${args[@]}" --backend cpu -o /tmp/a_cpu.pfm
  FARMRT_CUDA_INTEGRATOR=split $F "${args[@]}" --backend cuda -o /tmp/a_gpu.pfm
  for aov in "" .samples .variance; do cmp -s /tmp/a_cpu$aov.pfm /tmp/a_gpu$aov.pfm && echo "adaptive$aov same" || echo "adaptive$aov DIFFER"; done
} 2>&1 | sed "s/^/$v /"; done > $out/correctness.txt
echo "correctness at $((SECONDS-s)) s: $(grep -c same $out/correctness.txt) same, $(grep -c DIFFER $out/correctness.txt) differ"
scripts/generate/env_model.sh /tmp > /tmp/scene.log 2>&1
field() { python3 -c "import json, sys; d = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$@" 2>/dev/null || echo nan; }
cases="cornell:1024 cornell_fast:1024 models:1024 env:256 interior:1024 lights:256"
for rep in 1 2 3; do for c in $cases; do for v in $names; do
  IFS=: read -r name spp <<< "$c"
  scene=${name%%_*}; config=configs/$scene.yaml; extra=()
  [ $scene = env ] && config=/tmp/env_model.yaml
  [ $name = cornell_fast ] && extra=(--gpu-math fast)
  [ $name = interior ] && extra=(--noise-threshold 0.01 --min-spp 16 --width 480 --height 270)
  t0=$(date +%s.%N)
  /tmp/b_$v/farmrt $config --spp $spp "${extra[@]}" --backend cuda --quiet -o /tmp/${v}_$name.pfm --stats /tmp/${v}_$name.json > /tmp/${v}_$name.log 2>&1
  rc=$?; t1=$(date +%s.%N)
  echo "$v $name $spp $rc $(field /tmp/${v}_$name.json "d['render_seconds']") $(awk "BEGIN {print $t1 - $t0}") $(field /tmp/${v}_$name.json "d['backend']")"
done; done; done > $out/scenes.txt
for c in $cases; do name=${c%%:*}; for v in ${names#before }; do
  cmp -s /tmp/before_$name.pfm /tmp/${v}_$name.pfm && echo "$name $v same bytes" || echo "$name $v DIFFER"; done; done >> $out/scenes.txt
python3 - $out/scenes.txt <<'PY' | tee $out/medians.txt
import collections, statistics, sys
r = collections.defaultdict(list)
for line in open(sys.argv[1]):
    p = line.split()
    if len(p) >= 6 and p[3] == "0": r[(p[1], p[0])].append((float(p[4]), float(p[5])))
for scene in sorted({k[0] for k in r}):
    b = r.get((scene, 'before'), [])
    for v in sorted({k[1] for k in r} - {'before'}):
        a = r.get((scene, v), [])
        if not b or not a: continue
        rb, ra = statistics.median(x[0] for x in b), statistics.median(x[0] for x in a)
        wb, wa = statistics.median(x[1] for x in b), statistics.median(x[1] for x in a)
        print("%-14s %-6s render %.4f -> %.4f (%.3fx)  wall %.3f -> %.3f  n %d/%d" % (scene, v, rb, ra, rb / ra, wb, wa, len(b), len(a)))
PY
grep -E "DIFFER| [1-9][0-9]* [0-9.n]* [0-9.]* " $out/scenes.txt | grep -v " 0 [0-9]" | head
echo "done at $((SECONDS-s)) s"
