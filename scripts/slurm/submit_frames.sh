#!/usr/bin/env bash
# Submits a frame range as a job array of FRAMES_PER_TASK frames per task.
#   scripts/slurm/submit_frames.sh [--throttle M] [sbatch options --] SCENE FRAMES FRAMES_PER_TASK [farmrt options]
# e.g.
#   scripts/slurm/submit_frames.sh --throttle 8 --cpus-per-task=16 --time=2:00:00 -- \
#       shot.yaml 1-240 10 -o frames/shot_####.exr
# Prints the array job id (sbatch --parsable).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
throttle=""
sbatch_options=()
if [ "${1:-}" = "--throttle" ]; then throttle=$2; shift 2; fi
for a in "$@"; do
    if [ "$a" = "--" ]; then
        while [ "$1" != "--" ]; do sbatch_options+=("$1"); shift; done
        shift
        break
    fi
done
if [ $# -lt 3 ]; then
    sed -n '2,8p' "$0" >&2
    exit 2
fi
scene=$1 frames=$2 per_task=$3
# Count the frames with the same expansion the array script uses.
count=$(bash -c 'source <(sed -n "/^expand_frames()/,/^}/p" "$1"); expand_frames "$2" | wc -l' _ "$here/frames_array.sbatch" "$frames")
[ "$count" -gt 0 ] || { echo "submit_frames: no frames in '$frames'" >&2; exit 2; }
[[ $per_task =~ ^[1-9][0-9]*$ ]] || { echo "submit_frames: FRAMES_PER_TASK must be >= 1" >&2; exit 2; }
tasks=$(( (count + per_task - 1) / per_task ))
array="0-$((tasks - 1))${throttle:+%$throttle}"
echo "submit_frames: $count frames, $per_task per task: --array=$array" >&2
sbatch --parsable --array="$array" "${sbatch_options[@]}" "$here/frames_array.sbatch" "$@"
