#!/bin/bash
# Two pools whose queue kernels take half the resident grid each (base: the
# wrapper that sets EXPERIMENT_SPLIT_GRID_SHARE) against full grids (now).
set -u
S=$PWD/.deps/ship
(cd $S && tar xJf bins.tar.xz && tar xJf bins4.tar.xz)
export LD_LIBRARY_PATH=$S/lib:/usr/lib/x86_64-linux-gnu:$S/fallback
printf '#!/bin/bash\nEXPERIMENT_SPLIT_GRID_SHARE=1 exec %s "$@"\n' $S/exp/farmrt > $S/half.sh; chmod +x $S/half.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
FARMRT=$S/exp/farmrt BASE=$S/half.sh OUT=/tmp/bench PHASE=bench REPEATS=3 \
  CASES="env:256:now env:256:base models:1024:now models:1024:base cornell:1024:now cornell:1024:base" \
  scripts/bench/cuda_split_bands.sh > /tmp/bench.log 2>&1
cp /tmp/bench/medians.txt /tmp/bench/scenes.txt $OUT/; sort -u $OUT/medians.txt; tail -1 /tmp/bench.log
