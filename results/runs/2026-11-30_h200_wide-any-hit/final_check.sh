export LD_LIBRARY_PATH=$PWD/.deps/root/usr/lib/x86_64-linux-gnu
F=.deps/prebuilt/farmrt_final; mkdir -p $OUT
NAMES="final" CHANGED=final NCU="" CASES="cornell:1024 models:1024 env:256 lights:256 interior:1024" bash results/runs/2026-11-30_h200_wide-any-hit/run.sh 2>&1 | tail -12
for sc in models cornell; do
  $F configs/$sc.yaml --spp 64 --quiet --backend cpu -o /tmp/cpu_$sc.pfm
  for g in 0 0,1; do $F configs/$sc.yaml --spp 64 --quiet --backend cuda --gpus $g -o /tmp/g.pfm && cmp -s /tmp/cpu_$sc.pfm /tmp/g.pfm && echo "$sc gpus $g same as cpu" || echo "$sc gpus $g DIFFER"; done
done | tee $OUT/gpus_vs_cpu.txt
timeout -k 5 100 bash tests/farm/stop_within_seconds.sh $F . "" cuda > $OUT/stop_gpu.log 2>&1; echo "stop rc=$?"; tail -2 $OUT/stop_gpu.log
