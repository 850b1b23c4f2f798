#!/usr/bin/env bash
# build | check | time: the sum kernel's batched loads against base, on this host's GPUs.
set -uo pipefail
root=$PWD; out=${OUT:-/tmp/out}
export PATH=/usr/local/cuda/bin:$PATH
export LD_LIBRARY_PATH=$root/.deps/root/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
deps=(-DCMAKE_PREFIX_PATH=$root/.deps/root/usr -DCMAKE_LIBRARY_PATH=$root/.deps/root/usr/lib/x86_64-linux-gnu)
case $1 in
build)
  cmake -S .deps/base -B build-base -G Ninja -DCMAKE_BUILD_TYPE=Release -DFARMRT_WITH_OPENIMAGEIO=OFF -DFARMRT_WITH_ASSIMP=OFF \
    -DFARMRT_BUILD_TESTS=OFF -DFARMRT_CUDA_RESOURCE_USAGE=ON "${deps[@]}" > $out/base_configure.log 2>&1
  cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DFARMRT_WITH_OPENIMAGEIO=OFF -DFARMRT_WITH_ASSIMP=OFF \
    -DFARMRT_WARNINGS_AS_ERRORS=OFF -DFARMRT_CUDA_RESOURCE_USAGE=ON -DFARMRT_BUILD_TESTS=OFF "${deps[@]}" > $out/head_configure.log 2>&1
  s=$SECONDS
  j=$(( $(nproc) / 2 ))
  ninja -C build-gpu -j $j farmrt > $out/head_build.log 2>&1 & h=$!
  [ -n "${NOBASE:-}" ] && j=$(nproc)
  [ -z "${NOBASE:-}" ] && { ninja -C build-base -j $j farmrt > $out/base_build.log 2>&1 & b=$!; }
  wait $h; echo "head build rc=$? $((SECONDS-s)) s"; [ -z "${NOBASE:-}" ] && { wait $b; echo "base build rc=$? $((SECONDS-s)) s"; }
  grep -B2 -A2 "sum_sample_radiance" $out/head_build.log | grep -E "entry|registers|spill" | head -12
  ;;
check)
  # every config, CPU vs GPU on one device, spp over several load batches; then the node's GPUs together
  SPP=${SPP:-37}
  b=build-gpu/farmrt; fails=0; checked=0
  for config in configs/*.yaml; do
    n=$(basename $config .yaml)
    for alpha in "" "--alpha --set image.filter=mitchell"; do
      extra=($alpha); [ $n = interior ] && extra+=(--noise-threshold 0.02 --min-spp 8)
      rm -f /tmp/c.pfm /tmp/c.alpha.pfm
      $b $config --width 120 --height 68 --spp $SPP --quiet --backend cpu -o /tmp/c.pfm "${extra[@]}" 2>/tmp/err.txt || { echo "$n cpu FAIL $(head -c 300 /tmp/err.txt)"; continue; }
      for mode in megakernel:samples split:samples; do
        IFS=: read -r integ items <<< "$mode"
        rm -f /tmp/g.pfm /tmp/g.alpha.pfm
        if ! FARMRT_CUDA_INTEGRATOR=$integ FARMRT_CUDA_ITEMS=$items $b $config --width 120 --height 68 --spp $SPP --quiet --backend cuda --gpus 0 -o /tmp/g.pfm "${extra[@]}" 2>/tmp/err.txt; then
          echo "$n $alpha $mode run FAIL: $(cat /tmp/err.txt)"; fails=1; continue
        fi
        checked=$((checked+1))
        cmp -s /tmp/c.pfm /tmp/g.pfm || { echo "$n $alpha $mode colour bytes differ"; fails=1; }
        [ -n "$alpha" ] && { cmp -s /tmp/c.alpha.pfm /tmp/g.alpha.pfm || { echo "$n $mode alpha bytes differ"; fails=1; }; }
      done
    done
  done
  echo "check: $checked GPU renders compared with the CPU's, fails=$fails"
  for c in spheres cornell; do
    $b configs/$c.yaml --width 320 --height 180 --spp 100 --quiet --backend cpu -o /tmp/c.pfm
    $b configs/$c.yaml --width 320 --height 180 --spp 100 --quiet --backend cuda -o /tmp/g.pfm --stats /tmp/g.json
    cmp -s /tmp/c.pfm /tmp/g.pfm && echo "$c all GPUs ($(python3 -c "import json;print(len(json.load(open('/tmp/g.json'))['devices']))") devices) = CPU" || { echo "$c all GPUs differ"; fails=1; }
  done
  ;;
time)
  ngpu=$(nvidia-smi -L | wc -l); all=$(seq -s, 0 $((ngpu-1)))
  nvidia-smi -L > $out/gpus.txt
  IFS=';' read -ra variants <<< "${VARIANTS:-X=0;FARMRT_CUDA_SAMPLE_BUFFER_MIB=4096;FARMRT_FARM_MIN_BAND_MS=20;FARMRT_CUDA_BLOCK=32;FARMRT_CUDA_SAMPLE_BUFFER_MIB=4096 FARMRT_FARM_MIN_BAND_MS=20}"
  echo "| variant | size | run | rep | render s | whole s | items per device | busy s per device |" > $out/items.md
  for rep in 1 2; do
    for size in 1200x675:4096 3840x2160:1024; do
      W=${size%%x*}; rest=${size#*x}; H=${rest%%:*}; S=${size##*:}
      v=0
      for variant in "${variants[@]}"; do
        v=$((v+1))
        for cfg in g1 gall; do
          gpus=0; [ $cfg = gall ] && gpus=$all
          j=/tmp/v${v}_${cfg}_${W}_$rep.json
          t0=$(date +%s.%N)
          env $variant build-gpu/farmrt configs/spheres.yaml --width $W --height $H --spp $S --quiet --backend cuda --gpus $gpus -o /tmp/v$v$cfg.pfm --stats $j || echo FAIL
          t1=$(date +%s.%N)
          python3 -c "
import json; d=json.load(open('$j')); devs=d.get('devices',[])
print('| $variant | ${W} | $cfg | $rep | %.3f | %.2f | %s | %s |'%(d['render_seconds'],$t1-$t0,[x.get('items',x.get('bands',0)) for x in devs],[round(x.get('busy_seconds',0),3) for x in devs]))" >> $out/items.md
        done
      done
      for p in /tmp/v*g*.pfm; do cmp -s /tmp/v1gall.pfm $p || echo "$p differs $W" >> $out/items.md; done
    done
  done
  cat $out/items.md
  ;;
esac
# ncu: every kernel's duration, one GPU, wide items (divisor 1) and thin ones (divisor 15)
if [ "${1:-}" = ncu ]; then
  for build in base gpu; do
    for div in 1 15; do
      FARMRT_FARM_BAND_DIVISOR=$div ncu --clock-control none --metrics gpu__time_duration.sum --csv \
        build-$build/farmrt configs/spheres.yaml --width 1200 --height 675 --spp 4096 --gpus 0 --backend cuda --quiet \
        -o /tmp/n.pfm --stats $out/ncu_${build}_$div.json > $out/ncu_${build}_$div.csv 2>$out/ncu_${build}_$div.err
      python3 - $out/ncu_${build}_$div.csv "$build div $div" <<'PY'
import csv, sys, collections
rows = [r for r in csv.reader(l for l in open(sys.argv[1]) if l.startswith('"'))]
head = rows[0]; k = head.index("Kernel Name"); v = head.index("Metric Value"); u = head.index("Metric Unit")
tot = collections.defaultdict(lambda: [0, 0.0])
for r in rows[1:]:
    scale = {"nsecond": 1e-9, "usecond": 1e-6, "msecond": 1e-3, "second": 1}[r[u]]
    name = r[k].split("(")[0][-60:]
    tot[name][0] += 1; tot[name][1] += float(r[v].replace(",", "")) * scale
print(sys.argv[2])
for name, (n, s) in sorted(tot.items(), key=lambda x: -x[1][1]):
    print(f"  {n:5d} launches {s:8.4f} s  {1e3*s/n:8.3f} ms each  {name}")
PY
    done
  done
fi
