#!/usr/bin/env bash
# build | test | time: chains (one launch for a frame's bands) against launches one by one.
set -uo pipefail
root=$PWD; out=${OUT:-/tmp/out}
export PATH=/usr/local/cuda/bin:$PATH
export LD_LIBRARY_PATH=$root/.deps/root/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
deps=(-DCMAKE_PREFIX_PATH=$root/.deps/root/usr -DCMAKE_LIBRARY_PATH=$root/.deps/root/usr/lib/x86_64-linux-gnu)
for step in "$@"; do
case $step in
build)
  cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DFARMRT_WITH_OPENIMAGEIO=OFF -DFARMRT_WITH_ASSIMP=OFF \
    -DFARMRT_WARNINGS_AS_ERRORS=OFF -DFARMRT_CUDA_RESOURCE_USAGE=ON "${deps[@]}" > $out/configure.log 2>&1
  s=$SECONDS
  ninja -C build-gpu -j $(nproc) ${TARGETS:-farmrt farmrt_cuda_tests} > $out/build.log 2>&1; echo "build rc=$? $((SECONDS-s)) s"
  grep -i -E "error" $out/build.log | head -5
  python3 - $out/build.log <<'PY'
import re, sys
entry = None
for line in open(sys.argv[1], errors='replace'):
    m = re.search(r"Compiling entry function '([^']+)'", line)
    if m: entry = m.group(1); continue
    m = re.search(r"Used (\d+) registers.*", line)
    if m and entry and re.search(r'TraversalTraitsILb', entry) and ('chain_kernel' in entry or 'path_kernel' in entry) and 'exact' in entry:
        k = re.search(r'(chain_kernel\w*|path_kernel\w*)I', entry).group(1)
        t = re.search(r'TraversalTraitsILb(\d)ELb(\d)E', entry)
        print(k, 'general' if t.group(1)=='1' else ('spheres' if t.group(2)=='1' else 'noinst'), 'naive' if entry.endswith('ELb1EEEvNS_9SceneViewENS_13FrameSettingsENS_10BandLaunchE') else '', m.group(0)[:80])
        entry = None
PY
  ;;
test)
  ls build-gpu/tests/ | grep -i cuda | head
  t=$(ls build-gpu/tests/*cuda*tests 2>/dev/null | head -1)
  timeout -k 3 ${TEST_TIMEOUT:-150} $t --gtest_filter="${FILTER:-CudaGpu.Chained*:CudaGpu.StopEnds*:CudaGpu.Stop*:CudaGpu.ExactMath*:CudaGpu.SumsIndep*:CudaGpu.Asynch*}" > $out/test.txt 2>&1
  echo "test rc=$?"; grep -E "^\[  (FAILED|PASSED|  OK) |Failure|Expected|which is|differ" $out/test.txt | head -30
  ;;
time)
  ngpu=$(nvidia-smi -L | wc -l); all=$(seq -s, 0 $((ngpu-1)))
  echo "| chain | size | gpus | rep | render s | whole s | items | launches | busy s |" > $out/chain.md
  for rep in ${REPS:-1 2}; do
    for size in ${SIZES:-1200x675:4096 3840x2160:1024}; do
      W=${size%%x*}; rest=${size#*x}; H=${rest%%:*}; S=${size##*:}
      for chain in 0 1; do
        for gpus in 0 $all; do
          j=/tmp/c${chain}_${gpus}_${W}_$rep.json
          t0=$(date +%s.%N)
          FARMRT_CUDA_CHAIN=$chain timeout -k 3 ${RUN_TIMEOUT:-30} build-gpu/farmrt ${CONFIG:-configs/spheres.yaml} --width $W --height $H --spp $S --quiet --backend cuda --gpus $gpus -o /tmp/c${chain}_${gpus}_$W.pfm --stats $j || echo "FAIL chain=$chain gpus=$gpus $W rc=$?"
          t1=$(date +%s.%N)
          python3 -c "
import json; d=json.load(open('$j')); devs=d.get('devices',[])
print('| $chain | ${W} | $gpus | $rep | %.3f | %.2f | %s | %s | %s |'%(d['render_seconds'],$t1-$t0,[x.get('items',0) for x in devs],[x.get('launches',0) for x in devs],[round(x.get('busy_seconds',0),3) for x in devs]))" >> $out/chain.md
        done
      done
      for p in /tmp/c*_$W.pfm; do cmp -s /tmp/c0_0_$W.pfm $p || echo "$p differs" >> $out/chain.md; done
    done
  done
  cat $out/chain.md
  ;;
esac
done
