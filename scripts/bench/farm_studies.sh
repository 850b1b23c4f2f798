#!/usr/bin/env bash
# The farm-operation measurements in one command, within a time budget, for a
# machine with many cores (and a GPU):
#   1. frames: 100 frames of 64x64 at 1 spp, one MPI job vs one process per frame
#      (scripts/bench/frames.sh, CPU backend; then on the GPU if the build has CUDA);
#   2. strong scaling: one frame on 1..N cores, every split into ranks x threads;
#   3. backends: scalar, SIMD, CUDA, hybrid (samples/s of the render phase);
#   4. weak scaling: pixels grow with the ranks;
# (scripts/bench/scaling_study.py), each writing CSV, markdown and, where matplotlib is
# installed, PNG into OUT_DIR, plus OUT_DIR/farm_studies.md (all tables) and
# OUT_DIR/logs/. Without matplotlib, draw the plots afterwards elsewhere:
#   scripts/bench/scaling_study.py plot --results OUT_DIR
#
#   scripts/bench/farm_studies.sh BUILD_DIR OUT_DIR
#
# BUILD_DIR: a build with farmrt (e.g. from scripts/gpu_build_and_test.sh BUILD_DIR;
# configured and built here when it has no farmrt, with CMAKE_ARGS).
# Every step gets a share of BUDGET seconds (default 210): scaling studies stop
# starting configurations when their share is spent (the tables say what was left
# out), a step that overruns is stopped, a step with too little time left is skipped.
# Environment (defaults are sized for 16 cores, an AVX-512 CPU and an H100/H200):
#   BUDGET (210), FRAMES (1-100), FRAMES_CUDA (1-20: a CUDA context per process costs more),
#   STRONG ("--width 640 --height 360 --spp 32 --repeats 1"),
#   BACKENDS ("--width 640 --height 360 --spp 4 --gpu-spp 4096 --repeats 1"),
#   WEAK ("--base-width 320 --base-height 90 --spp 32 --repeats 1"),
#   MAX_CORES (all), MACHINE (description for the tables), CMAKE_ARGS.
# A tiny trial run:
#   BUDGET=120 FRAMES=1-10 FRAMES_CUDA=1-3 STRONG="--width 64 --height 36 --spp 2 --repeats 1" \
#   BACKENDS="--width 64 --height 36 --spp 1 --gpu-spp 16 --repeats 1" \
#   WEAK="--base-width 64 --base-height 16 --spp 2 --repeats 1" scripts/bench/farm_studies.sh build /tmp/studies
set -uo pipefail
if [ $# -lt 2 ]; then
    sed -n '2,30p' "$0" >&2
    exit 2
fi
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$(realpath -m "$1")
out=$(realpath -m "$2")
cd "$root" || exit 1
mkdir -p "$out/logs"
budget=${BUDGET:-210}
start=$(date +%s)
elapsed() { echo $(($(date +%s) - start)); }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

if [ ! -x "$build/farmrt" ]; then
    # shellcheck disable=SC2086
    { cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release ${CMAKE_ARGS:-} &&
        cmake --build "$build" -j "$(nproc)" --target farmrt; } > "$out/logs/build.log" 2>&1 ||
        { tail -30 "$out/logs/build.log"; exit 1; }
fi
cores=${MAX_CORES:-$(nproc)}
has_cuda=0
if "$build/farmrt" --help 2>/dev/null | grep -q "cuda" && command -v nvidia-smi >/dev/null &&
    nvidia-smi -L >/dev/null 2>&1; then
    has_cuda=1
fi
python=python3
/usr/bin/python3 -c 'import matplotlib' 2>/dev/null && python=/usr/bin/python3
study_options=(--build "$build" --results "$out" --max-cores "$cores")
[ -n "${MACHINE:-}" ] && study_options+=(--machine "$MACHINE")

summary=()
status=0
share=0
# plan NAME SHARE MINIMUM RESERVE: the step may take SHARE seconds ($share), less
# when the budget minus the RESERVE of the steps still to come is smaller; false
# (the step is skipped) when less than MINIMUM would be left.
plan() {
    local name=$1 minimum=$3 left=$((budget - $(elapsed) - $4))
    share=$2
    [ "$share" -gt "$left" ] && share=$left
    if [ "$share" -lt "$minimum" ]; then
        summary+=("$name|skipped (${left} s left of the budget)|0")
        return 1
    fi
}
# run_step NAME COMMAND...: the command's output in logs/NAME.log, stopped (with
# everything it started) 10 s after its share.
run_step() {
    local name=$1 t0 verdict=ok rc
    shift
    t0=$(date +%s)
    timeout --kill-after=3 $((share + 10)) "$@" > "$out/logs/$name.log" 2>&1
    rc=$?
    if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
        verdict="stopped after $((share + 10)) s"
        status=1
    elif [ $rc -ne 0 ]; then
        verdict="FAILED (exit $rc)"
        status=1
        tail -n 15 "$out/logs/$name.log" >&2
    fi
    summary+=("$name|$verdict|$(($(date +%s) - t0))")
    echo "run_farm_studies: $name: $verdict ($(elapsed) s of $budget)" >&2
}
frames() {  # NAME FRAME_LIST FARMRT_OPTIONS MODES
    run_step "$1" env RESULTS="$out" SCENES=configs/spheres.yaml NAME="$1" FRAMES="$2" FARMRT_OPTIONS="$3" MODES="$4" \
        scripts/bench/frames.sh "$build" "$cores"
}
study() {  # KIND [options]: --budget (no configuration starts after it) leaves room for the one under way
    local kind=$1
    shift
    run_step "$kind" "$python" scripts/bench/scaling_study.py "$kind" "${study_options[@]}" --budget $((share * 3 / 4)) "$@"
}
cuda_share=0
[ $has_cuda -eq 1 ] && cuda_share=25
plan frames_cpu 40 10 $((35 + 30 + 25 + cuda_share)) &&
    frames frames_benchmark "${FRAMES:-1-100}" "--backend cpu" "job_mpi job_single process_per_frame"
# shellcheck disable=SC2086
plan strong 70 20 $((30 + 25 + cuda_share)) &&
    study strong ${STRONG:---width 640 --height 360 --spp 32 --repeats 1}
# shellcheck disable=SC2086
plan backends 45 15 $((25 + cuda_share)) &&
    study backends ${BACKENDS:---width 640 --height 360 --spp 4 --gpu-spp 4096 --repeats 1}
# shellcheck disable=SC2086
plan weak 35 10 $cuda_share &&
    study weak ${WEAK:---base-width 320 --base-height 90 --spp 32 --repeats 1}
# The GPU's set-up (context, upload) once per job vs once per frame.
[ $has_cuda -eq 1 ] && plan frames_cuda 60 10 0 &&
    frames frames_benchmark_cuda "${FRAMES_CUDA:-1-20}" "--backend cuda" "job_single process_per_frame"

# The frames benchmarks' plots (the studies drew theirs), where matplotlib is here.
$python -c 'import matplotlib' 2>/dev/null &&
    timeout 15 $python scripts/bench/scaling_study.py plot --results "$out" > "$out/logs/plot.log" 2>&1

{
    echo "# Farm studies: frame sequences, strong and weak scaling, backends"
    echo
    echo "- date: $(date -u +%Y-%m-%dT%H:%MZ), $(elapsed) s in all"
    echo "- command: \`scripts/bench/farm_studies.sh $1 $2\` (budget $budget s)"
    echo "- farmrt: $("$build/farmrt" --version 2>/dev/null) ($(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo 'no git'))"
    echo "- logs: logs/; plots: PNG beside each CSV (\`scripts/bench/scaling_study.py plot --results DIR\` draws them from the CSVs)"
    echo
    echo "| step | result | seconds |"
    echo "|---|---|---:|"
    for line in "${summary[@]}"; do echo "| ${line//|/ | } |"; done
    for f in frames_benchmark frames_benchmark_cuda strong_scaling backend_comparison weak_scaling; do
        [ -f "$out/$f.md" ] && { echo; sed 's/^# /## /' "$out/$f.md"; }
    done
} > "$out/farm_studies.md"

echo
printf '%-24s %-36s %s\n' step result seconds
for line in "${summary[@]}"; do
    IFS='|' read -r name verdict seconds <<< "$line"
    printf '%-24s %-36s %7s\n' "$name" "$verdict" "$seconds"
done
echo "total $(elapsed) s (budget $budget s); tables: $out/farm_studies.md"
exit $status
