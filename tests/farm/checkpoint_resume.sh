#!/usr/bin/env bash
# End to end: renders interrupted by signals (the test hook and real SIGTERM /
# SIGUSR1) and resumed any number of times, with other thread counts, tile
# sizes and pass sizes, are byte-identical to uninterrupted renders; sequences
# resume (complete frames skipped, damaged ones re-rendered); corrupt or
# mismatched checkpoints are refused with a clear error.
# usage: checkpoint_resume.sh FARMRT SOURCE_DIR [LAUNCHER...]
#   LAUNCHER (optional): prefix for the interrupted runs, e.g. "mpirun -n 3".
set -u
farmrt=$(realpath "$1")
source_dir=$(realpath "$2")
shift 2
launcher=("$@")
scene=$source_dir/configs/tiny.yaml
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
run() { "$farmrt" "$scene" --quiet "$@"; }
resumed_run() { "${launcher[@]}" "$farmrt" "$scene" --quiet "$@"; }

# 1. The test hook raises SIGTERM after N passes: deterministic interruptions.
run -o ref.pfm --spp 40 --threads 2 || fail "reference render"
resumed_run -o part.pfm --spp 40 --pass-samples 3 --test-signal-after-passes 2
status=$?
[ $status -eq 75 ] || fail "interrupted render exits 75 (got $status)"
[ -f part.pfm.checkpoint ] || fail "interrupted render leaves part.pfm.checkpoint"
[ ! -e part.pfm ] || fail "interrupted render must not write the image"
attempts=0
settings=("--threads 1 --tile 5 --pass-samples 4" "--threads 2 --tile 16 --pass-samples 1" "--threads 2 --tile 3 --pass-samples 7")
while :; do
    attempts=$((attempts + 1))
    [ $attempts -le 20 ] || { fail "resume never finished"; break; }
    # shellcheck disable=SC2086
    resumed_run -o part.pfm --spp 40 --resume ${settings[$((attempts % 3))]} --test-signal-after-passes 2
    status=$?
    [ $status -eq 0 ] && break
    [ $status -eq 75 ] || { fail "resume $attempts exits $status"; break; }
done
[ $attempts -ge 5 ] || fail "expected several interruptions, got $attempts runs"
cmp -s ref.pfm part.pfm || fail "interrupted and resumed $attempts times differs from the uninterrupted render"
[ ! -e part.pfm.checkpoint ] || fail "a finished frame removes its checkpoint"

# 2. Real signals from outside, as Slurm (--signal) or a user sends them.
big=(--width 128 --height 72 --spp 128)
run -o ref_big.pfm "${big[@]}" || fail "reference render (large)"
for signal in TERM USR1; do
    rm -f sig.pfm sig.pfm.checkpoint
    interrupted=0
    for attempt in 1 2 3 4 5 6 7 8 9 10; do
        resume=(); [ $attempt -gt 1 ] && resume=(--resume)
        rm -f started; touch started; sleep 0.05
        # Started directly (not through a shell function) so that $! is the process to signal.
        "${launcher[@]}" "$farmrt" "$scene" --quiet -o sig.pfm "${big[@]}" --checkpoint-interval 0.1 "${resume[@]}" &
        pid=$!
        # The first periodic checkpoint shows the render (and its handlers) are running.
        for _ in $(seq 1 600); do
            [ -f sig.pfm.checkpoint ] && [ sig.pfm.checkpoint -nt started ] && break
            kill -0 $pid 2>/dev/null || break
            sleep 0.05
        done
        sleep 0.02
        kill -$signal $pid 2>/dev/null
        wait $pid
        status=$?
        if [ $status -eq 75 ]; then
            interrupted=$((interrupted + 1))
            [ -f sig.pfm.checkpoint ] || fail "SIG$signal: no checkpoint after exit 75"
        elif [ $status -eq 0 ]; then
            break
        else
            fail "SIG$signal: render exited $status"
            break
        fi
    done
    echo "SIG$signal: interrupted $interrupted times"
    [ $interrupted -ge 1 ] || fail "SIG$signal never interrupted the render"
    if [ ! -f sig.pfm ]; then
        resumed_run -o sig.pfm "${big[@]}" --resume || fail "final resume after SIG$signal"
    fi
    cmp -s ref_big.pfm sig.pfm || fail "SIG$signal: interrupted $interrupted times and resumed differs from uninterrupted"
done

# 3. Sequences: complete frames are skipped, damaged ones rendered again,
#    the frame in progress continues from its checkpoint.
run -o seqref_##.pfm --frames 1-4 --spp 6 || fail "reference sequence"
run -o seq_##.pfm --frames 1-4 --spp 6 --pass-samples 3 --test-signal-after-passes 5
status=$?
[ $status -eq 75 ] || fail "sequence interrupted exits 75 (got $status)"
[ -f seq_01.pfm ] && [ -f seq_02.pfm ] && [ -f seq_03.pfm.checkpoint ] && [ ! -e seq_03.pfm ] && [ ! -e seq_04.pfm ] ||
    fail "sequence stopped in frame 3: $(ls seq_* | tr '\n' ' ')"
head -c 100 seq_01.pfm > cut && mv cut seq_01.pfm   # a damaged image is not complete
cp seq_02.pfm seq_02.before
run -o seq_##.pfm --frames 1-4 --spp 6 --resume --stats seq.json || fail "sequence resume"
for f in 01 02 03 04; do cmp -s seqref_$f.pfm seq_$f.pfm || fail "sequence frame $f differs after resume"; done
grep -q '"skipped_complete": 1' seq.json && grep -q '"resumed": 1' seq.json && grep -q '"rendered": 3' seq.json ||
    fail "sequence stats: $(cat seq.json)"

# 4. Checkpoints that must not be mixed in.
run -o bad.pfm --spp 40 --pass-samples 3 --test-signal-after-passes 1
run -o bad.pfm --spp 41 --resume 2> err.txt
status=$?
[ $status -eq 2 ] || fail "mismatched checkpoint exits 2 (got $status)"
grep -q "bad.pfm.checkpoint: checkpoint was made for other scene or settings: spp is 40 in the checkpoint, 41 now" err.txt ||
    fail "mismatch message: $(cat err.txt)"
run -o bad.pfm --spp 40 --seed 8 --resume 2> err.txt
grep -q "seed is 7 in the checkpoint, 8 now" err.txt || fail "seed mismatch message: $(cat err.txt)"
printf 'X' | dd of=bad.pfm.checkpoint bs=1 seek=200 conv=notrunc 2>/dev/null
run -o bad.pfm --spp 40 --resume 2> err.txt
status=$?
[ $status -eq 2 ] || fail "corrupt checkpoint exits 2 (got $status)"
grep -q "bad.pfm.checkpoint: corrupt checkpoint: checksum mismatch" err.txt || fail "corrupt message: $(cat err.txt)"
[ ! -e bad.pfm ] || fail "no image after a refused checkpoint"
# Without --resume the old checkpoint is replaced, not mixed in.
run -o bad.pfm --spp 40 && cmp -s ref.pfm bad.pfm || fail "fresh render over a stale checkpoint"

# 5. Frame lists on the command line.
run --frames 5-1 2> err.txt; [ $? -eq 2 ] && grep -q -- "--frames: bad frame list item '5-1': the range runs backwards" err.txt ||
    fail "bad --frames: $(cat err.txt)"
run --frames 1-3 -o one.pfm 2> err.txt; [ $? -eq 2 ] && grep -q "has no frame pattern" err.txt || fail "pattern: $(cat err.txt)"

if [ $failures -eq 0 ]; then echo "checkpoint_resume: all passed"; fi
exit $((failures > 0))
