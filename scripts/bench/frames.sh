#!/usr/bin/env bash
# Set-up once per job vs once per frame: a sequence of small frames (default
# 100 frames of 64x64 at 1 spp) rendered
#   - in one MPI job (mpirun -n RANKS farmrt --frames 1-100): parse, BVH and
#     renderer set-up once, (frame, band) items dealt dynamically to all ranks;
#   - in one process without mpirun (--frames 1-100);
#   - one farmrt process per frame (all cores each), one after another;
#   - one mpirun -n RANKS job per frame.
# Checks that every mode wrote the same bytes, then writes a CSV and a
# markdown table (wall time, per frame, speedup over a process per frame).
#   scripts/bench/frames.sh [BUILD_DIR] [RANKS]
# Environment: SCENES (default "configs/spheres.yaml configs/many_spheres.yaml"),
#   FRAMES (1-100), WIDTH, HEIGHT (64), SPP (1), MPIEXEC (mpirun), RESULTS (results),
#   MODES (default "job_mpi job_single process_per_frame mpirun_per_frame"),
#   FARMRT_OPTIONS (more farmrt options for every run, e.g. "--backend cpu"),
#   NAME (frames_benchmark: RESULTS/NAME.csv and RESULTS/NAME.md).
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
ranks=${2:-$(nproc)}
farmrt=$(realpath "$build/farmrt")
scenes=${SCENES:-configs/spheres.yaml configs/many_spheres.yaml}
frames=${FRAMES:-1-100}
width=${WIDTH:-64}
height=${HEIGHT:-64}
spp=${SPP:-1}
mpiexec=${MPIEXEC:-mpirun}
results=${RESULTS:-results}
name=${NAME:-frames_benchmark}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_mca_base_param_files=${OMPI_MCA_mca_base_param_files:-$PWD/mpi/openmpi-mca-params.conf}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$results"
first=${frames%%-*}
last=${frames##*-}
count=$((last - first + 1))
read -r -a extra_options <<< "${FARMRT_OPTIONS:-}"
size=(--width "$width" --height "$height" --spp "$spp" --quiet "${extra_options[@]}")

now() { date +%s.%N; }
elapsed() { python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.3f}')" "$1" "$2"; }

csv=$results/$name.csv
echo "scene,mode,ranks,frames,width,height,spp,wall_seconds,seconds_per_frame,speedup_vs_process_per_frame" > "$csv"
rows=()
for scene in $scenes; do
    label=$(basename "$scene" .yaml)
    declare -A wall=()
    run_mode() {  # mode, then the commands run by the mode's function
        local mode=$1 start end
        rm -rf "$tmp/$mode" && mkdir -p "$tmp/$mode"
        start=$(now)
        "mode_$mode" "$tmp/$mode"
        end=$(now)
        wall[$mode]=$(elapsed "$start" "$end")
        echo "benchmark_frames: $label $mode: ${wall[$mode]} s" >&2
    }
    mode_job_mpi() { "$mpiexec" -n "$ranks" "$farmrt" "$scene" "${size[@]}" --frames "$frames" -o "$1/f_####.pfm"; }
    mode_job_single() { "$farmrt" "$scene" "${size[@]}" --frames "$frames" -o "$1/f_####.pfm"; }
    mode_process_per_frame() {
        for ((f = first; f <= last; f++)); do "$farmrt" "$scene" "${size[@]}" --frames "$f" -o "$1/f_####.pfm"; done
    }
    mode_mpirun_per_frame() {
        for ((f = first; f <= last; f++)); do
            "$mpiexec" -n "$ranks" "$farmrt" "$scene" "${size[@]}" --frames "$f" -o "$1/f_####.pfm"
        done
    }
    read -r -a modes <<< "${MODES:-job_mpi job_single process_per_frame mpirun_per_frame}"
    for mode in "${modes[@]}"; do run_mode "$mode"; done
    for mode in "${modes[@]}"; do
        if ! diff -rq "$tmp/${modes[0]}" "$tmp/$mode" >/dev/null; then
            echo "benchmark_frames: $mode wrote different images than a process per frame" >&2
            exit 1
        fi
    done
    base=${wall[process_per_frame]:-${wall[${modes[0]}]}}
    for mode in "${modes[@]}"; do
        mode_ranks=$ranks
        [[ $mode == job_single || $mode == process_per_frame ]] && mode_ranks=1
        line=$(python3 -c "
import sys
wall, base, count = float(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3])
print(f'{wall:.3f},{wall / count * 1000:.2f},{base / wall:.2f}')" "${wall[$mode]}" "$base" "$count")
        IFS=, read -r w per speedup <<< "$line"
        echo "$label,$mode,$mode_ranks,$count,$width,$height,$spp,$w,$(python3 -c "print(${per}/1000)"),$speedup" >> "$csv"
        rows+=("| $label | $mode | $mode_ranks | $w | $per | ${speedup}x |")
    done
    unset wall
done

{
    echo "# Frame sequences: set-up once per job vs once per frame"
    echo
    echo "- date: $(date -u +%Y-%m-%dT%H:%MZ)"
    echo "- machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) hardware threads, $(uname -sr)"
    echo "- command: ${FARMRT_OPTIONS:+FARMRT_OPTIONS=\"$FARMRT_OPTIONS\" }scripts/bench/frames.sh $build $ranks (frames $frames, ${width}x${height}, $spp spp)"
    echo "- farmrt: $("$farmrt" --version)"
    echo "- modes: job_mpi = one \`mpirun -n $ranks farmrt --frames $frames\`; job_single = one farmrt process, no mpirun;"
    echo "  process_per_frame = one farmrt process (all cores) per frame; mpirun_per_frame = one \`mpirun -n $ranks\` per frame."
    echo "  Every mode wrote byte-identical images (checked). CSV: $csv"
    echo
    echo "| scene | mode | ranks | wall s | ms per frame | speedup vs process per frame |"
    echo "|---|---|---:|---:|---:|---:|"
    printf '%s\n' "${rows[@]}"
    echo
    # The plot: scripts/bench/scaling_study.py plot draws it from the CSV (and puts its link here).
    echo "plot: $name.png not drawn (no matplotlib here): \`scripts/bench/scaling_study.py plot --results DIR\` draws it"
} > "$results/$name.md"
cat "$results/$name.md"
