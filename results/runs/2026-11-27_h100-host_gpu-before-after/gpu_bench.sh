#!/bin/bash
# GPU before/after: render phase (--stats) and whole command, interleaved.
# usage: .deps/gpu_bench.sh AFTER_BIN BEFORE_BIN OUT
a=$1; b=$2; out=$3; mkdir -p $out
cases="spheres:4096:exact spheres:4096:fast models:1024:exact models:1024:fast cornell:1024:exact cornell:1024:fast"
for rep in 1 2 3; do for c in $cases; do IFS=: read n spp m <<< "$c"
  for v in a b; do bin=${!v}; s=$out/${n}_${m}_${v}_$rep.json
    start=$(date +%s.%N); $bin configs/$n.yaml --spp $spp --backend cuda --gpu-math $m -q -o $out/img_$v.pfm --stats $s; end=$(date +%s.%N)
    python3 -c "import json;d=json.load(open('$s'));print('$n $m $v rep$rep Gsps %.4f render %.3f wall %.3f' % (d['samples']/d['render_seconds']/1e9, d['render_seconds'], $end-$start))"
  done; cmp -s $out/img_a.pfm $out/img_b.pfm && echo "$n $m same bytes" || echo "$n $m DIFF"
done; done
