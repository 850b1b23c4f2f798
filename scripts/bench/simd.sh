#!/usr/bin/env bash
# Whole-frame samples per second of the CPU tracer, scalar vs each SIMD level
# this CPU supports, on 1 thread and on all threads, for configs/spheres.yaml
# and configs/many_spheres.yaml (10,404 spheres), with the OpenMP scaling
# efficiency (all-thread rate / (threads x 1-thread rate)) of every level.
# The machine's own all-core slowdown (turbo falls with the load, shared L3 and
# memory, noisy neighbours) is measured apart from the renderer's losses: the
# "ceiling" of a level is N farmrt processes on 1 thread each, all at once
# (N = all hardware threads), their rates summed: what N perfectly scaling
# threads could reach. Efficiency is given against N x the 1-thread rate and
# against that ceiling.
# Every figure is the median of the repeats; within a repeat the levels run
# one after another, so that a noisy machine slows them alike, and ratios are
# taken within this run; "vs scalar within repeats" is the median (and
# quartiles) of each repeat's own ratio, steadier than the ratio of medians on
# a host whose speed drifts between repeats. Only the render phase is timed
# (farmrt --stats).
#
#   scripts/bench/simd.sh BUILD_DIR [OUT_DIR]
#
# BUILD_DIR holds farmrt (any build: scripts/gpu_build_and_test.sh's CUDA
# build too; the runs pin --backend cpu). With OUT_DIR, writes there:
# simd_frames.md (the table, machine and command), simd_frames_raw.txt (every
# run) and simd_machine.txt; the table is printed either way.
# Repeats stop early when another would overrun BUDGET seconds (default 135;
# at least one repeat always runs), then a thread sweep runs if time is left.
# Environment: WIDTH HEIGHT (default 300x169) SPP (1-thread runs, default 32)
# SPP_ALL (all-thread runs, default 512) REPEATS (default 3) SCENES THREADS
# (default "1 all") LEVELS (default: off and every supported level) BUDGET
# SWEEP (thread counts of the sweep, default none; e.g. "2 4 8") CEILING (1:
# measure the ceiling, default when there is more than one hardware thread)
# CHECK_SCENES (scenes rendered once on all threads, scalar vs the widest
# level, at SPP_ALL/4: the SIMD level must not be slower; default
# textured.yaml stress.yaml; "" for none).
# Quick check on a small machine: WIDTH=64 HEIGHT=36 SPP=2 SPP_ALL=4 REPEATS=1.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:?usage: bench/simd.sh BUILD_DIR [OUT_DIR]}
out_dir=${2:-}
farmrt=$build/farmrt
width=${WIDTH:-300}
height=${HEIGHT:-169}
spp=${SPP:-32}
spp_all=${SPP_ALL:-512}
repeats=${REPEATS:-3}
budget=${BUDGET:-135}
scenes=${SCENES:-"$root/configs/spheres.yaml $root/configs/many_spheres.yaml"}
threads_all=$(nproc)
thread_counts=${THREADS:-"1 all"}
sweep=${SWEEP-}
ceiling=${CEILING:-$([ "$threads_all" -gt 1 ] && echo 1 || echo 0)}
check_scenes=${CHECK_SCENES-"$root/configs/textured.yaml $root/configs/stress.yaml"}
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

# run_once SCENE THREADS SPP LEVEL REPEAT [KIND [TAG]]: appends one line to $raw
# (KIND: run, the default, or ceiling; TAG: a distinct name for runs that go
# at the same time)
run_once() {
    local value kind=${6:-run} tag=${7:-0}
    "$farmrt" "$1" --width "$width" --height "$height" --spp "$3" --threads "$2" --backend cpu --simd "$4" \
        -o "$tmp/out-$tag.pfm" --stats "$tmp/stats-$tag.json" --quiet
    value=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["samples_per_second"])' "$tmp/stats-$tag.json")
    echo "scene=$(basename "$1") threads=$2 spp=$3 level=$4 repeat=$5 kind=$kind samples_per_second=$value" >> "$raw"
}

# The ceiling of SCENE LEVEL: threads_all 1-thread processes at once.
run_ceiling() {
    local pids="" p
    for p in $(seq "$threads_all"); do
        run_once "$1" 1 "$spp" "$2" ceiling ceiling "c$p" &
        pids="$pids $!"
    done
    wait $pids
}

threads_of() { [ "$1" = all ] && echo "$threads_all" || echo "$1"; }
spp_of() { [ "$1" = 1 ] && echo "$spp" || echo "$spp_all"; }

done_repeats=0
one_thread_seconds=0  # the 1-thread runs of the first repeat: the ceiling runs take about 1.5x that
for repeat in $(seq "$repeats"); do
    for scene in $scenes; do
        for t in $thread_counts; do
            threads=$(threads_of "$t")
            t_start=$SECONDS
            for level in $LEVELS; do run_once "$scene" "$threads" "$(spp_of "$threads")" "$level" "$repeat"; done
            [ "$repeat" = 1 ] && [ "$threads" = 1 ] && one_thread_seconds=$((one_thread_seconds + SECONDS - t_start))
        done
    done
    done_repeats=$repeat
    elapsed=$((SECONDS - start))
    reserve=$(( (ceiling == 1 ? one_thread_seconds * 3 / 2 + 2 : 0) + ($(echo $check_scenes | wc -w) > 0 ? 12 : 0) ))
    if [ "$repeat" -lt "$repeats" ] && [ $((elapsed + elapsed / repeat + reserve + 5)) -gt "$budget" ]; then
        echo "bench/simd.sh: stopping after $repeat of $repeats repeats (${elapsed}s of a ${budget}s budget, ${reserve}s kept for the ceiling and checks)" >&2
        break
    fi
done

if [ "$ceiling" = 1 ]; then
    for scene in $scenes; do
        for level in $LEVELS; do run_ceiling "$scene" "$level"; done
    done
fi

widest=${LEVELS##* }
for scene in $check_scenes; do
    if [ $((SECONDS - start + 10)) -gt "$budget" ]; then
        echo "bench/simd.sh: no time left for $(basename "$scene")" >&2
        continue
    fi
    for level in off "$widest"; do run_once "$scene" "$threads_all" $((spp_all / 4)) "$level" check check; done
done

# Thread sweep for the scaling curve: scalar and the widest level, one run
# per point, while the budget lasts.
swept=""
for threads in $sweep; do
    [ "$threads" -ge "$threads_all" ] && continue
    for scene in $scenes; do
        elapsed=$((SECONDS - start))
        per_run=$(( elapsed / (done_repeats * $(echo $scenes | wc -w) * $(echo $thread_counts | wc -w) * $(echo $LEVELS | wc -w) + 1) + 1 ))
        if [ $((elapsed + 2 * per_run + 5)) -gt "$budget" ]; then continue; fi
        for level in off "$widest"; do run_once "$scene" "$threads" "$spp_all" "$level" sweep; done
        swept="$swept $threads"
    done
done

python3 - "$raw" "$LEVELS" "$threads_all" > "$tmp/table.md" <<'PY'
import collections, sys
raw, levels, threads_all = sys.argv[1], sys.argv[2].split(), int(sys.argv[3])
runs = collections.defaultdict(list)
by_repeat = {}  # (scene, threads, level, repeat) -> samples/s of the timed runs
for line in open(raw):
    f = dict(kv.split("=", 1) for kv in line.split())
    runs[(f["scene"], int(f["threads"]), f["level"], f.get("kind", "run"))].append(float(f["samples_per_second"]))
    if f.get("kind", "run") == "run":
        by_repeat[(f["scene"], int(f["threads"]), f["level"], f["repeat"])] = float(f["samples_per_second"])
def median(v):
    v = sorted(v)
    return v[len(v) // 2] if len(v) % 2 else 0.5 * (v[len(v) // 2 - 1] + v[len(v) // 2])
def quartiles(v):
    v = sorted(v)
    return median(v[:len(v) // 2]), median(v[(len(v) + 1) // 2:])
# The level's rate over scalar's within each repeat (they ran back to back, so
# a slow spell of a noisy host slows both): median and quartiles.
def paired(scene, threads, level):
    ratios = [rate / by_repeat[(scene, threads, "off", r)] for (s, t, l, r), rate in by_repeat.items()
              if (s, t, l) == (scene, threads, level) and (scene, threads, "off", r) in by_repeat]
    if not ratios: return "-"
    if len(ratios) < 4: return f"{median(ratios):.2f}x"
    low, high = quartiles(ratios)
    return f"{median(ratios):.2f}x ({low:.2f}-{high:.2f})"
name = lambda level: "scalar" if level == "off" else level
pct = lambda x: f"{100 * x:.0f}%"
scenes = list(dict.fromkeys(k[0] for k in runs if k[3] == "run"))
print(f"| scene | threads | level | samples/s (median) | runs | vs scalar | vs scalar within repeats (quartiles) | "
      f"efficiency vs {threads_all} x 1 thread | efficiency vs ceiling (ours) |")
print("|---|---:|---|---:|---:|---:|---:|---:|---:|")
summary = []
for scene in scenes:
    thread_counts = sorted(set(k[1] for k in runs if k[0] == scene and k[3] == "run"))
    for threads in thread_counts:
        for level in levels:
            v = runs.get((scene, threads, level, "run"))
            if not v: continue
            m = median(v)
            base = runs.get((scene, threads, "off", "run"))
            ratio = f"{m / median(base):.2f}x" if base else "-"
            one = runs.get((scene, 1, level, "run"))
            eff = pct(m / (threads * median(one))) if one and threads > 1 else "-"
            ceiling = runs.get((scene, 1, level, "ceiling"))
            ours = "-"
            if threads == threads_all and threads > 1 and ceiling and len(ceiling) == threads_all:
                ours = pct(m / sum(ceiling))
                summary.append((scene, level, m, sum(ceiling), median(one) if one else None, min(ceiling), max(ceiling)))
            within = paired(scene, threads, level) if base else "-"
            print(f"| {scene} | {threads} | {name(level)} | {m:.4g} | {len(v)} | {ratio} | {within} | {eff} | {ours} |")
if summary:
    print()
    print(f"Ceiling = {threads_all} farmrt processes on 1 thread each, at the same time; its rate is the sum of theirs. "
          f"The machine's all-core factor = ceiling / ({threads_all} x the 1-thread rate): what the hardware "
          f"loses under a full load, before any loss of ours.")
    print()
    print(f"| scene | level | 1 thread | ceiling ({threads_all} x 1-thread processes) | per process (min-max) | "
          f"machine's all-core factor | {threads_all} threads | ours (vs ceiling) | overall (vs {threads_all} x 1) |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for scene, level, m, c, one, lo, hi in summary:
        factor = pct(c / (threads_all * one)) if one else "-"
        overall = pct(m / (threads_all * one)) if one else "-"
        print(f"| {scene} | {name(level)} | {one:.4g} | {c:.4g} | {lo:.3g}-{hi:.3g} | {factor} | {m:.4g} | {pct(m / c)} | {overall} |")
checks = list(dict.fromkeys(k[0] for k in runs if k[3] == "check"))
if checks:
    print()
    print(f"Scenes where SIMD levels fall back to the scalar path or gain little ({threads_all} threads, one run each):")
    print()
    print("| scene | level | samples/s | vs scalar |")
    print("|---|---|---:|---:|")
    for scene in checks:
        base = runs.get((scene, threads_all, "off", "check"))
        for key in sorted((k for k in runs if k[0] == scene and k[3] == "check"), key=lambda k: k[2] != "off"):
            v = runs[key]
            print(f"| {scene} | {name(key[2])} | {median(v):.4g} | {median(v) / median(base):.2f}x |" if base else
                  f"| {scene} | {name(key[2])} | {median(v):.4g} | - |")
PY

{
    echo "# SIMD CPU tracer: whole frames"
    echo
    echo "- date: $(date -u +%Y-%m-%dT%H:%MZ)"
    echo "- machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $threads_all hardware threads, $(uname -sr)"
    echo "- command: scripts/bench/simd.sh $build ${out_dir} (${width}x${height}, $spp spp on 1 thread, $spp_all spp on more threads, median of $done_repeats repeats; sweep threads:${swept:- none})"
    echo "- farmrt: $("$farmrt" --version 2>&1 | head -1); levels: $LEVELS; $(git -C "$root" log -1 --format='commit %h %s' 2>/dev/null | cut -c1-80 || echo 'no git')"
    echo "- efficiency vs N x 1 thread = samples/s on N threads / (N x samples/s on 1 thread), same level; vs ceiling = samples/s on N threads / the summed rate of N 1-thread processes run at once (the goal is judged on this one: ours); took $((SECONDS - start)) s"
    echo
    cat "$tmp/table.md"
} > "$tmp/report.md"

if [ -n "$out_dir" ]; then
    cp "$tmp/report.md" "$out_dir/simd_frames.md"
    { lscpu; echo; g++ --version 2>/dev/null | head -1; } > "$out_dir/simd_machine.txt" 2>&1 || true
fi
cat "$tmp/report.md"
