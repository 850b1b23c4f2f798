#!/usr/bin/env bash
# One command for a GPU machine: builds farmrt with CUDA (OpenImageIO off) or
# reuses BUILD_DIR (e.g. from scripts/gpu_build_and_test.sh), runs the
# GPU/hybrid farm tests, measures GPU ranks and hybrid jobs
# (scripts/bench/multi_gpu.sh: one GPU rank, one rank per GPU when there
# are several, GPU ranks + a CPU rank), then the MPI CPU tables
# (scripts/bench/mpi.sh: 8 and 16 ranks on 16 cores, 8x1, and on machines
# with more than 16 cores the whole machine), within a time budget.
# OUT_DIR gets summary.md (every table and the tests' verdicts) and
# raw.tar.gz (logs, per-run JSON reports, per-rank CSVs): two files, so that a
# device run returns all of it. The summary is printed last.
#
#   scripts/bench/multi_gpu_study.sh BUILD_DIR OUT_DIR
# Environment: BUDGET (seconds, default 300), DEPS (unpacked Debian packages,
# default .deps/root/usr), COMMIT (for the tables when there is no .git).
set -uo pipefail
cd "$(dirname "$0")/../.."
build=${1:?usage: bench/multi_gpu_study.sh BUILD_DIR OUT_DIR}
final=${2:?usage: bench/multi_gpu_study.sh BUILD_DIR OUT_DIR}
budget=${BUDGET:-300}
deps=${DEPS:-$PWD/.deps/root/usr}
out=$final/raw
mkdir -p "$out"
export PATH=/usr/local/cuda/bin:$PATH
export COMMIT=${COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}
start=$SECONDS
left() { echo $((budget - (SECONDS - start))); }
log() { echo "[$((SECONDS - start))s] $*" | tee -a "$out/summary.txt"; }

configure=(-DCMAKE_BUILD_TYPE=Release -DFARMRT_WITH_OPENIMAGEIO=OFF -DFARMRT_WARNINGS_AS_ERRORS=ON)
[ -d "$deps" ] && configure+=("-DCMAKE_PREFIX_PATH=$deps" "-DCMAKE_LIBRARY_PATH=$deps/lib/x86_64-linux-gnu")
{ nvidia-smi -L; echo "cores: $(nproc)"; } >"$out/machine.txt" 2>&1
if [ ! -f "$build/build.ninja" ] && ! cmake -S . -B "$build" -G Ninja "${configure[@]}" >"$out/configure.log" 2>&1; then
    log "configure FAILED"; tail -30 "$out/configure.log"; exit 1
fi
if ! ninja -C "$build" farmrt farmrt_mpi_tests >"$out/build.log" 2>&1; then
    log "build FAILED"; tail -30 "$out/build.log"; exit 1
fi
log "built"

timeout 150 ctest --test-dir "$build" --output-on-failure --timeout 120 \
    -R 'mpi_gpu_hybrid|mpi_identical_n3|mpi_stats|BandSchedule' >"$out/ctest.log" 2>&1
log "ctest: $(grep -E 'tests passed|tests failed' "$out/ctest.log")"
grep -E '^ok:|SKIPPED|FAIL' "$out/ctest.log" | head -20 | tee -a "$out/summary.txt"

if [ "$(left)" -gt 120 ]; then
    REPEATS=2 timeout 160 scripts/bench/multi_gpu.sh "$build" "$out/gpu" >"$out/gpu.log" 2>&1
    log "GPU benchmark done"
fi

cpu_table() {  # NAME CORES RANKS REPEATS
    local name=$1 cores=$2 ranks=$3 repeats=$4
    CORES=$cores RANKS="$ranks" REPEATS=$repeats SCHEDULES="dynamic static cyclic" EXTRA="--backend cpu" \
        RESULTS="$out/$name" timeout $(($(left) - 10)) scripts/bench/mpi.sh "$build" >"$out/$name.log" 2>&1
    log "CPU table $name done"
}
[ "$(left)" -gt 100 ] && cpu_table mpi_16cores 16 "8 16" $([ "$(left)" -gt 200 ] && echo 2 || echo 1)
[ "$(left)" -gt 45 ] && cpu_table mpi_8x1 8 "8" 1
[ "$(nproc)" -gt 16 ] && [ "$(left)" -gt 45 ] && cpu_table mpi_32cores "$(nproc)" "16 32" 1

{
    echo "# multi_gpu_study: $(date -u +%Y-%m-%dT%H:%MZ), commit $COMMIT"
    echo
    echo '```'
    cat "$out/machine.txt" "$out/summary.txt"
    echo '```'
    echo
    [ -f "$out/gpu/multi_gpu.md" ] && cat "$out/gpu/multi_gpu.md"
    for table in mpi_16cores mpi_8x1 mpi_32cores; do
        if [ -f "$out/$table.md" ]; then
            echo
            sed "s/^# MPI farm scaling (one node)/## MPI CPU table: $table/" "$out/$table.md"
            echo
            echo "Per rank (ranks, schedule, rank, threads, bands, busy, waiting, first-band wait, tail wait):"
            echo '```'
            cut -d, -f1-5,8-11 "$out/${table}_ranks.csv"
            echo '```'
        fi
    done
} >"$final/summary.md"
tar -czf "$final/raw.tar.gz" -C "$final" raw && rm -rf "$out"
echo
cat "$final/summary.md"
exit 0
