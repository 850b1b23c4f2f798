#!/usr/bin/env bash
# One command for the farm-operation measurements on a machine with many cores
# (and a GPU): builds farmrt if needed, then
#   1. scripts/benchmark_frames.sh: 100 frames of 64x64 at 1 spp, one MPI job vs a process per frame
#      (configs/spheres.yaml with every mode; configs/many_spheres.yaml, whose set-up costs more);
#   2. scripts/scaling_study.py strong, weak and backends;
# writing CSV, PNG and markdown into RESULTS (default results/).
#   scripts/run_farm_studies.sh [BUILD_DIR]
# Environment: RESULTS, CMAKE_ARGS (extra configure options, e.g. for a machine without
#   OpenImageIO: "-DFARMRT_WITH_OPENIMAGEIO=OFF -DCMAKE_PREFIX_PATH=..."), REPEATS (3),
#   STRONG ("--width 1200 --height 675 --spp 8"), WEAK ("--base-width 400 --base-height 80 --spp 32"),
#   BACKENDS ("--width 1200 --height 675 --spp 8"), MACHINE (description for the tables).
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-studies}
results=${RESULTS:-results}
repeats=${REPEATS:-3}
start=$(date +%s)
stamp() { echo "run_farm_studies: $* ($(( $(date +%s) - start )) s)" >&2; }
if [ ! -x "$build/farmrt" ]; then
    # shellcheck disable=SC2086
    cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DFARMRT_BUILD_TESTS=OFF ${CMAKE_ARGS:-} > "$build.log" 2>&1 &&
        cmake --build "$build" -j "$(nproc)" --target farmrt >> "$build.log" 2>&1 || { tail -30 "$build.log"; exit 1; }
    stamp "built $build"
fi
mkdir -p "$results"
python=python3
/usr/bin/python3 -c 'import matplotlib' 2>/dev/null && python=/usr/bin/python3
machine=()
[ -n "${MACHINE:-}" ] && machine=(--machine "$MACHINE")
status=0

RESULTS=$results SCENES=configs/spheres.yaml NAME=frames_benchmark scripts/benchmark_frames.sh "$build" "$(nproc)" \
    > /dev/null || status=1
stamp "frames benchmark (spheres)"
RESULTS=$results SCENES=configs/many_spheres.yaml NAME=frames_benchmark_many_spheres \
    MODES="job_mpi job_single process_per_frame" scripts/benchmark_frames.sh "$build" "$(nproc)" > /dev/null || status=1
stamp "frames benchmark (many_spheres)"
# shellcheck disable=SC2086
$python scripts/scaling_study.py strong --build "$build" --results "$results" --repeats "$repeats" "${machine[@]}" \
    ${STRONG:---width 1200 --height 675 --spp 8} > /dev/null || status=1
stamp "strong scaling"
# shellcheck disable=SC2086
$python scripts/scaling_study.py weak --build "$build" --results "$results" --repeats "$repeats" "${machine[@]}" \
    ${WEAK:---base-width 400 --base-height 80 --spp 32} > /dev/null || status=1
stamp "weak scaling"
# shellcheck disable=SC2086
$python scripts/scaling_study.py backends --build "$build" --results "$results" --repeats "$repeats" "${machine[@]}" \
    ${BACKENDS:---width 1200 --height 675 --spp 8} > /dev/null || status=1
stamp "backends"
for f in frames_benchmark frames_benchmark_many_spheres strong_scaling weak_scaling backend_comparison; do
    [ -f "$results/$f.md" ] && { echo; cat "$results/$f.md"; }
done
exit $status
