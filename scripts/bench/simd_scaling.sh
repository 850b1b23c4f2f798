#!/usr/bin/env bash
# OpenMP scaling of the CPU tracer, separated into what the machine loses
# under an all-core load (frequency, shared caches, neighbours) and what the
# renderer loses (start-up, the last tiles, serial phases):
#   solo     one farmrt process on 1 thread (the machine otherwise idle)
#   ceiling  N farmrt processes on 1 thread each at the same time (N = all
#            cores): the sum of their rates is what N perfectly scaling
#            threads could reach on this machine under a full load
#   threads  one farmrt process on N threads, several variants:
#            split    the default (last tiles split into quarter tiles)
#            nosplit  FARMRT_CPU_TAIL_SPLIT=0 (whole tiles to the end, as before)
#            tile8    --tile 8
#            bind     OMP_PROC_BIND=close OMP_PLACES=cores
#            long     4x the samples (start-up and tail weigh a quarter)
# Efficiency vs 16x1 = rate / (N x solo rate); vs ceiling = rate / ceiling rate.
#
#   scripts/bench/simd_scaling.sh BUILD_DIR OUT_DIR
#
# Writes OUT_DIR/simd_scaling_probe.md (the table) and OUT_DIR/simd_scaling_probe.tar.gz
# (every run's stats JSON and the raw lines), prints the table. Stops adding
# runs after BUDGET seconds (default 80).
# Environment: WIDTH HEIGHT (300x169) SPP (1-thread and ceiling runs, 32)
# SPP_ALL (N-thread runs, 256) SCENES LEVELS (default "off" and the widest
# supported level) VARIANTS (default "split nosplit tile8 bind long") BUDGET
# THREADS (N, default nproc) CHECK_SCENES (default textured.yaml stress.yaml:
# 1 thread, scalar vs the widest level (auto) vs FARMRT_SIMD_TRAVERSAL=wide,
# at CHECK_SPP, default 8).
# Quick check on a small machine: WIDTH=64 HEIGHT=36 SPP=4 SPP_ALL=8.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:?usage: bench/simd_scaling.sh BUILD_DIR OUT_DIR}
out_dir=${2:?usage: bench/simd_scaling.sh BUILD_DIR OUT_DIR}
farmrt=$build/farmrt
width=${WIDTH:-300}
height=${HEIGHT:-169}
spp=${SPP:-32}
spp_all=${SPP_ALL:-256}
budget=${BUDGET:-80}
threads=${THREADS:-$(nproc)}
scenes=${SCENES:-"$root/configs/spheres.yaml $root/configs/many_spheres.yaml"}
variants=${VARIANTS:-"split nosplit tile8 bind long"}
check_scenes=${CHECK_SCENES-"$root/configs/textured.yaml $root/configs/stress.yaml"}
check_spp=${CHECK_SPP:-8}
mkdir -p "$out_dir"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
raw=$work/raw.txt
: > "$raw"
start=$SECONDS

if [ -z "${LEVELS:-}" ]; then
    LEVELS=off
    for level in avx512 avx2 sse4.2; do
        if "$farmrt" "$root/configs/tiny.yaml" --width 4 --height 4 --spp 1 --backend cpu --simd "$level" \
            -o "$work/probe.pfm" --quiet 2>/dev/null; then
            LEVELS="off $level"
            break
        fi
    done
fi

run_count=0
# launch NAME SCENE THREADS SPP LEVEL [farmrt options...]: starts one render in
# the background (environment from the caller), its stats in $work/NAME.json
launch() {
    local name=$1 scene=$2 t=$3 s=$4 level=$5
    shift 5
    run_count=$((run_count + 1))
    "$farmrt" "$scene" --width "$width" --height "$height" --spp "$s" --threads "$t" --backend cpu --simd "$level" \
        -o "$work/$name.pfm" --stats "$work/$name.json" --quiet "$@" 2> "$work/$name.err" &
}
# record KIND SCENE LEVEL THREADS SPP NAME...: one raw line per finished run
record() {
    local kind=$1 scene=$2 level=$3 t=$4 s=$5
    shift 5
    for name in "$@"; do
        python3 - "$work/$name.json" "$kind" "$(basename "$scene")" "$level" "$t" "$s" >> "$raw" <<'PY' || echo "run $name failed: $(cat "$work/$name.err")" >&2
import json, sys
d = json.load(open(sys.argv[1]))
p = d["seconds"]
print(f"kind={sys.argv[2]} scene={sys.argv[3]} level={sys.argv[4]} threads={sys.argv[5]} spp={sys.argv[6]} "
      f"samples_per_second={d['samples_per_second']} render={p['render']:.4f} total={p['total']:.4f} "
      f"parse={p['parse']:.4f} bvh={p['bvh_build']:.4f} write={p['write']:.4f}")
PY
        rm -f "$work/$name.pfm"
    done
}
over_budget() { [ $((SECONDS - start)) -ge "$budget" ]; }

# The SIMD levels' fallback on scenes where the wide traversal does not pay:
# 1 thread, scalar vs the widest level as chosen (auto) vs forced wide.
widest=${LEVELS##* }
for scene in $check_scenes; do
    over_budget && break
    tag=$(basename "$scene" .yaml)
    for r in 1 2; do
        launch "check-$tag-off-$r" "$scene" 1 "$check_spp" off; wait $!
        record check "$scene" off 1 "$check_spp" "check-$tag-off-$r"
        launch "check-$tag-auto-$r" "$scene" 1 "$check_spp" "$widest"; wait $!
        record check "$scene" "$widest" 1 "$check_spp" "check-$tag-auto-$r"
        FARMRT_SIMD_TRAVERSAL=wide launch "check-$tag-wide-$r" "$scene" 1 "$check_spp" "$widest"; wait $!
        record check-wide "$scene" "$widest" 1 "$check_spp" "check-$tag-wide-$r"
    done
done

for scene in $scenes; do
    for level in $LEVELS; do
        over_budget && break 2
        tag=$(basename "$scene" .yaml)-$level
        # solo, twice
        for r in 1 2; do
            launch "solo-$tag-$r" "$scene" 1 "$spp" "$level"; wait $!
            record solo "$scene" "$level" 1 "$spp" "solo-$tag-$r"
        done
        # ceiling: N single-thread processes at once
        pids=""
        names=""
        for p in $(seq "$threads"); do
            launch "ceiling-$tag-$p" "$scene" 1 "$spp" "$level"
            pids="$pids $!"
            names="$names ceiling-$tag-$p"
        done
        wait $pids
        record ceiling "$scene" "$level" 1 "$spp" $names
        # N threads, variants interleaved: split and nosplit twice, the others once
        for r in 1 2; do
            for v in $variants; do
                over_budget && break 3
                [ "$r" = 2 ] && [ "$v" != split ] && [ "$v" != nosplit ] && continue
                name="threads-$v-$tag-$r"
                case $v in
                split) launch "$name" "$scene" "$threads" "$spp_all" "$level"; wait $! ;;
                nosplit) FARMRT_CPU_TAIL_SPLIT=0 launch "$name" "$scene" "$threads" "$spp_all" "$level"; wait $! ;;
                tile8) launch "$name" "$scene" "$threads" "$spp_all" "$level" --tile 8; wait $! ;;
                bind) OMP_PROC_BIND=close OMP_PLACES=cores launch "$name" "$scene" "$threads" "$spp_all" "$level"; wait $! ;;
                long) launch "$name" "$scene" "$threads" $((4 * spp_all)) "$level"; wait $! ;;
                *) echo "unknown variant $v" >&2; continue ;;
                esac
                record "threads-$v" "$scene" "$level" "$threads" "$([ "$v" = long ] && echo $((4 * spp_all)) || echo "$spp_all")" "$name"
            done
        done
    done
done
elapsed=$((SECONDS - start))

python3 - "$raw" "$threads" > "$work/table.md" <<'PY'
import collections, statistics, sys
raw, n = sys.argv[1], int(sys.argv[2])
runs = collections.defaultdict(list)
for line in open(raw):
    f = dict(kv.split("=", 1) for kv in line.split())
    runs[(f["scene"], f["level"], f["kind"])].append(f)
name = lambda level: "scalar" if level == "off" else level
rate = lambda f: float(f["samples_per_second"])
keys = list(dict.fromkeys((k[0], k[1]) for k in runs))
print(f"| scene | level | run | samples/s | vs {n} x solo | vs ceiling | render s | process s (load+bvh+render+write) |")
print("|---|---|---|---:|---:|---:|---:|---:|")
for scene, level in keys:
    solo = runs.get((scene, level, "solo"), [])
    ceiling = runs.get((scene, level, "ceiling"), [])
    solo_rate = max(rate(f) for f in solo) if solo else None
    # ceiling: N processes ran together; their summed rates (each over its own render phase)
    ceiling_rate = sum(rate(f) for f in ceiling) if len(ceiling) == n else None
    if solo_rate:
        print(f"| {scene} | {name(level)} | solo 1 thread (best of {len(solo)}) | {solo_rate:.4g} | - | - | "
              f"{statistics.median(float(f['render']) for f in solo):.2f} | {statistics.median(float(f['total']) for f in solo):.2f} |")
    if ceiling_rate:
        per = sorted(rate(f) for f in ceiling)
        vs = f"{100 * ceiling_rate / (n * solo_rate):.0f}%" if solo_rate else "-"
        print(f"| {scene} | {name(level)} | ceiling: {n} x 1-thread processes (per process {per[0]:.3g}-{per[-1]:.3g}) | "
              f"{ceiling_rate:.4g} | {vs} | 100% | {statistics.median(float(f['render']) for f in ceiling):.2f} | "
              f"{statistics.median(float(f['total']) for f in ceiling):.2f} |")
    for kind in ("check", "check-wide"):
        fs = runs.get((scene, level, kind))
        if fs:
            base = runs.get((scene, "off", "check"))
            m = statistics.median(rate(f) for f in fs)
            vs = f", {m / statistics.median(rate(f) for f in base):.2f}x scalar" if base and level != "off" else ""
            label = "1 thread, " + ("forced wide traversal" if kind == "check-wide" else "as chosen") + vs
            print(f"| {scene} | {name(level)} | {label} (median of {len(fs)}) | {m:.4g} | - | - | "
                  f"{statistics.median(float(f['render']) for f in fs):.2f} | {statistics.median(float(f['total']) for f in fs):.2f} |")
    for kind in sorted(k[2] for k in runs if k[0] == scene and k[1] == level and k[2].startswith("threads-")):
        fs = runs[(scene, level, kind)]
        best = max(rate(f) for f in fs)
        a = f"{100 * best / (n * solo_rate):.0f}%" if solo_rate else "-"
        b = f"{100 * best / ceiling_rate:.0f}%" if ceiling_rate else "-"
        all_rates = ", ".join(f"{rate(f):.3g}" for f in fs)
        f0 = max(fs, key=rate)
        print(f"| {scene} | {name(level)} | {n} threads, {kind[8:]} ({f0['spp']} spp; runs {all_rates}) | {best:.4g} | {a} | {b} | "
              f"{float(f0['render']):.2f} | {float(f0['total']):.2f} (load {float(f0['parse']):.2f}, bvh {float(f0['bvh']):.2f}, write {float(f0['write']):.2f}) |")
PY

{
    echo "# CPU tracer scaling probe"
    echo
    echo "- date: $(date -u +%Y-%m-%dT%H:%MZ); took ${elapsed} s, $run_count farmrt runs"
    echo "- machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) hardware threads, $(uname -sr)"
    echo "- command: scripts/bench/simd_scaling.sh $build $out_dir (${width}x${height}; solo and ceiling ${spp} spp on 1 thread; $threads threads ${spp_all} spp; levels: $LEVELS)"
    echo "- $(git -C "$root" log -1 --format='commit %h %s' 2>/dev/null | cut -c1-80 || echo 'no git')"
    echo "- best of the runs for the thread variants; 'vs ceiling' separates our losses from the machine's all-core slowdown"
    echo
    cat "$work/table.md"
} > "$out_dir/simd_scaling_probe.md"
cp "$raw" "$work/simd_scaling_probe_raw.txt"
{ lscpu; grep MHz /proc/cpuinfo; } > "$work/machine.txt" 2>&1 || true
tar -czf "$out_dir/simd_scaling_probe.tar.gz" -C "$work" --exclude='*.pfm' .
cat "$out_dir/simd_scaling_probe.md"
