#!/usr/bin/env bash
# Scaling of the MPI farm on one node: the same frame rendered with 1, 2, 4, 8
# and 16 ranks, threads per rank chosen so that ranks x threads = cores, under
# each schedule (dynamic, static, cyclic). Writes a Markdown table and a CSV:
# ranks, threads per rank, schedule, wall, samples/s, load imbalance, parallel
# efficiency, communication and waiting fractions, plus the machine, the
# command and the date (RESULTS.md, RESULTS.csv; every rank of each kept run in
# RESULTS_ranks.csv). Also checks that every run wrote the same image bytes.
#
#   scripts/bench/mpi.sh [BUILD_DIR]          (default build/)
# Environment (defaults): CORES (nproc), RANKS ("1 2 4 8 16"), SCHEDULES
# ("dynamic static cyclic"), WIDTH (1200), HEIGHT (675), SPP (64), REPEATS (1;
# the run with the median wall is kept), SCENE (configs/spheres.yaml),
# RESULTS (results/mpi_scaling: writes .md and .csv), EXTRA (more farmrt options; "--backend cpu"),
# COMMIT (the commit to name when the tree has no .git).
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
farmrt=$build/farmrt
cores=${CORES:-$(nproc)}
ranks_list=${RANKS:-"1 2 4 8 16"}
schedules=${SCHEDULES:-"dynamic static cyclic"}
width=${WIDTH:-1200} height=${HEIGHT:-675} spp=${SPP:-64} repeats=${REPEATS:-1}
scene=${SCENE:-configs/spheres.yaml}
results=${RESULTS:-results/mpi_scaling}
extra=${EXTRA---backend cpu}  # the CPU farm (a CUDA build would give node-local rank 0 the GPU); EXTRA="" for none
mpiexec=${MPIEXEC:-mpirun}

# The settings scripts/configure_openmpi.sh installs, read from the repository
# so that the benchmark also runs where set-up has not been done.
export OMPI_MCA_mca_base_param_files=$PWD/mpi/openmpi-mca-params.conf
if [ "$(id -u)" -eq 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
reference=""
identical=yes
runs=0
echo "benchmark_mpi: $scene ${width}x${height} ${spp} spp on $cores cores" >&2
for ranks in $ranks_list; do
    threads=$((cores / ranks))
    [ "$threads" -ge 1 ] || threads=1
    for schedule in $schedules; do
        for repeat in $(seq "$repeats"); do
            name="r${ranks}_${schedule}_${repeat}"
            start=$(date +%s.%N)
            # shellcheck disable=SC2086
            "$mpiexec" -n "$ranks" --bind-to none "$farmrt" "$scene" --width "$width" --height "$height" \
                --spp "$spp" --threads "$threads" --schedule "$schedule" --quiet $extra \
                -o "$work/$name.pfm" --stats "$work/$name.json"
            end=$(date +%s.%N)
            python3 -c "print($end - $start)" >"$work/$name.launch"
            if [ -z "$reference" ]; then
                reference=$work/reference.pfm
                mv "$work/$name.pfm" "$reference"
            else
                cmp -s "$reference" "$work/$name.pfm" || identical=no
                rm -f "$work/$name.pfm"
            fi
            runs=$((runs + 1))
            echo "benchmark_mpi: $ranks ranks x $threads threads, $schedule: $(cat "$work/$name.launch")s" >&2
        done
    done
done

machine_cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')
mpi_version=$("$mpiexec" --version 2>/dev/null | head -1)
commit=${COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}
command="scripts/bench/mpi.sh $build (CORES=$cores RANKS=\"$ranks_list\" SCHEDULES=\"$schedules\" WIDTH=$width HEIGHT=$height SPP=$spp REPEATS=$repeats SCENE=$scene${extra:+ EXTRA=\"$extra\"})"
mkdir -p "$(dirname "$results")"
export BENCH_DATE=$(date -u +%Y-%m-%dT%H:%MZ) BENCH_CPU=$machine_cpu BENCH_CORES=$cores BENCH_ONLINE=$(nproc)
export BENCH_KERNEL=$(uname -sr) BENCH_MPI=$mpi_version BENCH_FARMRT="$("$farmrt" --version) (commit $commit)"
export BENCH_SCENE="$scene at ${width}x${height}, $spp spp" BENCH_COMMAND=$command
python3 - "$work" "$results" "$runs" "$identical" <<'PY'
import glob, json, os, statistics, sys
work, results, runs, identical = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
rows = {}
for path in glob.glob(os.path.join(work, "r*.json")):
    name = os.path.basename(path)[:-5]
    ranks, schedule, repeat = name[1:].split("_")
    report = json.load(open(path))
    report["launch_wall"] = float(open(os.path.join(work, name + ".launch")).read())
    rows.setdefault((int(ranks), schedule), []).append(report)
order = {"dynamic": 0, "static": 1, "cyclic": 2}
chosen = {}
for key, reports in rows.items():
    reports.sort(key=lambda r: r["wall_seconds"])
    chosen[key] = reports[len(reports) // 2]  # the median wall
base = chosen.get((1, "dynamic")) or chosen[min(chosen)]
base_rate = base["samples_per_second"]
columns = ["ranks", "threads_per_rank", "schedule", "bands", "wall_s", "mpirun_wall_s", "samples_per_s",
           "load_imbalance", "parallel_efficiency", "speed_vs_1_rank", "comm_fraction_max",
           "waiting_fraction_mean", "idle_request_latency_mean_ms", "idle_request_latency_max_ms", "backend"]
lines = []
for key in sorted(chosen, key=lambda k: (k[0], order.get(k[1], 9))):
    r = chosen[key]
    per_rank = r["per_rank"]
    latencies = [p for p in per_rank if "request_latency_mean_seconds" in p and p["requests"] > 0]
    lat_mean = 1000 * statistics.mean(p["request_latency_mean_seconds"] for p in latencies) if latencies else 0.0
    lat_max = 1000 * max((p["request_latency_max_seconds"] for p in latencies), default=0.0)
    lines.append({
        "ranks": key[0], "threads_per_rank": per_rank[0]["threads"], "schedule": key[1], "bands": r["bands"],
        "wall_s": r["wall_seconds"], "mpirun_wall_s": r["launch_wall"], "samples_per_s": r["samples_per_second"],
        "load_imbalance": r["load_imbalance"], "parallel_efficiency": r["parallel_efficiency"],
        "speed_vs_1_rank": r["samples_per_second"] / base_rate, "comm_fraction_max": r["communication_fraction"],
        "waiting_fraction_mean": r["waiting_fraction_mean"], "idle_request_latency_mean_ms": lat_mean,
        "idle_request_latency_max_ms": lat_max, "backend": r["backend"],
    })
with open(results + ".csv", "w") as out:
    out.write(",".join(columns) + "\n")
    for line in lines:
        out.write(",".join(str(line[c]) for c in columns) + "\n")
# Every rank of the kept runs, to see where waiting comes from (start, between bands, tail).
rank_columns = ["rank", "threads", "bands", "samples", "setup_seconds", "busy_seconds", "waiting_seconds",
                "first_band_wait_seconds", "tail_wait_seconds", "communicating_seconds", "bytes_sent",
                "requests", "request_latency_mean_seconds", "request_latency_max_seconds"]
with open(results + "_ranks.csv", "w") as out:
    out.write("ranks,schedule," + ",".join(rank_columns) + "\n")
    for key in sorted(chosen, key=lambda k: (k[0], order.get(k[1], 9))):
        for p in chosen[key]["per_rank"]:
            out.write("%d,%s," % key + ",".join(str(p.get(c, 0)) for c in rank_columns) + "\n")
with open(results + ".md", "w") as out:
    out.write("# MPI farm scaling (one node)\n\n")
    e = os.environ
    out.write("- date: %s\n" % e["BENCH_DATE"])
    out.write("- machine: %s, %s cores used (%s online), %s\n" % (e["BENCH_CPU"], e["BENCH_CORES"], e["BENCH_ONLINE"], e["BENCH_KERNEL"]))
    out.write("- MPI: %s, settings from mpi/openmpi-mca-params.conf, --bind-to none\n" % e["BENCH_MPI"])
    out.write("- farmrt: %s, backend %s\n" % (e["BENCH_FARMRT"], lines[0]["backend"]))
    out.write("- scene: %s (%d samples)\n" % (e["BENCH_SCENE"], base["samples"]))
    out.write("- command: `%s`\n" % e["BENCH_COMMAND"])
    out.write("- every run wrote the same image bytes: %s (%d runs)\n\n" % (identical, runs))
    out.write("wall = rank 0's job time (scene read to image written, without mpirun's start-up); "
              "mpirun wall = the whole command; imbalance = max busy / mean busy over ranks; "
              "efficiency = rendering thread-seconds / (render wall x all threads); "
              "speed vs 1 rank = samples/s over the 1-rank dynamic run on the same cores; "
              "comm = the busiest rank's seconds inside MPI calls / wall (overlapped with rendering); "
              "waiting = mean fraction of the render phase a rank had nothing to render; "
              "latency = request-to-band time when a rank asked with nothing left to render.\n\n")
    out.write("| ranks | threads/rank | schedule | bands | wall (s) | mpirun wall (s) | samples/s | imbalance "
              "| efficiency | speed vs 1 rank | comm % | waiting % | idle request latency mean / max (ms) |\n")
    out.write("|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
    for l in lines:
        out.write("| %d | %d | %s | %d | %.3f | %.2f | %.4g | %.3f | %.3f | %.3f | %.2f | %.2f | %.2f / %.2f |\n" % (
            l["ranks"], l["threads_per_rank"], l["schedule"], l["bands"], l["wall_s"], l["mpirun_wall_s"],
            l["samples_per_s"], l["load_imbalance"], l["parallel_efficiency"], l["speed_vs_1_rank"],
            100 * l["comm_fraction_max"], 100 * l["waiting_fraction_mean"], l["idle_request_latency_mean_ms"],
            l["idle_request_latency_max_ms"]))
print(open(results + ".md").read())
PY
