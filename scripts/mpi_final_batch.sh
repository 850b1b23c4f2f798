#!/usr/bin/env bash
# The MPI farm's figures on a 16-core node, in one command (about 2 minutes):
#   1. the scaling table at 8 x 2 and 16 x 1 ranks x threads, every schedule,
#      two repeats (scripts/benchmark_mpi.sh, CORES=16 RANKS="8 16" REPEATS=2);
#   2. the same at 8 x 1 (CORES=8 RANKS=8);
#   3. the dealer's end-of-round rule, last pass only (the default) against every
#      pass, at 16 x 1, 8 x 2 and 8 x 1 (scripts/mpi_imbalance_probe.sh).
# Every part writes under OUT_DIR (and all of it into OUT_DIR/mpi_final.tar.gz);
# the summary tables are printed.
#
#   scripts/mpi_final_batch.sh BUILD_DIR OUT_DIR
# Environment: BUDGET (140: seconds; the probe gets what is left of it).
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:?usage: mpi_final_batch.sh BUILD_DIR OUT_DIR}
out=${2:?usage: mpi_final_batch.sh BUILD_DIR OUT_DIR}
budget=${BUDGET:-140}
mkdir -p "$out"
start=$(date +%s)

CORES=16 RANKS="8 16" REPEATS=2 RESULTS=$out/mpi_16cores scripts/benchmark_mpi.sh "$build" \
    >"$out/mpi_16cores.log" 2>&1 || echo "mpi_final_batch: 16-core table failed (see mpi_16cores.log)"
echo "mpi_final_batch: [$(($(date +%s) - start))s] 16-core table" >&2
CORES=8 RANKS=8 RESULTS=$out/mpi_8x1 scripts/benchmark_mpi.sh "$build" \
    >"$out/mpi_8x1.log" 2>&1 || echo "mpi_final_batch: 8x1 table failed (see mpi_8x1.log)"
echo "mpi_final_batch: [$(($(date +%s) - start))s] 8x1 table" >&2
left=$((budget - ($(date +%s) - start)))
if [ "$left" -gt 10 ]; then
    BUDGET=$left PLAN="new:16x1 every:16x1 new:8x2 every:8x2 new:8x1 every:8x1 new:16x1 every:16x1" \
        scripts/mpi_imbalance_probe.sh "$build" "$out/probe" >"$out/probe.log" 2>&1 ||
        echo "mpi_final_batch: probe failed (see probe.log)"
fi
echo "mpi_final_batch: [$(($(date +%s) - start))s] probe" >&2

tar -czf "$out/mpi_final.tar.gz" -C "$out" --exclude mpi_final.tar.gz .
for table in "$out/mpi_16cores.md" "$out/mpi_8x1.md"; do
    [ -f "$table" ] && sed -n '/^| ranks/,/^$/p' "$table"
done
[ -f "$out/probe/probe.md" ] && sed -n '/^| run/,/^$/p' "$out/probe/probe.md"
echo "mpi_final_batch: done in $(($(date +%s) - start))s; tables: $out/mpi_16cores.md, $out/mpi_8x1.md, $out/probe/probe.md (all in $out/mpi_final.tar.gz)"
