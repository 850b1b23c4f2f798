#!/usr/bin/env bash
# One process driving every GPU of a node (render/device_group.h) against one
# GPU, against one rank per GPU under mpirun, and two "nodes" of two GPUs
# each (two ranks, each seeing two GPUs through CUDA_VISIBLE_DEVICES). Each
# configuration runs REPEATS times, interleaved; the table gives medians of
# the render phase (--stats), of the whole command's wall time, and the peak
# host memory, and says whether every run of a size wrote the same bytes.
#
#   scripts/bench/node_gpus.sh BUILD_DIR OUT_DIR
# Environment (defaults): SIZES ("1200x675:4096 3840x2160:1024"), SCENE
# (configs/spheres.yaml), REPEATS (3), CONFIGS ("g1 g2 g4 g4cpu ranks4 nodes2x2"),
# MPIEXEC (mpirun). Configurations: gN (one process, GPUs 0..N-1), gNcpu (the
# same and the cores they leave), ranksN (N ranks, a GPU each), nodesRxG (R
# ranks, G GPUs each).
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:?usage: bench/node_gpus.sh BUILD_DIR OUT_DIR}
out=${2:?usage: bench/node_gpus.sh BUILD_DIR OUT_DIR}
farmrt=$(cd "$build" && pwd)/farmrt
sizes=${SIZES:-"1200x675:4096 3840x2160:1024"}
scene=${SCENE:-configs/spheres.yaml}
repeats=${REPEATS:-3}
configs=${CONFIGS:-"g1 g2 g4 g4cpu ranks4 nodes2x2"}
mpiexec=${MPIEXEC:-mpirun}
mkdir -p "$out/runs"
export OMPI_MCA_mca_base_param_files=$PWD/mpi/openmpi-mca-params.conf
if [ "$(id -u)" -eq 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
[ "$gpus" -ge 1 ] || { echo "node_gpus: no GPU visible" >&2; exit 1; }

# A rank given GPUS_A_RANK GPUs of its own (a node of that many GPUs).
wrapper=$out/gpus_a_rank.sh
cat >"$wrapper" <<'SH'
#!/usr/bin/env bash
first=$((${OMPI_COMM_WORLD_LOCAL_RANK:-0} * GPUS_A_RANK))
CUDA_VISIBLE_DEVICES=$(seq -s, $first $((first + GPUS_A_RANK - 1))) exec "$@"
SH
chmod +x "$wrapper"

identical=yes
for size in $sizes; do
    width=${size%%x*} rest=${size#*x}
    height=${rest%%:*} spp=${size##*:}
    reference=""
    for repeat in $(seq "$repeats"); do
        for config in $configs; do
            args=("$scene" --width "$width" --height "$height" --spp "$spp" --quiet)
            # gN: one process, GPUs 0..N-1; gNcpu: the same and the cores they
            # leave; ranksN: N ranks, a GPU each; nodesRxG: R ranks, G GPUs each.
            case $config in
                g[0-9]*cpu) n=${config#g}; n=${n%cpu}; backend=auto ;;
                g[0-9]*) n=${config#g}; backend=cuda ;;
                ranks[0-9]*) n=${config#ranks} ;;
                nodes[0-9]*x[0-9]*) ranks=${config#nodes}; ranks=${ranks%x*}; per=${config##*x}; n=$((ranks * per)) ;;
                *) echo "unknown config $config" >&2; exit 2 ;;
            esac
            [ "$gpus" -ge "$n" ] || continue
            case $config in
                g*) run=("$farmrt" --backend "$backend" --gpus "$(seq -s, 0 $((n - 1)))") ;;
                ranks*) run=("$mpiexec" -n "$n" "$farmrt" --backend cuda) ;;
                nodes*) run=(env GPUS_A_RANK="$per" "$mpiexec" -x GPUS_A_RANK -n "$ranks" "$wrapper" "$farmrt" --backend cuda --gpus all) ;;
            esac
            name="${width}x${height}_${spp}_${config}_${repeat}"
            start=$(date +%s.%N)
            "${run[@]}" "${args[@]}" -o "$out/runs/$name.pfm" --stats "$out/runs/$name.json" 2>"$out/runs/$name.err"
            end=$(date +%s.%N)
            python3 -c "print($end - $start)" >"$out/runs/$name.wall"
            echo "$end" >"$out/runs/$name.end"
            if [ -z "$reference" ]; then
                reference=$out/runs/$name.pfm
            else
                cmp -s "$reference" "$out/runs/$name.pfm" || { identical=no; echo "node_gpus: $name differs" >&2; }
                rm -f "$out/runs/$name.pfm"
            fi
            echo "node_gpus: $name: $(cat "$out/runs/$name.wall") s" >&2
        done
    done
    rm -f "$reference"
done

export BENCH_DATE=$(date -u +%Y-%m-%dT%H:%MZ) BENCH_GPUS=$gpus BENCH_CORES=$(nproc)
export BENCH_GPU=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
export BENCH_FARMRT="$("$farmrt" --version)" BENCH_IDENTICAL=$identical BENCH_SCENE=$scene
export BENCH_COMMAND="scripts/bench/node_gpus.sh $build $out (SIZES=\"$sizes\" REPEATS=$repeats)"
python3 - "$out" <<'PY'
import glob, json, os, statistics, sys
out = sys.argv[1]
e = os.environ
runs = {}
for path in glob.glob(os.path.join(out, "runs", "*.json")):
    size, spp, config, repeat = os.path.basename(path)[:-5].split("_")
    report = json.load(open(path))
    report["wall"] = float(open(path[:-5] + ".wall").read())
    # The report is written last in the job: what the command takes after it
    # is tearing down (renderers, devices, the launcher).
    report["after_report"] = float(open(path[:-5] + ".end").read()) - os.stat(path).st_mtime
    runs.setdefault((size, int(spp), config), []).append(report)
def describe(config):  # (sort key, label)
    import re
    plural = lambda n, word: "%d %s%s" % (n, word, "" if n == 1 else "s")
    m = re.fullmatch(r"g(\d+)(cpu)?", config)
    if m:
        n = int(m.group(1))
        return (n, 0 if not m.group(2) else 1), "1 process, %s%s" % (plural(n, "GPU"), " + CPU" if m.group(2) else "")
    m = re.fullmatch(r"ranks(\d+)", config)
    if m:
        return (int(m.group(1)), 2), "%s, 1 GPU each" % plural(int(m.group(1)), "rank")
    ranks, per = map(int, re.fullmatch(r"nodes(\d+)x(\d+)", config).groups())
    return (ranks * per, 3), "%s, %s each" % (plural(ranks, "rank"), plural(per, "GPU"))
lines = ["# One process, every GPU of the node\n",
         "- date: %s; machine: %s x %s, %s cores" % (e["BENCH_DATE"], e["BENCH_GPUS"], e["BENCH_GPU"], e["BENCH_CORES"]),
         "- farmrt: %s; scene %s, exact math" % (e["BENCH_FARMRT"], e["BENCH_SCENE"]),
         "- command: `%s`" % e["BENCH_COMMAND"],
         "- every run of a size wrote the same image bytes: %s\n" % e["BENCH_IDENTICAL"],
         "Medians. render = the render phase; wall = the whole command (mpirun included); speed-up over one GPU in one process.\n",
         "| size | spp | configuration | render (s) | speed-up | wall (s) | wall speed-up | set-up (s) | after the report (s) | GPU-seconds: host / device clock | peak host memory (MiB) | CPU share |",
         "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
for key in sorted(runs, key=lambda k: (int(k[0].split("x")[0]), k[1], describe(k[2])[0])):
    size, spp, config = key
    rs = runs[key]
    render = statistics.median(r["render_seconds"] for r in rs)
    wall = statistics.median(r["wall"] for r in rs)
    setup = statistics.median(r["per_rank"][0]["setup_seconds"] for r in rs)
    memory = statistics.median(r["peak_resident_bytes"] for r in rs) / 2**20
    after = statistics.median(r["after_report"] for r in rs)
    # Every GPU's busy seconds, seen by its render thread and on its own clock
    # (rank 0's devices; "-" where the build does not report the clock).
    gpus = [[d for d in r.get("devices", []) if "launches" in d] for r in rs]
    host = statistics.median(sum(d["busy_seconds"] for d in g) for g in gpus)
    clock = [sum(d.get("device_busy_seconds", 0) for d in g) for g in gpus]
    gpu_seconds = "%.3f / %s" % (host, "%.3f" % statistics.median(clock) if all(clock) else "-")
    base = runs.get((size, spp, "g1"))
    b_render = statistics.median(r["render_seconds"] for r in base) if base else render
    b_wall = statistics.median(r["wall"] for r in base) if base else wall
    backend = rs[0]["per_rank"][0]["backend"]
    cpu = "-"
    if "cpu" in backend and "devices" in backend:
        cpu = "see backend"
    lines.append("| %s | %d | %s | %.3f | %.2fx | %.2f | %.2fx | %.2f | %.2f | %s | %.0f | %s |" % (
        size, spp, describe(config)[1], render, b_render / render, wall, b_wall / wall, setup, after, gpu_seconds, memory,
        cpu))
text = "\n".join(lines) + "\n"
open(os.path.join(out, "node_gpus.md"), "w").write(text)
print(text)
PY
