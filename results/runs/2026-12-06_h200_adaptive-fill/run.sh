#!/usr/bin/env bash
# Adaptive sampling on the split kernels: launches that look further past
# decisions while their pixels are too few to fill the pool
# (FARMRT_CUDA_ADAPTIVE_FILL), swept on configs/interior.yaml with
# scripts/bench/cuda_adaptive.sh, each image against the CPU's bytes. One GPU,
# two calls on one warm machine (the header-only packages carried in
# .deps/root, as scripts/gpu_build_and_test.sh says):
#   PHASE=check: scripts/gpu_build_and_test.sh's build, GPU tests and
#                command-line checks (FARMRT_GPU_STEPS=gpu) in build-device/now;
#   PHASE=sweep: the sweep over FILLS (default "0 50 100 200 400") with that build;
#   PHASE=all: both in one call;
#   PHASE=sanitize: farmrt alone built in build-device/now, then
#                compute-sanitizer memcheck and initcheck on adaptive
#                interior.yaml with the default fill, fill 1000, and a pool
#                of 1,024 paths.
s=$SECONDS; export PATH=/usr/local/cuda/bin:$PATH LD_LIBRARY_PATH=$PWD/.deps/root/usr/lib/x86_64-linux-gnu
B=build-device/now
if [ "${PHASE:-check}" = sanitize ]; then
  cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DFARMRT_WITH_OPENIMAGEIO=OFF -DFARMRT_WITH_ASSIMP=OFF \
    -DCMAKE_PREFIX_PATH=$PWD/.deps/root/usr -DCMAKE_LIBRARY_PATH=$PWD/.deps/root/usr/lib/x86_64-linux-gnu > $OUT/configure.log 2>&1
  ninja -C $B -j 16 farmrt > $OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
  echo "built at $((SECONDS-s))"; $B/farmrt --version | head -1
  args=(configs/interior.yaml --backend cuda --width 96 --height 54 --spp 160 --min-spp 8 --noise-threshold 0.05
        --aov samples,variance --quiet)
  rc=0
  for tool in memcheck initcheck; do
    for env in FARMRT_CUDA_ADAPTIVE_FILL=400 FARMRT_CUDA_ADAPTIVE_FILL=1000 FARMRT_CUDA_PATHS=1024; do
      env FARMRT_CUDA_INTEGRATOR=split $env compute-sanitizer --tool $tool --error-exitcode 99 $B/farmrt "${args[@]}" \
        -o /tmp/san.pfm > $OUT/${tool}_${env%%=*}_${env#*=}.log 2>&1
      r=$?; [ $r -ne 0 ] && rc=1; echo "$tool $env: exit $r, $(grep -h "ERROR SUMMARY" $OUT/${tool}_${env%%=*}_${env#*=}.log)"
    done
  done
  echo total $((SECONDS-s)); exit $rc
fi
if [ "${PHASE:-check}" != sweep ]; then
  FARMRT_GPU_STEPS=gpu LOG_DIR=$OUT/check scripts/gpu_build_and_test.sh $B | tail -n 40
  rm -f $OUT/check/build.log.gz; gzip -f $OUT/check/build.log
  echo check at $((SECONDS-s)); [ "${PHASE:-check}" = check ] && exit 0
fi
$B/farmrt --version | head -1 > $OUT/machine.txt; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader >> $OUT/machine.txt
fills=${FILLS:-0 50 100 200 400}
for fill in $fills; do
  FARMRT_CUDA_ADAPTIVE_FILL=$fill SIZES="480x270 1920x1080" THRESHOLDS="0.02 0.01" LOOKAHEADS=50 CHUNKS=1 INTEGRATORS=split scripts/bench/cuda_adaptive.sh $B/farmrt /tmp/ad_$fill 3 > /tmp/ad_$fill.md 2>&1
  echo "## FARMRT_CUDA_ADAPTIVE_FILL=$fill"; cat /tmp/ad_$fill.md; echo
done > $OUT/adaptive_fill.md
echo "sweep at $((SECONDS-s))"
$B/farmrt configs/interior.yaml --width 480 --height 270 --spp 1024 --min-spp 16 --noise-threshold 0.01 --backend cpu -q -o /tmp/cpu01.pfm
$B/farmrt configs/interior.yaml --width 1920 --height 1080 --spp 1024 --min-spp 16 --noise-threshold 0.02 --backend cpu -q -o /tmp/cpu1080.pfm
for fill in $fills; do
  for f in /tmp/ad_$fill/gpu_480x270_adaptive_0.01_*[0-9].pfm; do cmp -s $f /tmp/cpu01.pfm && echo "fill $fill 480x270 0.01: same as CPU" || echo "fill $fill $f DIFFER"; done
  for f in /tmp/ad_$fill/gpu_1920x1080_adaptive_0.02_*[0-9].pfm; do cmp -s $f /tmp/cpu1080.pfm && echo "fill $fill 1920x1080 0.02: same as CPU" || echo "fill $fill $f DIFFER"; done
done > $OUT/adaptive_fill_bytes.txt
cat $OUT/adaptive_fill_bytes.txt
grep -E "^## |0.0[12] \| split|uniform" $OUT/adaptive_fill.md | grep -v cpu | cut -d'|' -f3,4,8,9,11,12
echo total $((SECONDS-s))
