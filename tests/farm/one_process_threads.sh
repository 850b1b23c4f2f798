#!/usr/bin/env bash
# A one-process job with every thread the farm starts: rank 0's render thread
# and its dealer, progress lines, previews, the frame log, checkpoints and
# stats, over two frames in small passes; the image must equal a plain render's
# bytes. Built with ThreadSanitizer (the tsan preset), a data race between those
# threads fails it. (--threads 1: OpenMP's own threads are not instrumented.)
#   one_process_threads.sh FARMRT SOURCE_DIR
set -euo pipefail
farmrt=${1:?usage: one_process_threads.sh FARMRT SOURCE_DIR}
source_dir=${2:?usage: one_process_threads.sh FARMRT SOURCE_DIR}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
scene=$source_dir/configs/tiny.yaml

"$farmrt" "$scene" --width 64 --height 40 --spp 24 --frames 1-2 --threads 1 -q -o "$work/plain_####.pfm"
"$farmrt" "$scene" --width 64 --height 40 --spp 24 --frames 1-2 --threads 1 --pass-samples 2 \
    --preview "$work/preview.pfm" --preview-interval 0.01 --frame-log "$work/frames.jsonl" \
    --stats "$work/stats.json" --checkpoint-interval 0.01 -o "$work/farm_####.pfm" 2> "$work/stderr.txt"
for frame in 0001 0002; do
    cmp "$work/plain_$frame.pfm" "$work/farm_$frame.pfm" || { echo "frame $frame differs from a plain render"; exit 1; }
done
[ "$(wc -l < "$work/frames.jsonl")" -eq 2 ] || { echo "the frame log has no line per frame"; exit 1; }
[ -s "$work/stats.json" ] || { echo "no stats written"; exit 1; }
echo "one-process job with its threads: same bytes, frame log and stats written"
