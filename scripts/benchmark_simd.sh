#!/usr/bin/env bash
# Whole-frame samples per second of the CPU tracer, scalar vs each SIMD level
# this CPU supports, on 1 thread and on all threads, for configs/spheres.yaml
# and configs/many_spheres.yaml (10,404 spheres), with the OpenMP scaling
# efficiency (all-thread rate / (threads x 1-thread rate)) of every level.
# Every figure is the median of the repeats; within a repeat the levels run
# one after another, so that a noisy machine slows them alike, and ratios are
# taken within this run. Only the render phase is timed (farmrt --stats).
#
#   scripts/benchmark_simd.sh BUILD_DIR [OUT_DIR]
#
# BUILD_DIR holds farmrt (any build: scripts/gpu_build_and_test.sh's CUDA
# build too; the runs pin --backend cpu). With OUT_DIR, writes there:
# simd_frames.md (the table, machine and command), simd_frames_raw.txt (every
# run) and simd_machine.txt; the table is printed either way.
# Repeats stop early when another would overrun BUDGET seconds (default 150;
# at least one repeat always runs), then a thread sweep runs if time is left.
# Environment: WIDTH HEIGHT (default 300x169) SPP (1-thread runs, default 32)
# SPP_ALL (all-thread runs, default 256) REPEATS (default 3) SCENES THREADS
# (default "1 all") LEVELS (default: off and every supported level) BUDGET
# SWEEP (thread counts of the sweep, default "2 4 8"; "" for none).
# Quick check on a small machine: WIDTH=64 HEIGHT=36 SPP=2 SPP_ALL=4 REPEATS=1.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:?usage: benchmark_simd.sh BUILD_DIR [OUT_DIR]}
out_dir=${2:-}
farmrt=$build/farmrt
width=${WIDTH:-300}
height=${HEIGHT:-169}
spp=${SPP:-32}
spp_all=${SPP_ALL:-256}
repeats=${REPEATS:-3}
budget=${BUDGET:-150}
scenes=${SCENES:-"$root/configs/spheres.yaml $root/configs/many_spheres.yaml"}
threads_all=$(nproc)
thread_counts=${THREADS:-"1 all"}
sweep=${SWEEP-"2 4 8"}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ -n "$out_dir" ]; then mkdir -p "$out_dir"; raw=$out_dir/simd_frames_raw.txt; else raw=$tmp/raw.txt; fi
: > "$raw"
start=$SECONDS

if [ -z "${LEVELS:-}" ]; then
    LEVELS=off
    for level in sse4.2 avx2 avx512; do
        if "$farmrt" "$root/configs/tiny.yaml" --width 4 --height 4 --spp 1 --backend cpu --simd "$level" \
            -o "$tmp/probe.pfm" --quiet 2>/dev/null; then
            LEVELS="$LEVELS $level"
        fi
    done
fi

# run_once SCENE THREADS SPP LEVEL REPEAT: appends one line to $raw
run_once() {
    local value
    "$farmrt" "$1" --width "$width" --height "$height" --spp "$3" --threads "$2" --backend cpu --simd "$4" \
        -o "$tmp/out.pfm" --stats "$tmp/stats.json" --quiet
    value=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["samples_per_second"])' "$tmp/stats.json")
    echo "scene=$(basename "$1") threads=$2 spp=$3 level=$4 repeat=$5 samples_per_second=$value" >> "$raw"
}

threads_of() { [ "$1" = all ] && echo "$threads_all" || echo "$1"; }
spp_of() { [ "$1" = 1 ] && echo "$spp" || echo "$spp_all"; }

done_repeats=0
for repeat in $(seq "$repeats"); do
    for scene in $scenes; do
        for t in $thread_counts; do
            threads=$(threads_of "$t")
            for level in $LEVELS; do run_once "$scene" "$threads" "$(spp_of "$threads")" "$level" "$repeat"; done
        done
    done
    done_repeats=$repeat
    elapsed=$((SECONDS - start))
    if [ "$repeat" -lt "$repeats" ] && [ $((elapsed + elapsed / repeat + 5)) -gt "$budget" ]; then
        echo "benchmark_simd.sh: stopping after $repeat of $repeats repeats (${elapsed}s of a ${budget}s budget)" >&2
        break
    fi
done

# Thread sweep for the scaling curve: scalar and the widest level, one run
# per point, while the budget lasts.
widest=${LEVELS##* }
swept=""
for threads in $sweep; do
    [ "$threads" -ge "$threads_all" ] && continue
    for scene in $scenes; do
        elapsed=$((SECONDS - start))
        per_run=$(( elapsed / (done_repeats * $(echo $scenes | wc -w) * $(echo $thread_counts | wc -w) * $(echo $LEVELS | wc -w)) + 1 ))
        if [ $((elapsed + 2 * per_run + 5)) -gt "$budget" ]; then continue; fi
        for level in off "$widest"; do run_once "$scene" "$threads" "$spp_all" "$level" sweep; done
        swept="$swept $threads"
    done
done

python3 - "$raw" "$LEVELS" "$threads_all" > "$tmp/table.md" <<'PY'
import collections, re, sys
raw, levels, threads_all = sys.argv[1], sys.argv[2].split(), int(sys.argv[3])
runs = collections.defaultdict(list)
for line in open(raw):
    f = dict(kv.split("=", 1) for kv in line.split())
    runs[(f["scene"], int(f["threads"]), f["level"])].append(float(f["samples_per_second"]))
def median(v):
    v = sorted(v)
    return v[len(v) // 2] if len(v) % 2 else 0.5 * (v[len(v) // 2 - 1] + v[len(v) // 2])
name = lambda level: "scalar" if level == "off" else level
scenes = list(dict.fromkeys(k[0] for k in runs))
print("| scene | threads | level | samples/s (median) | runs | vs scalar | parallel efficiency |")
print("|---|---:|---|---:|---:|---:|---:|")
for scene in scenes:
    thread_counts = sorted(set(k[1] for k in runs if k[0] == scene))
    for threads in thread_counts:
        for level in levels:
            if (scene, threads, level) not in runs: continue
            m = median(runs[(scene, threads, level)])
            base = runs.get((scene, threads, "off"))
            ratio = f"{m / median(base):.2f}x" if base else "-"
            one = runs.get((scene, 1, level))
            eff = f"{100 * m / (threads * median(one)):.0f}%" if one and threads > 1 else "-"
            print(f"| {scene} | {threads} | {name(level)} | {m:.4g} | {len(runs[(scene, threads, level)])} | {ratio} | {eff} |")
PY

{
    echo "# SIMD CPU tracer: whole frames"
    echo
    echo "- date: $(date -u +%Y-%m-%dT%H:%MZ)"
    echo "- machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $threads_all hardware threads, $(uname -sr)"
    echo "- command: scripts/benchmark_simd.sh $build ${out_dir} (${width}x${height}, $spp spp on 1 thread, $spp_all spp on more threads, median of $done_repeats repeats; sweep threads:${swept:- none})"
    echo "- farmrt: $("$farmrt" --version 2>&1 | head -1); levels: $LEVELS; $(git -C "$root" log -1 --format='commit %h %s' 2>/dev/null | cut -c1-80 || echo 'no git')"
    echo "- parallel efficiency = samples/s on N threads / (N x samples/s on 1 thread), same level; took $((SECONDS - start)) s"
    echo
    cat "$tmp/table.md"
} > "$tmp/report.md"

if [ -n "$out_dir" ]; then
    cp "$tmp/report.md" "$out_dir/simd_frames.md"
    { lscpu; echo; g++ --version 2>/dev/null | head -1; } > "$out_dir/simd_machine.txt" 2>&1 || true
fi
cat "$tmp/report.md"
