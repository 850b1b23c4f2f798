#!/usr/bin/env bash
# Submits a scaling study to Slurm: one render.sbatch job per configuration
# (nodes x ranks per node x threads per rank), each writing a farmrt run
# report, then a job (afterany) that turns the reports into a CSV, plots and
# a markdown table with scripts/bench/scaling_study.py report.
#
#   scripts/slurm/submit_scaling.sh [options] [-- sbatch options for every job]
#     --kind strong|weak        strong: the same frame on every configuration (default);
#                               weak: image height = --height x ranks (fixed work per rank)
#     --nodes "1 2 4 8"         node counts (default "1 2 4")
#     --ranks-per-node "1 4"    ranks per node (default "1"; one per GPU on GPU nodes)
#     --threads T               threads per rank (--cpus-per-task; default 1)
#     --scene S --width W --height H --spp N   the frame (default configs/spheres.yaml 1200x675, 64 spp)
#     --out DIR                 where reports, images and results go (default scaling-<date>)
#     --farmrt-options "..."    extra farmrt options (e.g. "--backend cuda")
# e.g. CPU nodes:  submit_scaling.sh --nodes "1 2 4 8" --ranks-per-node 2 --threads 32 -- --partition=cpu --time=1:00:00
#      GPU nodes:  submit_scaling.sh --nodes "1 2 4" --ranks-per-node 4 --threads 8 --farmrt-options "--backend cuda" \
#                      -- --partition=gpu --gpus-per-node=4
# Prints the report job's id. Environment: FARMRT, FARMRT_LAUNCHER (see render.sbatch).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
kind=strong nodes="1 2 4" ranks_per_node="1" threads=1
scene=$root/configs/spheres.yaml width=1200 height=675 spp=64
out="" farmrt_options=""
sbatch_options=()
while [ $# -gt 0 ]; do
    case $1 in
    --kind) kind=$2; shift 2 ;;
    --nodes) nodes=$2; shift 2 ;;
    --ranks-per-node) ranks_per_node=$2; shift 2 ;;
    --threads) threads=$2; shift 2 ;;
    --scene) scene=$(realpath "$2"); shift 2 ;;
    --width) width=$2; shift 2 ;;
    --height) height=$2; shift 2 ;;
    --spp) spp=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --farmrt-options) farmrt_options=$2; shift 2 ;;
    --) shift; sbatch_options=("$@"); break ;;
    *) sed -n '2,24p' "$0" >&2; exit 2 ;;
    esac
done
case $kind in strong | weak) ;; *) echo "submit_scaling: --kind strong|weak" >&2; exit 2 ;; esac
out=$(realpath -m "${out:-scaling-$(date +%Y%m%d-%H%M%S)}")
mkdir -p "$out/reports" "$out/logs"

jobs=()
for n in $nodes; do
    for r in $ranks_per_node; do
        ranks=$((n * r))
        h=$height
        [ "$kind" = weak ] && h=$((height * ranks))
        tag=${kind}_n${n}_r${r}_t${threads}
        # shellcheck disable=SC2086
        id=$(sbatch --parsable "${sbatch_options[@]}" --job-name="farmrt-$tag" --nodes="$n" --ntasks-per-node="$r" \
             --cpus-per-task="$threads" --output="$out/logs/$tag-%j.out" --chdir="$out" \
             "$here/render.sbatch" "$scene" --width "$width" --height "$h" --spp "$spp" --quiet \
             -o "$out/$tag.pfm" --stats "$out/reports/$tag.json" $farmrt_options)
        echo "submit_scaling: $tag: job $id ($n nodes x $r ranks x $threads threads)" >&2
        jobs+=("$id")
    done
done
dependency=$(IFS=:; echo "${jobs[*]}")
report=$(sbatch --parsable "${sbatch_options[@]}" --job-name=farmrt-scaling-report --ntasks=1 \
         --dependency="afterany:$dependency" --output="$out/logs/report-%j.out" --chdir="$out" \
         --wrap="python3 '$root/scripts/bench/scaling_study.py' report --kind $kind --stats-dir '$out/reports' --results '$out' --name ${kind}_scaling_slurm")
echo "submit_scaling: report job $report writes $out/${kind}_scaling_slurm.{csv,png,md}" >&2
echo "$report"
