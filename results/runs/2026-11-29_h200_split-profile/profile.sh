#!/usr/bin/env bash
# Where the split kernels' time goes on cornell.yaml: Nsight Compute's full
# set on one iteration in the middle of a 1024 spp frame (launches 3001-3007
# of the split kernels), and the render phase of cornell.yaml and models.yaml
# at three pool sizes. ncu_cornell_steady.txt (2.3 MB) is summarised per
# kernel in ncu_cornell_steady_extract.txt.
set -uo pipefail
root=$PWD; out=${OUT:-/tmp/out}; mkdir -p $out
export PATH=/usr/local/cuda/bin:$PATH
export LD_LIBRARY_PATH=$root/.deps/root/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
s=$SECONDS
cmake -S $root -B /tmp/b -G Ninja -DCMAKE_BUILD_TYPE=Release -DFARMRT_BUILD_TESTS=OFF -DFARMRT_WITH_OPENIMAGEIO=OFF \
  -DFARMRT_WITH_ASSIMP=OFF -DCMAKE_PREFIX_PATH=$root/.deps/root/usr \
  -DCMAKE_LIBRARY_PATH=$root/.deps/root/usr/lib/x86_64-linux-gnu > /tmp/cfg.log 2>&1 &&
  ninja -C /tmp/b -j 16 farmrt > /tmp/build.log 2>&1 || { tail -30 /tmp/build.log; exit 1; }
echo "built at $((SECONDS-s)) s"
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; git -C $root log -1 --format=%h 2>/dev/null; } > $out/machine.txt
F=/tmp/b/farmrt
for sc in cornell models; do for paths in 1048576 2097152 4194304; do for rep in 1 2; do
  FARMRT_CUDA_PATHS=$paths $F configs/$sc.yaml --spp 1024 --backend cuda --quiet -o /tmp/$sc.pfm --stats /tmp/$sc.json >/dev/null 2>&1
  echo "$sc paths=$paths rep=$rep render=$(python3 -c "import json; print(json.load(open('/tmp/$sc.json'))['render_seconds'])")"
done; done; done | tee $out/baseline.txt
echo "baselines at $((SECONDS-s)) s"
timeout -k 3 200 ncu --clock-control none --set full --import-source yes -k regex:wavefront --launch-skip 3000 --launch-count 7 \
  -f -o /tmp/cornell $F configs/cornell.yaml --spp 1024 --backend cuda --quiet -o /tmp/n.pfm > $out/ncu_log.txt 2>&1
ncu -i /tmp/cornell.ncu-rep --print-details all > $out/ncu_cornell_steady.txt 2>&1
python3 - $out/ncu_cornell_steady.txt > $out/ncu_cornell_steady_extract.txt <<'PY'
import re, sys
text = open(sys.argv[1], errors='replace').read()
keys = ['Duration', 'Registers Per Thread', 'Theoretical Occupancy', 'Achieved Occupancy', 'Issued Warp Per Scheduler',
        'L2 Cache Throughput', 'DRAM Throughput', 'L1/TEX Hit Rate', 'Average Bytes Per Sector For Global Loads',
        'Average Bytes Per Sector For Global Stores', 'Local Memory Spilling Requests', 'L2 Theoretical Sectors Global ',
        'L2 Theoretical Sectors Global Ideal', 'Avg. Active Threads Per Warp', 'Stall Long Scoreboard', 'Stall LG Throttle']
for block in re.split(r'\n  (?=(?:void )?wavefront_)', text)[1:]:
    print('==', re.split(r'\((?:SceneView|FrameSettings|BandLaunch)', block)[0].strip()[:90])
    seen = set()
    for line in block.splitlines():
        for k in keys:
            if line.strip().startswith(k) and k not in seen:
                seen.add(k); print('  ', re.sub(r'\s{2,}', ' | ', line.strip()))
PY
echo "done at $((SECONDS-s)) s"
