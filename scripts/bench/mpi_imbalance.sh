#!/usr/bin/env bash
# Where the dynamic schedule's load imbalance comes from, on a many-core node:
# the same still rendered with 8 x 2, 16 x 1 and 8 x 1 ranks x threads under
# several dealer tunings (render/tuning.h: the FARMRT_FARM_* environment), each
# run's imbalance (max busy / mean busy), communication and per-rank busy,
# waiting and tail. Checks that every run wrote the same image bytes.
#
#   scripts/bench/mpi_imbalance.sh BUILD_DIR OUT_DIR
# Environment (defaults): WIDTH (1200), HEIGHT (675), SPP (64), SCENE
# (configs/spheres.yaml), BUDGET (85: seconds; no run starts that would end
# after it), EXTRA ("--backend cpu"), PLAN (the runs, in order: VARIANT:RANKSxTHREADS ...).
# Variants: new (the defaults: CPU ranks weighed by threads, a tail round of
# spp/8), old (measured CPU speeds, no tail round: the farm until the 2026-11-22 H100 measurements),
# pooled (threads, no tail), tail (measured, tail), div4 / div2 (the defaults
# with bands a quarter / half of the fair share), every (the defaults with the
# end-of-round "not now" in every round, not only the last: the farm until 06:30 UTC 2026-11-22).
# Writes OUT_DIR/probe.md (tables) and OUT_DIR/probe_runs.tar.gz (every run's
# --stats JSON and mpirun output); prints probe.md.
set -uo pipefail
cd "$(dirname "$0")/../.."
build=${1:?usage: bench/mpi_imbalance.sh BUILD_DIR OUT_DIR}
out=${2:?usage: bench/mpi_imbalance.sh BUILD_DIR OUT_DIR}
farmrt=$build/farmrt
width=${WIDTH:-1200} height=${HEIGHT:-675} spp=${SPP:-64}
scene=${SCENE:-configs/spheres.yaml}
budget=${BUDGET:-85}
extra=${EXTRA:---backend cpu}
plan=${PLAN:-"new:16x1 old:16x1 new:8x2 old:8x2 new:8x1 old:8x1 new:16x1 new:8x2 new:8x1 pooled:16x1 tail:16x1 div4:16x1 new:16x1 old:8x2 new:8x2"}
mpiexec=${MPIEXEC:-mpirun}

export OMPI_MCA_mca_base_param_files=$PWD/mpi/openmpi-mca-params.conf
if [ "$(id -u)" -eq 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/runs"

variant_environment() {
    case $1 in
    new) echo "" ;;
    old) echo "FARMRT_FARM_WEIGHTS=measured FARMRT_FARM_TAIL=0" ;;
    pooled) echo "FARMRT_FARM_WEIGHTS=pooled FARMRT_FARM_TAIL=0" ;;
    tail) echo "FARMRT_FARM_WEIGHTS=measured" ;;
    div4) echo "FARMRT_FARM_BAND_DIVISOR=4" ;;
    div2) echo "FARMRT_FARM_BAND_DIVISOR=2" ;;
    every) echo "FARMRT_FARM_ENDGAME=every" ;;
    *) echo "unknown variant $1" >&2; return 1 ;;
    esac
}

start=$(date +%s.%N)
elapsed() { python3 -c "print(round($(date +%s.%N) - $start, 1))"; }
longest=0
reference=""
identical=yes
index=0
for entry in $plan; do
    variant=${entry%%:*} shape=${entry#*:}
    ranks=${shape%%x*} threads=${shape#*x}
    environment=$(variant_environment "$variant") || exit 2
    now=$(elapsed)
    if python3 -c "import sys; sys.exit(0 if $now + 1.3 * $longest + 1 > $budget else 1)"; then
        echo "probe: budget: skipping $entry and the rest (${now}s used)" >&2
        break
    fi
    index=$((index + 1))
    name=$(printf "%02d_%s_%s" "$index" "$variant" "$shape")
    run_start=$(date +%s.%N)
    # -x passes each FARMRT_FARM_* setting to every rank (only rank 0 reads them).
    exports=()
    for setting in $environment; do exports+=(-x "$setting"); done
    # shellcheck disable=SC2086
    env $environment timeout 60 "$mpiexec" -n "$ranks" --bind-to none "${exports[@]}" "$farmrt" "$scene" \
        --width "$width" --height "$height" --spp "$spp" --threads "$threads" --schedule dynamic --quiet $extra \
        -o "$work/$name.pfm" --stats "$work/runs/$name.json" >"$work/runs/$name.log" 2>&1
    status=$?
    run_seconds=$(python3 -c "print($(date +%s.%N) - $run_start)")
    longest=$(python3 -c "print(max($longest, $run_seconds))")
    echo "probe: [$(elapsed)s] $name exit $status ($run_seconds s)" >&2
    if [ "$status" -ne 0 ]; then
        tail -5 "$work/runs/$name.log" >&2
        continue
    fi
    if [ -z "$reference" ]; then
        reference=$work/reference.pfm
        mv "$work/$name.pfm" "$reference"
    else
        cmp -s "$reference" "$work/$name.pfm" || identical=no
        rm -f "$work/$name.pfm"
    fi
done

tar -czf "$out/probe_runs.tar.gz" -C "$work" runs
export PROBE_DATE=$(date -u +%Y-%m-%dT%H:%MZ) PROBE_CPU=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')
export PROBE_CORES=$(nproc) PROBE_COMMIT=$(git rev-parse --short HEAD 2>/dev/null || echo "${COMMIT:-unknown}")
export PROBE_COMMAND="scripts/bench/mpi_imbalance.sh $build OUT (WIDTH=$width HEIGHT=$height SPP=$spp SCENE=$scene BUDGET=$budget EXTRA=\"$extra\")"
export PROBE_IDENTICAL=$identical
python3 - "$work/runs" "$out/probe.md" <<'PY'
import glob, json, os, sys
runs, target = sys.argv[1], sys.argv[2]
e = os.environ
lines = ["# MPI dynamic-schedule imbalance probe", "",
         "- date: %s; machine: %s, %s cores online; commit %s" % (e["PROBE_DATE"], e["PROBE_CPU"], e["PROBE_CORES"], e["PROBE_COMMIT"]),
         "- command: `%s`" % e["PROBE_COMMAND"],
         "- every run wrote the same image bytes: %s" % e["PROBE_IDENTICAL"], "",
         "dealer = CPU weights / tail samples / band divisor / rounds with the end-of-round rule; imbalance = max busy / mean busy; comm = busiest rank's MPI seconds / wall; tail = a rank's wait after its last band "
         "(max over ranks); latency = longest idle request; busy spread = slowest/fastest rank busy; rank 0 = its busy / mean busy.", "",
         "| run | variant | ranks x threads | dealer | render (s) | samples/s | imbalance | comm % | waiting % | max tail (s) | max idle latency (ms) | bands | passes | rank 0 busy / mean |",
         "|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
per_rank = []
for path in sorted(glob.glob(os.path.join(runs, "*.json"))):
    name = os.path.basename(path)[:-5]
    _, variant, shape = name.split("_", 2)
    r = json.load(open(path))
    ranks = r["per_rank"]
    busy = [p["busy_seconds"] for p in ranks]
    mean = sum(busy) / len(busy)
    d = r.get("dealer", {})
    dealer = "%s/%s/%s/%s" % (d.get("weights", "?"), d.get("tail_samples", "?"), d.get("band_divisor", "?"), d.get("endgame", "every"))
    lines.append("| %s | %s | %s | %s | %.3f | %.4g | %.3f | %.2f | %.2f | %.3f | %.1f | %d | %s | %.3f |" % (
        name[:2], variant, shape, dealer, r["render_seconds"], r["samples_per_second"], r["load_imbalance"],
        100 * r["communication_fraction"], 100 * r["waiting_fraction_mean"],
        max(p.get("tail_wait_seconds", 0) for p in ranks),
        1000 * max(p.get("request_latency_max_seconds", 0) for p in ranks), r["bands"],
        r.get("frames", {}).get("passes", "?"), busy[0] / mean))
    total_samples = sum(p["samples"] for p in ranks) or 1
    for p in ranks:
        per_rank.append("%s,%s,%s,%d,%d,%.4f,%.4f,%.4f,%.4f,%.4f,%.2f" % (
            name[:2], variant, shape, p["rank"], p["bands"], p["busy_seconds"], p["waiting_seconds"],
            p.get("first_band_wait_seconds", 0), p.get("tail_wait_seconds", 0), p["communicating_seconds"],
            100.0 * p["samples"] / total_samples))
lines += ["", "Per rank:", "```", "run,variant,shape,rank,bands,busy_s,waiting_s,first_wait_s,tail_wait_s,comm_s,samples_pct"]
lines += per_rank + ["```", ""]
open(target, "w").write("\n".join(lines))
PY
# The summary table only on stdout (per-rank rows are in probe.md).
sed -n '1,/^Per rank:/p' "$out/probe.md"
echo "probe: done in $(elapsed)s; per-rank rows and JSON: $out/probe.md, $out/probe_runs.tar.gz" >&2
