#!/usr/bin/env bash
# Nsight Compute, full set: a mid-frame launch of the spheres megakernel at 4096 spp (exact and fast).
set -uo pipefail
root=$PWD; out=${OUT:-/tmp/out}; mkdir -p $out
export PATH=/usr/local/cuda/bin:$PATH
s=$SECONDS
mkdir -p /tmp/tb; OUT=/tmp/tb TARGETS="farmrt" bash .deps/chain.sh build > $out/build_summary.txt 2>&1; echo "built at $((SECONDS-s)) s"
export LD_LIBRARY_PATH=$root/.deps/root/usr/lib/x86_64-linux-gnu
i=0
for math in exact fast; do
  CUDA_VISIBLE_DEVICES=$i timeout -k 3 240 ncu --clock-control none --set full -k regex:'path_kernel' --launch-skip 8 --launch-count 1 \
    build-gpu/farmrt configs/spheres.yaml --width 1200 --height 675 --spp 4096 --gpu-math $math --backend cuda --quiet -o /tmp/n_$math.pfm \
    > $out/ncu_spheres_4096_$math.txt 2>&1 &
  i=$((i+1))
done
wait; echo "profiled at $((SECONDS-s)) s"
grep -E "^  [a-z]|Duration|Registers Per|Achieved Occupancy|Issued Warp Per|Executed Ipc Active|Warp Cycles Per Issued|Local Memory Spilling Req" $out/ncu_spheres_4096_*.txt
