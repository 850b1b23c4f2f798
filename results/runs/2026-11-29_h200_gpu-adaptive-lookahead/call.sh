#!/usr/bin/env bash
# One device call: build farmrt, check the adaptive images against the CPU
# at several lookaheads (bytes, AOVs, rays), compute-sanitizer over the
# speculative sums, then scripts/bench/cuda_adaptive.sh.
set -uo pipefail
root=$PWD; out=${OUT:-/tmp/out}; mkdir -p $out
export PATH=/usr/local/cuda/bin:$PATH
export LD_LIBRARY_PATH=$root/.deps/root/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
deps=(-DCMAKE_PREFIX_PATH=$root/.deps/root/usr -DCMAKE_LIBRARY_PATH=$root/.deps/root/usr/lib/x86_64-linux-gnu)
s=$SECONDS
b=/tmp/b
cmake -S $root -B $b -G Ninja -DCMAKE_BUILD_TYPE=Release -DFARMRT_BUILD_TESTS=OFF -DFARMRT_WITH_OPENIMAGEIO=OFF \
  -DFARMRT_WITH_ASSIMP=OFF "${deps[@]}" > /tmp/cfg.log 2>&1 && ninja -C $b -j 16 farmrt > /tmp/build.log 2>&1 ||
  { tail -30 /tmp/cfg.log /tmp/build.log; exit 1; }
echo "built at $((SECONDS-s)) s"
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; } > $out/machine.txt
rays() { python3 -c 'import json, sys; r = json.load(open(sys.argv[1]))["rays"]; print(r["camera"], r["extension"], r["shadow"])' "$1"; }
args=(configs/interior.yaml --width 240 --height 135 --spp 160 --min-spp 8 --noise-threshold 0.02 --quiet --aov samples,variance)
$b/farmrt "${args[@]}" --backend cpu -o /tmp/c.pfm --stats /tmp/c.json
{
for integrator in megakernel split; do for ahead in 0 25 100 400; do
  FARMRT_CUDA_INTEGRATOR=$integrator FARMRT_CUDA_LOOKAHEAD=$ahead $b/farmrt "${args[@]}" --backend cuda -o /tmp/g.pfm --stats /tmp/g.json
  same=yes; for aov in "" .samples .variance; do cmp -s /tmp/c$aov.pfm /tmp/g$aov.pfm || same=NO; done
  echo "$integrator lookahead $ahead: same bytes (image, samples, variance) $same; rays $(rays /tmp/g.json), the CPU's $(rays /tmp/c.json)"
done; done
} 2>&1 | tee $out/equality.txt
echo "equality at $((SECONDS-s)) s"
for integrator in megakernel split; do
  FARMRT_CUDA_INTEGRATOR=$integrator FARMRT_CUDA_LOOKAHEAD=400 compute-sanitizer --tool memcheck --error-exitcode 9 \
    $b/farmrt configs/interior.yaml --width 64 --height 36 --spp 96 --min-spp 8 --noise-threshold 0.02 --quiet \
    --backend cuda -o /tmp/s.pfm > /tmp/san_$integrator.log 2>&1
  echo "memcheck $integrator: rc=$? $(grep -c 'Invalid' /tmp/san_$integrator.log) invalid accesses" | tee -a $out/equality.txt
done
echo "sanitizer at $((SECONDS-s)) s"
scripts/bench/cuda_adaptive.sh $b/farmrt /tmp/ca ${REPEATS:-3} > $out/cuda_adaptive.md 2>&1
cp /tmp/ca/times.txt $out/times.txt
echo "bench at $((SECONDS-s)) s"
cat $out/cuda_adaptive.md
