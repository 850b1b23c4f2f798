#!/usr/bin/env bash
# Register-pressure variants of the megakernel: one base build, then the two
# path-kernel objects recompiled per variant and farmrt relinked.
set -uo pipefail
root=$PWD; out=${OUT:-/tmp/out}; mkdir -p $out
export PATH=/usr/local/cuda/bin:$PATH
export LD_LIBRARY_PATH=$root/.deps/root/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
deps=(-DCMAKE_PREFIX_PATH=$root/.deps/root/usr -DCMAKE_LIBRARY_PATH=$root/.deps/root/usr/lib/x86_64-linux-gnu)
s=$SECONDS
mkdir -p /tmp/x && tar -xzf .deps/exp/x.tar.gz -C /tmp/x
cmake -S /tmp/x -B /tmp/bx -G Ninja -DCMAKE_BUILD_TYPE=Release -DFARMRT_BUILD_TESTS=OFF -DFARMRT_WITH_OPENIMAGEIO=OFF \
  -DFARMRT_WITH_ASSIMP=OFF -DFARMRT_CUDA_RESOURCE_USAGE=ON "${deps[@]}" > $out/configure.log 2>&1 || { tail -20 $out/configure.log; exit 1; }
ninja -C /tmp/bx farmrt > /tmp/base_build.log 2>&1 || { tail -30 /tmp/base_build.log; exit 1; }
echo "base built at $((SECONDS-s)) s"
declare -A flags=( [lazy]="-DFARMRT_LAZY=1" [lazy_park]="-DFARMRT_LAZY=1 -DFARMRT_PARK=1"
  [lazy_park72]="-DFARMRT_LAZY=1 -DFARMRT_PARK=1 -DFARMRT_CAP=72" [lazy72]="-DFARMRT_LAZY=1 -DFARMRT_CAP=72"
  [lazy_park80]="-DFARMRT_LAZY=1 -DFARMRT_PARK=1 -DFARMRT_CAP=80" [park]="-DFARMRT_PARK=1" )
variants=(lazy lazy_park lazy_park72 lazy72 lazy_park80 park)
cd /tmp/bx
for v in "${variants[@]}"; do
  mkdir -p /tmp/v_$v
  for k in exact fast; do
    cmd=$(ninja -t commands cuda/CMakeFiles/farmrt_cuda.dir/path_kernel_$k.cu.o | tail -1 |
      sed -E "s| -MD -MT [^ ]+ -MF [^ ]+||; s|nvcc |nvcc ${flags[$v]} |; s| -o [^ ]+path_kernel_$k.cu.o| -o /tmp/v_$v/path_kernel_$k.cu.o|")
    ( eval "$cmd" > /tmp/v_$v/ptxas_$k.log 2>&1 || echo "compile $v $k failed" ) &
  done
done
wait
link=$(ninja -t commands farmrt | tail -1)
for v in "${variants[@]}"; do
  cp cuda/libfarmrt_cuda.a /tmp/v_$v/libfarmrt_cuda.a && ar r /tmp/v_$v/libfarmrt_cuda.a /tmp/v_$v/path_kernel_exact.cu.o /tmp/v_$v/path_kernel_fast.cu.o &&
  eval "$(echo "$link" | sed -E "s| cuda/libfarmrt_cuda.a | /tmp/v_$v/libfarmrt_cuda.a |g; s| -o farmrt | -o /tmp/v_$v/farmrt |")" || echo "link $v failed"
done
mkdir -p /tmp/v_base && cp farmrt /tmp/v_base/farmrt && grep -A3 "Compiling entry.*path_kernel" /tmp/base_build.log > /tmp/v_base/ptxas_all.log
cd $root
echo "variants built at $((SECONDS-s)) s"
all=(base "${variants[@]}")
for v in "${all[@]}"; do echo "== $v"; cat /tmp/v_$v/ptxas_*.log 2>/dev/null | grep -A3 "Compiling entry.*capped" | grep -v "Function prop" | sed 's/ptxas info    ://' ; done > $out/ptxas.txt
runone() {  # variant config spp math rep
  local v=$1 cfg=$2 spp=$3 math=$4 rep=$5 extra=()
  [ "$cfg" = spheres ] && extra=(--width 1200 --height 675)
  j=/tmp/s_${v}_${cfg}_${math}_$rep.json; t0=$(date +%s.%N)
  timeout -k 3 60 /tmp/v_$v/farmrt configs/$cfg.yaml "${extra[@]}" --spp $spp --backend cuda --gpu-math $math --quiet \
    -o /tmp/i_${v}_${cfg}_${math}.pfm --stats $j > /tmp/run_${v}_${cfg}_${math}_$rep.log 2>&1
  rc=$?; t1=$(date +%s.%N)
  python3 -c "
import json
try: r=json.load(open('$j')); rs=r['render_seconds']; be=r.get('backend','?')
except Exception: rs=float('nan'); be='?'
print('$v $cfg $spp $math $rep $rc %.4f %.3f %s'%(rs,$t1-$t0,str(be).replace(' ','_')))"
}
for rep in 1 2 3; do for math in exact fast; do for v in "${all[@]}"; do runone $v spheres 4096 $math $rep; done; done; done > $out/runs.txt
for v in "${all[@]}"; do runone $v many_spheres 512 exact 1; runone $v mesh 256 exact 1; runone $v textured 256 exact 1; done >> $out/runs.txt
echo "runs done at $((SECONDS-s)) s"
for v in "${all[@]}"; do for f in /tmp/i_${v}_*.pfm; do b=${f/i_${v}_/i_base_}; cmp -s $f $b || echo "$v: $(basename $f) differs from base"; done; done > $out/cmp.txt
python3 - $out <<'PY' | tee $out/summary.md
import sys, statistics, collections
out=sys.argv[1]; d=collections.defaultdict(list); w=collections.defaultdict(list)
for line in open(f'{out}/runs.txt'):
    v,cfg,spp,math,rep,rc,r,wall,be=line.split()
    if rc=='0': d[(v,cfg,math)].append(float(r)); w[(v,cfg,math)].append(float(wall))
size={'spheres':1200*675}
for k in sorted(d):
    v,cfg,math=k
    print(k, 'render', ' '.join('%.3f'%x for x in d[k]), 'median %.3f'%statistics.median(d[k]), 'wall %.2f'%statistics.median(w[k]))
PY
cat $out/cmp.txt
