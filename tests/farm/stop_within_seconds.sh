#!/usr/bin/env bash
# A stop signal ends a render within 5 s whatever its size and samples (the
# band in progress is abandoned, not awaited), writing the checkpoint of
# what is done and exiting 75; a rank that stops answering (SIGSTOP) ends
# the job within the documented --rank-timeout with a line naming it.
# usage: stop_within_seconds.sh FARMRT SOURCE_DIR [MPIEXEC] [BACKEND]
#   BACKEND: cpu (default) or cuda (the GPU machine's run).
set -u
farmrt=$(realpath "$1")
source_dir=$(realpath "$2")
mpiexec=${3:-}
backend=${4:-cpu}
scene=$source_dir/configs/spheres.yaml
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
now_ms() { echo $(($(date +%s%N) / 1000000)); }
threads=(--threads 2)
[ "$backend" = cuda ] && threads=()
if [ "$backend" = cuda ] && ! "$farmrt" "$source_dir/configs/tiny.yaml" --quiet --backend cuda -o probe.pfm 2>probe.log; then
    echo "SKIPPED: no GPU backend here: $(head -c 200 probe.log)"
    exit 77
fi

# Waits for $pid to end; sets status, and ms: the milliseconds since $1.
finish() {
    wait "$pid"
    status=$?
    ms=$(($(now_ms) - $1))
}

# 1. 1920x1080 at 4096 samples in one pass: every band holds a sixth of the
#    image at every sample (hours on two cores), so only abandoning it stops in
#    time. On GPUs 65536 samples: four H200s of one process finish 4096 in
#    about 2 s, before the signal.
#    Sanitized builds (FARMRT_TEST_SANITIZED, set by CMake) trace tens of
#    times slower: a quarter of the pixels is as long a render there, and
#    spares the second part most of its wait for a first checkpoint.
size=(--width 1920 --height 1080)
[ -n "${FARMRT_TEST_SANITIZED:-}" ] && size=(--width 960 --height 540)
one_pass_samples=4096
[ "$backend" = cuda ] && one_pass_samples=65536
"$farmrt" "$scene" --quiet --backend "$backend" "${threads[@]}" "${size[@]}" \
    --spp $one_pass_samples --pass-samples $one_pass_samples -o one_pass.pfm &
pid=$!
sleep 3
sent=$(now_ms)
kill -TERM $pid
finish "$sent"
echo "one pass of $one_pass_samples samples at ${size[1]}x${size[3]}: exit $status ${ms} ms after SIGTERM"
[ "$status" -eq 75 ] || fail "one-pass render: exit $status after SIGTERM, expected 75"
[ "$ms" -le 5000 ] || fail "one-pass render took ${ms} ms to stop (limit 5000)"
[ ! -e one_pass.pfm ] || fail "a stopped render wrote its image"
ls -a | grep -q "farmrt" && fail "a stopped render left a temporary file: $(ls -a)"

# 2. The same size with adaptive passes: once a periodic checkpoint shows
#    finished work, SIGTERM rewrites it with everything done and exits 75.
"$farmrt" "$scene" --quiet --backend "$backend" "${threads[@]}" "${size[@]}" --spp 4096 \
    --pass-samples 2 --checkpoint-interval 0.5 -o passes.pfm &
pid=$!
for _ in $(seq 1 1200); do
    [ -s passes.pfm.checkpoint ] && break
    kill -0 $pid 2>/dev/null || break
    sleep 0.05
done
touch signalled
sleep 0.02
sent=$(now_ms)
kill -TERM $pid
finish "$sent"
echo "adaptive passes at ${size[1]}x${size[3]}, 4096 spp: exit $status ${ms} ms after SIGTERM"
[ "$status" -eq 75 ] || fail "render with checkpoints: exit $status after SIGTERM, expected 75"
[ "$ms" -le 5000 ] || fail "render with checkpoints took ${ms} ms to stop (limit 5000)"
[ passes.pfm.checkpoint -nt signalled ] || fail "no checkpoint written at the stop"
"$farmrt" "$scene" --quiet --backend "$backend" "${size[@]}" --spp 4096 --resume \
    --pass-samples 2 --test-signal-after-items 1 -o passes.pfm
status=$?
[ "$status" -eq 75 ] || fail "the checkpoint did not resume (exit $status)"

# 3. A rank that stops answering: SIGSTOP on rank 2 of 3, then on rank 0.
#    Rank 0 pings a rank silent for 5 s while holding work, and a worker
#    waiting for rank 0 pings it likewise; no answer within --rank-timeout
#    (3 s here) ends the job: a non-zero exit and a line naming the rank.
stop_rank() {
    local stopped=$1 process=""
    "$mpiexec" -n 3 "$farmrt" "$scene" --quiet --backend cpu --threads 1 --width 1920 --height 1080 --spp 4096 \
        --pass-samples 4096 --band 8 --rank-timeout 3 -o "lost$stopped.pfm" 2> "lost$stopped.log" &
    pid=$!
    for _ in $(seq 1 200); do
        for candidate in $(pgrep -f "farmrt.*lost$stopped.pfm"); do
            if tr '\0' '\n' < /proc/$candidate/environ 2>/dev/null | grep -qx "OMPI_COMM_WORLD_RANK=$stopped"; then
                process=$candidate
            fi
        done
        [ -n "$process" ] && break
        sleep 0.05
    done
    if [ -z "$process" ]; then
        fail "rank $stopped's process not found"
        kill -TERM $pid
        wait $pid
        return
    fi
    sleep 2
    sent=$(now_ms)
    kill -STOP "$process"
    finish "$sent"
    kill -KILL "$process" 2>/dev/null
    echo "rank $stopped stopped: exit $status ${ms} ms later: $(grep -m1 "rank $stopped has not" "lost$stopped.log")"
    [ "$status" -ne 0 ] && [ "$status" -ne 75 ] || fail "a job with rank $stopped stopped exited $status"
    [ "$ms" -le 20000 ] || fail "a job with rank $stopped stopped ended after ${ms} ms (ping after 5 s + timeout 3 s)"
    grep -q "rank $stopped has not answered" "lost$stopped.log" || fail "no line names stopped rank $stopped: $(cat "lost$stopped.log")"
    [ ! -e "lost$stopped.pfm" ] || fail "a job with a lost rank $stopped wrote its image"
}
if [ -n "$mpiexec" ] && [ "$backend" = cpu ]; then
    stop_rank 2
    stop_rank 0
fi

[ $failures -eq 0 ] && echo "all stop checks passed"
exit $((failures > 0))
