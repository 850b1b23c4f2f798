#!/usr/bin/env bash
# GPU ranks and hybrid jobs of the MPI farm on one node: the same
# frame rendered by one GPU rank, by one rank per GPU, and by the GPU ranks
# plus CPU ranks on the cores they leave (--backend auto). Writes a Markdown
# table (multi_gpu.md) and raw JSON reports into OUT_DIR, checks that every
# run of a size wrote the same bytes, and prints the table.
#
#   scripts/bench/multi_gpu.sh BUILD_DIR OUT_DIR
# Environment (defaults): SIZES ("1200x675:4096 3840x2160:1024", WIDTHxHEIGHT:SPP),
# SCENE (configs/spheres.yaml), REPEATS (2; the fastest render is kept),
# CONFIGS ("gpu1 gpuN hybrid"), MATH (exact), MPIEXEC (mpirun).
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:?usage: bench/multi_gpu.sh BUILD_DIR OUT_DIR}
out=${2:?usage: bench/multi_gpu.sh BUILD_DIR OUT_DIR}
farmrt=$build/farmrt
sizes=${SIZES:-"1200x675:4096 3840x2160:1024"}
scene=${SCENE:-configs/spheres.yaml}
repeats=${REPEATS:-2}
configs=${CONFIGS:-"gpu1 gpuN hybrid"}
math=${MATH:-exact}
mpiexec=${MPIEXEC:-mpirun}
mkdir -p "$out/runs"

export OMPI_MCA_mca_base_param_files=$PWD/mpi/openmpi-mca-params.conf
if [ "$(id -u)" -eq 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi

gpus=0
if command -v nvidia-smi >/dev/null 2>&1; then gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true); fi
if [ "$gpus" -lt 1 ]; then
    echo "benchmark_multi_gpu: no GPU visible (nvidia-smi -L)" >&2
    exit 1
fi
cores=$(nproc)
echo "benchmark_multi_gpu: $gpus GPUs, $cores cores; $scene; sizes $sizes" >&2

identical=yes
for size in $sizes; do
    width=${size%%x*} rest=${size#*x}
    height=${rest%%:*} spp=${size##*:}
    reference=""
    for config in $configs; do
        case $config in
            gpu1) ranks=1 backend=cuda ;;
            gpuN) ranks=$gpus backend=cuda; [ "$gpus" -ge 2 ] || continue ;;
            hybrid) ranks=$((gpus + 1)) backend=auto ;;  # the CPU rank takes the cores the GPU ranks leave
            hybrid2) ranks=$((gpus + 2)) backend=auto ;;
            *) echo "unknown config $config" >&2; exit 2 ;;
        esac
        for repeat in $(seq "$repeats"); do
            name="${width}x${height}_${spp}_${config}_${repeat}"
            start=$(date +%s.%N)
            "$mpiexec" -n "$ranks" "$farmrt" "$scene" --width "$width" --height "$height" --spp "$spp" \
                --backend "$backend" --gpu-math "$math" --quiet -o "$out/runs/$name.pfm" \
                --stats "$out/runs/$name.json" 2>"$out/runs/$name.err"
            end=$(date +%s.%N)
            python3 -c "print($end - $start)" >"$out/runs/$name.launch"
            if [ -z "$reference" ]; then
                reference=$out/runs/$name.pfm
            else
                cmp -s "$reference" "$out/runs/$name.pfm" || identical=no
                rm -f "$out/runs/$name.pfm"
            fi
            echo "benchmark_multi_gpu: $name: $(cat "$out/runs/$name.launch") s" >&2
        done
    done
    rm -f "$reference"
done

export BENCH_DATE=$(date -u +%Y-%m-%dT%H:%MZ) BENCH_GPUS=$gpus BENCH_CORES=$cores
export BENCH_CPU=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')
export BENCH_GPU=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)
export BENCH_FARMRT="$("$farmrt" --version)" BENCH_IDENTICAL=$identical BENCH_SCENE=$scene BENCH_MATH=$math
export BENCH_COMMAND="scripts/bench/multi_gpu.sh $build $out (SIZES=\"$sizes\" REPEATS=$repeats CONFIGS=\"$configs\" MATH=$math)"
python3 - "$out" <<'PY'
import glob, json, os, sys
out = sys.argv[1]
e = os.environ
runs = {}
for path in glob.glob(os.path.join(out, "runs", "*.json")):
    name = os.path.basename(path)[:-5]
    size, spp, config, repeat = name.split("_")
    report = json.load(open(path))
    report["launch"] = float(open(path[:-5] + ".launch").read())
    runs.setdefault((size, int(spp), config), []).append(report)
order = {"gpu1": 0, "gpuN": 1, "hybrid": 2, "hybrid2": 3}
lines = []
lines.append("# GPU ranks and hybrid jobs (MPI farm, one node)\n")
lines.append("- date: %s" % e["BENCH_DATE"])
lines.append("- machine: %s GPUs (%s), %s CPU cores (%s)" % (e["BENCH_GPUS"], e["BENCH_GPU"], e["BENCH_CORES"], e["BENCH_CPU"]))
lines.append("- farmrt: %s, --gpu-math %s, scene %s" % (e["BENCH_FARMRT"], e["BENCH_MATH"], e["BENCH_SCENE"]))
lines.append("- command: `%s`" % e["BENCH_COMMAND"])
lines.append("- every run of a size wrote the same image bytes (GPU-only and hybrid): %s\n" % e["BENCH_IDENTICAL"])
lines.append("Fastest of the repeats by render time. render = the render phase on rank 0 (first band out to "
             "last band in); job = scene read to image written; mpirun = the whole command. speed-up = over one GPU "
             "rank, by render time (by job time in brackets). CPU share = samples traced by CPU ranks.\n")
lines.append("| size | spp | ranks | backends | render (s) | job (s) | mpirun (s) | G samples/s | speed-up vs 1 GPU | imbalance | CPU share | bands per rank |")
lines.append("|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---|")
base = {}
for key in sorted(runs, key=lambda k: (int(k[0].split("x")[0]), k[1], order.get(k[2], 9))):
    best = min(runs[key], key=lambda r: r["render_seconds"])
    size, spp, config = key
    if config == "gpu1":
        base[(size, spp)] = best
    one = base.get((size, spp))
    per_rank = best["per_rank"]
    kinds = []
    for r in per_rank:
        b = r["backend"]
        kinds.append(b.split(" ")[0] if b.startswith("cuda") else "%s x%d" % (b.split(" ")[0], r["threads"]))
    cpu_samples = sum(r["samples"] for r in per_rank if not r["backend"].startswith("cuda"))
    speed = "-"
    if one:
        speed = "%.2fx (%.2fx)" % (one["render_seconds"] / best["render_seconds"], one["wall_seconds"] / best["wall_seconds"])
    lines.append("| %s | %d | %d | %s | %.3f | %.3f | %.2f | %.3f | %s | %.3f | %.2f%% | %s |" % (
        size, spp, best["ranks"], ", ".join(kinds), best["render_seconds"], best["wall_seconds"], best["launch"],
        best["samples_per_second"] / 1e9, speed, best["load_imbalance"], 100.0 * cpu_samples / best["samples"],
        "/".join(str(r["bands"]) for r in per_rank)))
lines.append("\nPer rank of the runs above (busy = a band in flight; waiting = render phase less busy):\n")
lines.append("| size | spp | ranks | rank | backend | bands | samples % | busy (s) | waiting (s) | first-band wait (s) | tail wait (s) | requests | idle request latency mean / max (ms) |")
lines.append("|---|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|")
for key in sorted(runs, key=lambda k: (int(k[0].split("x")[0]), k[1], order.get(k[2], 9))):
    best = min(runs[key], key=lambda r: r["render_seconds"])
    for r in best["per_rank"]:
        lines.append("| %s | %d | %d | %d | %s | %d | %.2f | %.3f | %.3f | %.3f | %.3f | %d | %.1f / %.1f |" % (
            key[0], key[1], best["ranks"], r["rank"], r["backend"].split(" (")[0], r["bands"],
            100.0 * r["samples"] / best["samples"], r["busy_seconds"], r["waiting_seconds"],
            r.get("first_band_wait_seconds", 0), r.get("tail_wait_seconds", 0), r.get("requests", 0),
            1000 * r.get("request_latency_mean_seconds", 0), 1000 * r.get("request_latency_max_seconds", 0)))
text = "\n".join(lines) + "\n"
open(os.path.join(out, "multi_gpu.md"), "w").write(text)
print(text)
PY
