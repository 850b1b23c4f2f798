#!/usr/bin/env bash
# The book's scene on the GPU at commits from 2dcfb23 to now: each commit's
# farmrt built (all at once), then each rendered spheres.yaml 1200x675, 4096 spp,
# exact and fast math, once on each GPU (the two GPUs in parallel).
set -uo pipefail
root=$PWD; out=${OUT:-/tmp/out}; mkdir -p $out
export PATH=/usr/local/cuda/bin:$PATH
export LD_LIBRARY_PATH=$root/.deps/root/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
deps=(-DCMAKE_PREFIX_PATH=$root/.deps/root/usr -DCMAKE_LIBRARY_PATH=$root/.deps/root/usr/lib/x86_64-linux-gnu)
commits=(${COMMITS:-2dcfb23 ff6a620 3d35e5d d7cde59 927026b e1ae9bb a012182 5cdded2 cd4f8b2 ac4af1e 9db6f50})
spp=${SPP:-4096}
s=$SECONDS
for c in "${commits[@]}"; do
  ( mkdir -p /tmp/bis/$c && tar -xzf .deps/bisect/$c.tar.gz -C /tmp/bis/$c &&
    cmake -S /tmp/bis/$c -B /tmp/bis/b_$c -G Ninja -DCMAKE_BUILD_TYPE=Release -DFARMRT_BUILD_TESTS=OFF \
      -DFARMRT_WITH_OPENIMAGEIO=OFF -DFARMRT_WITH_ASSIMP=OFF "${deps[@]}" > /tmp/bis/configure_$c.log 2>&1 &&
    ninja -C /tmp/bis/b_$c -j ${JOBS:-3} farmrt > /tmp/bis/build_$c.log 2>&1; echo "$c build rc=$? at $((SECONDS-s)) s" ) &
done
wait
echo "builds done at $((SECONDS-s)) s"
# Another build still running (WAIT_FOR: its marker file): the runs wait for it.
while [ -n "${WAIT_FOR:-}" ] && [ ! -e "$WAIT_FOR" ]; do sleep 1; done
for c in "${commits[@]}"; do [ -x /tmp/bis/b_$c/farmrt ] || { echo "== $c failed"; tail -5 /tmp/bis/configure_$c.log /tmp/bis/build_$c.log; }; done > $out/build_failures.txt
run_on() {  # GPU
  local g=$1
  for math in exact fast; do for c in "${commits[@]}"; do
    [ -x /tmp/bis/b_$c/farmrt ] || continue
    j=/tmp/bis/s_${c}_${math}_$g.json; t0=$(date +%s.%N)
    CUDA_VISIBLE_DEVICES=$g timeout -k 3 60 /tmp/bis/b_$c/farmrt /tmp/bis/$c/configs/spheres.yaml --width 1200 --height 675 \
      --spp $spp --backend cuda --gpu-math $math --quiet -o /tmp/bis/i_${c}_${math}_$g.pfm --stats $j > /tmp/bis/run_${c}_${math}_$g.log 2>&1
    rc=$?; t1=$(date +%s.%N)
    python3 -c "
import json
try: r=json.load(open('$j'))['render_seconds']
except Exception: r=float('nan')
print('$c $math $g $rc %.4f %.3f'%(r,$t1-$t0))"
  done; done > $out/runs_gpu$g.txt
}
run_on 0 & run_on 1 & wait
echo "runs done at $((SECONDS-s)) s"
python3 - $spp $out "${commits[@]}" <<'PY' | tee $out/bisect.md
import sys, statistics, collections
spp=int(sys.argv[1]); out=sys.argv[2]; commits=sys.argv[3:]
d=collections.defaultdict(list); w=collections.defaultdict(list)
for g in (0,1):
    for line in open(f'{out}/runs_gpu{g}.txt'):
        c,math,gpu,rc,r,wall=line.split()
        if rc=='0': d[(c,math)].append(float(r)); w[(c,math)].append(float(wall))
px=1200*675*spp
print('| commit | exact G samples/s | fast G samples/s | fast / exact | exact render s (GPU 0, 1) | fast render s | whole s exact, fast |')
print('|---|---:|---:|---:|---|---|---|')
for c in commits:
    e=d.get((c,'exact'),[]); f=d.get((c,'fast'),[])
    ge=px/statistics.median(e)/1e9 if e else float('nan'); gf=px/statistics.median(f)/1e9 if f else float('nan')
    print(f"| {c} | {ge:.3f} | {gf:.3f} | {gf/ge:.2f} | {', '.join('%.3f'%x for x in e)} | {', '.join('%.3f'%x for x in f)} | {statistics.median(w[(c,'exact')]) if w[(c,'exact')] else 0:.2f}, {statistics.median(w[(c,'fast')]) if w[(c,'fast')] else 0:.2f} |")
PY
for c in "${commits[@]}"; do for m in exact fast; do cmp -s /tmp/bis/i_${c}_${m}_0.pfm /tmp/bis/i_${c}_${m}_1.pfm || echo "$c $m: GPU 0 and 1 images differ"; done; done >> $out/bisect.md
