#!/bin/bash
# The wide traversal with one-sphere leaves tested in place (n/, 4cfcfec's
# code) against fd7da9a (a/, before any gathering): the book's scene with
# fast math, the million triangles and models.yaml (gathered leaves kept
# there); the GPU suite alone.
set -u
S=$PWD/.deps/ship
(cd $S && tar xJf libs.tar.xz && tar xJf w.tar.xz)
export LD_LIBRARY_PATH=$S/lib:/usr/lib/x86_64-linux-gnu:$S/fallback
mkdir -p /work/build-new && ln -sfn $PWD /work/main && ln -sf $S/n/farmrt /work/build-new/farmrt
A=$S/a/farmrt; N=$S/n/farmrt; T=$S/n/farmrt_cuda_tests
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; nproc; $N --version | head -1; } | tee $OUT/machine.txt
t=$SECONDS
timeout -k 5 150 $T > $OUT/cuda_tests.log 2>&1; echo "cuda tests rc=$? at $((SECONDS-t)) s"
grep -E "^\[  (PASSED|FAILED|SKIPPED)|FAILED" $OUT/cuda_tests.log | tail -6
scripts/generate/env_model.sh /tmp/scene > /dev/null 2>&1; E=/tmp/scene/env_model.yaml
for rep in 1 2 3; do
  for run in sp:fast env:exact models:exact; do
    IFS=: read c math <<< "$run"
    for x in A N; do
      bin=$A; [ $x = N ] && bin=$N
      w=X=1; [ $c = spw ] && w=FARMRT_CUDA_EXACT_WIDE=1
      case $c in sp|spw) args=(configs/spheres.yaml --width 1200 --height 675 --spp 4096);; env) args=($E --spp 256);; models) args=(configs/models.yaml --spp 1024);; esac
      env $w $bin "${args[@]}" --backend cuda --gpu-math $math --quiet -o /tmp/o_$x.pfm --stats /tmp/s.json
      same=-; [ $x = N ] && [ $math = exact ] && { cmp -s /tmp/o_A.pfm /tmp/o_N.pfm && same=same || same=DIFFER; }
      echo "$c $math $x $(python3 -c "import json; d=json.load(open('/tmp/s.json')); print(d['render_seconds'], d['wall_seconds'])") $same"
    done
  done
done | tee $OUT/ab.txt
python3 - $OUT/ab.txt <<'PY' | tee $OUT/medians.txt
import sys, statistics, collections
r = collections.defaultdict(list)
for line in open(sys.argv[1]):
    c, m, x, render, wall, same = line.split()
    r[(c, m, x)].append((float(render), float(wall)))
for (c, m, x), v in sorted(r.items()):
    if x != 'A': continue
    a = statistics.median(s for s, _ in v); n = statistics.median(s for s, _ in r[(c, m, 'N')])
    aw = statistics.median(w for _, w in v); nw = statistics.median(w for _, w in r[(c, m, 'N')])
    print(f"{c:7s} {m:5s} A {a:.4f} s N {n:.4f} s  N/A speed {a/n:.3f}x  whole command A {aw:.3f} N {nw:.3f}")
PY
echo "done at $((SECONDS-t)) s"
