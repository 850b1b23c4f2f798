#!/usr/bin/env bash
# Stands up a one-node Slurm cluster from the Debian packages (munge, slurmctld,
# slurmd; slurm.conf generated in a temporary directory; proctrack/linuxproc and
# task/none, so no cgroups), submits farmrt's Slurm scripts with sbatch, waits
# (bounded), checks the images against local renders byte for byte, and tears
# everything down. Runs as root (containers, CI).
#
# usage: tests/slurm/run_slurm_test.sh FARMRT SOURCE_DIR
# Exit 77 (ctest: skipped) when the Slurm or munge packages are missing:
#   apt-get install slurm-wlm munge      (slurmctld, slurmd, slurm-client, munge)
set -u
farmrt=$(realpath "$1")
source_dir=$(realpath "$2")
slurm_scripts=$source_dir/scripts/slurm
scene=$source_dir/configs/tiny.yaml
deadline_seconds=${FARMRT_SLURM_TEST_TIMEOUT:-400}
start_time=$(date +%s)

# CI sets FARMRT_SLURM_TEST_REQUIRED=1 (.ci/run): there a skip would hide a
# broken set-up, so what would skip fails instead.
skip() {
    if [ -n "${FARMRT_SLURM_TEST_REQUIRED:-}" ]; then
        echo "FAIL (FARMRT_SLURM_TEST_REQUIRED is set): $*"
        exit 1
    fi
    echo "SKIPPED: $*"
    exit 77
}
for c in munged slurmctld slurmd sbatch squeue scontrol sinfo scancel; do
    command -v "$c" >/dev/null ||
        skip "'$c' not found: install the Debian packages slurm-wlm and munge to run the Slurm test"
done
[ "$(id -u)" -eq 0 ] || skip "the one-node Slurm cluster test runs slurmd and munged as root (it runs as root in CI)"

T=$(mktemp -d /tmp/farmrt-slurm.XXXXXX)
chmod 755 "$T"
daemons=()
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
note() { printf '[%3ds] %s\n' $(($(date +%s) - start_time)) "$*"; }

cleanup() {
    if [ -f "$T/slurm.conf" ]; then
        scancel --quiet --full "--user=$(id -un)" 2>/dev/null
        # Let slurmd end the jobs' steps (KillWait) before it goes itself.
        for _ in $(seq 1 30); do
            [ -z "$(squeue -h -o %i 2>/dev/null)" ] && break
            sleep 0.5
        done
    fi
    # Only the daemons this test started, by process id (slurmd first).
    for ((i = ${#daemons[@]} - 1; i >= 0; i--)); do kill "${daemons[$i]}" 2>/dev/null; done
    for pid in "${daemons[@]}"; do
        for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -KILL "$pid" 2>/dev/null
    done
    if [ $failures -ne 0 ] || [ -n "${FARMRT_SLURM_TEST_KEEP:-}" ]; then
        echo "---- logs ($T) ----"
        tail -n 30 "$T"/log/*.log "$T"/work/*.out 2>/dev/null
    fi
    [ -n "${FARMRT_SLURM_TEST_KEEP:-}" ] || rm -rf "$T"
}
trap cleanup EXIT
# ctest's timeout (or ^C) sends a signal: leave through the EXIT trap so the daemons go too.
trap 'fail "interrupted by a signal"; exit 1' TERM INT HUP

# Client commands with a bound of their own: one that cannot reach slurmctld retries for a while.
for c in sinfo squeue scontrol sbatch scancel; do
    eval "$c() { timeout 30 $(type -P "$c") \"\$@\"; }"
done
past_deadline() { [ $(($(date +%s) - start_time)) -gt "$deadline_seconds" ]; }

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# ---- munge ---------------------------------------------------------------------
mkdir -p "$T/munge" "$T/state" "$T/spool" "$T/log" "$T/work"
chmod 700 "$T/munge"
dd if=/dev/urandom of="$T/munge/munge.key" bs=1024 count=1 2>/dev/null
chmod 400 "$T/munge/munge.key"
munged --foreground --force --key-file="$T/munge/munge.key" --socket="$T/munge/socket" \
    --pid-file="$T/munge/munged.pid" --log-file="$T/log/munged.log" --seed-file="$T/munge/seed" \
    > "$T/log/munged.out" 2>&1 &
daemons+=($!)
for _ in $(seq 1 50); do [ -S "$T/munge/socket" ] && break; sleep 0.1; done
[ -S "$T/munge/socket" ] || { fail "munged did not start"; exit 1; }

# ---- slurm.conf: this machine as the only node ------------------------------------
node_line=$(slurmd -C | head -n 1)   # NodeName=host CPUs=... RealMemory=...
host=$(hostname -s)
cat > "$T/slurm.conf" <<CONF
ClusterName=farmrttest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$(free_port)
SlurmdPort=$(free_port)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
# cred_expire also sets how long a requeued job waits before it may start again (default 120 s).
AuthInfo=socket=$T/munge/socket,cred_expire=10
CredType=cred/munge
StateSaveLocation=$T/state
SlurmdSpoolDir=$T/spool
SlurmctldPidFile=$T/slurmctld.pid
SlurmdPidFile=$T/slurmd.pid
SlurmctldLogFile=$T/log/slurmctld.log
SlurmdLogFile=$T/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
KillWait=10
MinJobAge=600
$node_line NodeAddr=127.0.0.1 State=UNKNOWN
PartitionName=farm Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF=$T/slurm.conf
slurmctld -D -f "$SLURM_CONF" > "$T/log/slurmctld.out" 2>&1 &
daemons+=($!)
slurmd -D -f "$SLURM_CONF" > "$T/log/slurmd.out" 2>&1 &
daemons+=($!)
up_by=$(($(date +%s) + 60))
while [ "$(date +%s)" -lt $up_by ]; do
    [ "$(sinfo -h -o %t 2>/dev/null)" = "idle" ] && break
    sleep 0.2
done
[ "$(sinfo -h -o %t 2>/dev/null)" = "idle" ] || { fail "the node did not come up: $(sinfo 2>&1)"; exit 1; }
cpus=$(sinfo -h -o %c)
note "cluster up: $host, $cpus CPUs, state $(sinfo -h -o %t)"

# ---- references: the same renders without Slurm --------------------------------------
cd "$T/work"
ref=(--quiet)
"$farmrt" "$scene" "${ref[@]}" -o ref_still.pfm --spp 16 || fail "reference still"
"$farmrt" "$scene" "${ref[@]}" -o ref_seq_##.pfm --frames 1-7 --spp 4 || fail "reference sequence"
slow=(--width 96 --height 64 --spp 256)
"$farmrt" "$scene" "${ref[@]}" -o ref_slow_#.pfm --frames 1-2 "${slow[@]}" || fail "reference (requeue)"
# The MPI batch job must still be rendering when SIGUSR1 reaches its ranks
# (checkpoint seen, signal forwarded by the batch script and mpirun): a
# render of 1 to 2 s (256 or 1024 spp) sometimes ended first on a loaded
# 2-core machine; 4096 spp is about 5 s on two ranks.
big_size=(--width 96 --height 64 --spp 4096)
"$farmrt" "$scene" "${ref[@]}" -o ref_big.pfm "${big_size[@]}" || fail "reference (batch requeue)"
note "references rendered"

export FARMRT=$farmrt
submit() { sbatch --parsable --chdir="$T/work" "$@"; }
job_field() { scontrol show job "$1" 2>/dev/null | tr ' ' '\n' | sed -n "s/^$2=//p" | head -n 1; }
wait_for_checkpoint() {  # file, job: until the render is under way
    for _ in $(seq 1 600); do
        [ -f "$1" ] && return 0
        sleep 0.1
    done
    fail "no checkpoint $1 from job $2 ($(job_field "$2" JobState))"
    return 1
}

# 1. One MPI render (render.sbatch) on 2 ranks.
ranks=$((cpus >= 2 ? 2 : 1))
still=$(submit --ntasks=$ranks --cpus-per-task=1 -J still "$slurm_scripts/render.sbatch" "$scene" -o still.pfm --spp 16 --quiet)
note "submitted render.sbatch as job $still ($ranks ranks)"

# 2. A frame range as a throttled job array: 7 frames, 3 per task -> 3 tasks, 2 at a time.
array=$(FARMRT_CHECKPOINT_INTERVAL=5 "$slurm_scripts/submit_frames.sh" --throttle 2 --cpus-per-task=1 -J frames -- \
        "$scene" 1-7 3 -o seq_##.pfm --spp 4 --quiet 2>/dev/null)
note "submitted frames_array.sbatch as array job $array"
[ "$(job_field "$array" ArrayTaskThrottle)" = 2 ] || fail "array throttle: $(scontrol show job "$array" | head -n 3)"

# 3. Preemption / time limit on an array task: SIGUSR1 to the batch script
#    (what --signal=B:USR1@120 sends), checkpoint, requeue, --resume.
export FARMRT_CHECKPOINT_INTERVAL=0.2
requeue_array=$("$slurm_scripts/submit_frames.sh" --cpus-per-task=1 -J requeue -- \
                "$scene" 1-2 2 -o slow_#.pfm "${slow[@]}" --quiet 2>/dev/null)
note "submitted array task for the requeue test: $requeue_array"
if wait_for_checkpoint slow_1.pfm.checkpoint "$requeue_array"; then
    scancel --batch --signal=USR1 "${requeue_array}_0" || fail "scancel --signal USR1 (array)"
    note "sent SIGUSR1 to the array task's batch script"
fi

# 4. The same for render.sbatch with MPI ranks (mpirun forwards SIGUSR1).
big=$(submit --ntasks=$ranks --cpus-per-task=1 -J requeue-batch "$slurm_scripts/render.sbatch" "$scene" -o big.pfm "${big_size[@]}" --quiet)
note "submitted render.sbatch for the requeue test: $big"
if wait_for_checkpoint big.pfm.checkpoint "$big"; then
    scancel --batch --signal=USR1 "$big" || fail "scancel --signal USR1 (batch)"
    note "sent SIGUSR1 to the batch script of job $big"
fi
unset FARMRT_CHECKPOINT_INTERVAL

# 5. Retries: a task whose farmrt fails once (exit 1, as a lost rank gives)
#    is requeued and renders on its second attempt; one that keeps failing
#    stops after FARMRT_RETRIES; bad input (exit 2) is never retried.
cat > flaky_farmrt.sh <<FLAKY
#!/usr/bin/env bash
# Fails the first time it runs (as a node fault would), then is farmrt.
if [ ! -f "$T/work/flaky.failed" ]; then touch "$T/work/flaky.failed"; echo "flaky: failing once" >&2; exit 1; fi
exec "$farmrt" "\$@"
FLAKY
chmod 755 flaky_farmrt.sh
flaky=$(FARMRT=$T/work/flaky_farmrt.sh "$slurm_scripts/submit_frames.sh" --cpus-per-task=1 -J flaky -- \
        "$scene" 1-2 2 -o flaky_#.pfm --spp 4 --quiet 2>/dev/null)
doomed=$(FARMRT_RETRIES=1 "$slurm_scripts/submit_frames.sh" --cpus-per-task=1 -J doomed -- \
         "$scene" 1 1 -o doomed_#.pfm --spp 4 --quiet --inject-failure 0:1 2>/dev/null)
bad=$("$slurm_scripts/submit_frames.sh" --cpus-per-task=1 -J bad -- \
      "$scene" 1 1 -o bad_#.pfm --spp 4 --quiet --set camera.vfov=-5 2>/dev/null)
note "submitted the retry tests: $flaky (fails once), $doomed (always fails), $bad (bad input)"

# 6. The scaling-study submission: one job per configuration, then the report job.
rank_list=1
[ "$ranks" -gt 1 ] && rank_list="1 $ranks"
scaling_report=$("$slurm_scripts/submit_scaling.sh" --kind strong --nodes 1 --ranks-per-node "$rank_list" --threads 1 \
                 --scene "$scene" --width 64 --height 40 --spp 4 --out "$T/work/scaling" 2>/dev/null)
note "submitted the scaling study; report job $scaling_report"

# ---- wait (bounded) ------------------------------------------------------------------
while [ -n "$(squeue -h -o %i 2>/dev/null)" ]; do
    if past_deadline; then
        fail "jobs still queued after ${deadline_seconds}s: $(squeue 2>&1)"
        break
    fi
    sleep 1
done
note "queue empty"

# ---- check -------------------------------------------------------------------------------
cmp -s ref_still.pfm still.pfm || fail "render.sbatch: still.pfm differs from the local render"
[ "$(job_field "$still" JobState)" = COMPLETED ] || fail "job $still: $(job_field "$still" JobState)"
for f in 1 2 3 4 5 6 7; do
    cmp -s "ref_seq_0$f.pfm" "seq_0$f.pfm" || fail "frames_array: seq_0$f.pfm missing or different"
done
for t in 0 1 2; do
    state=$(scontrol show job "${array}_$t" 2>/dev/null | tr ' ' '\n' | sed -n 's/^JobState=//p' | head -n 1)
    [ "$state" = COMPLETED ] || fail "array task $t: state '$state'"
done
for f in 1 2; do cmp -s "ref_slow_$f.pfm" "slow_$f.pfm" || fail "requeued array task: slow_$f.pfm differs from the uninterrupted render"; done
restarts=$(job_field "${requeue_array}_0" Restarts)
[ "${restarts:-0}" -ge 1 ] || fail "the array task was not requeued (Restarts=${restarts:-?})"
grep -q "requeueing task 0" farmrt-requeue-*.out || fail "array task log does not show the requeue"
cmp -s ref_big.pfm big.pfm || fail "requeued render.sbatch: big.pfm differs from the uninterrupted render"
restarts_batch=$(job_field "$big" Restarts)
[ "${restarts_batch:-0}" -ge 1 ] || fail "render.sbatch job was not requeued (Restarts=${restarts_batch:-?})"
for f in 1 2; do cmp -s "ref_seq_0$f.pfm" "flaky_$f.pfm" || fail "retried task: flaky_$f.pfm missing or different"; done
[ "$(job_field "${flaky}_0" JobState)" = COMPLETED ] || fail "retried task: $(job_field "${flaky}_0" JobState)"
[ "$(job_field "${flaky}_0" Restarts)" = 1 ] || fail "retried task: Restarts=$(job_field "${flaky}_0" Restarts), expected 1"
grep -q "requeueing to retry with --resume" farmrt-flaky-*.out || fail "retried task log does not show the retry"
[ "$(job_field "${doomed}_0" Restarts)" = 1 ] || fail "always-failing task: Restarts=$(job_field "${doomed}_0" Restarts), expected 1 (FARMRT_RETRIES=1)"
[ "$(job_field "${doomed}_0" JobState)" = FAILED ] || fail "always-failing task: $(job_field "${doomed}_0" JobState)"
grep -q "failed with status 1 2 times; not retried again" farmrt-doomed-*.out || fail "always-failing task log: $(cat farmrt-doomed-*.out)"
[ "$(job_field "${bad}_0" Restarts)" = 0 ] || fail "bad-input task was retried (Restarts=$(job_field "${bad}_0" Restarts))"
grep -q "bad input (exit 2), not retried" farmrt-bad-*.out || fail "bad-input task log: $(cat farmrt-bad-*.out)"
ls ./*.checkpoint 2>/dev/null && fail "checkpoints left behind"
[ "$(job_field "$scaling_report" JobState)" = COMPLETED ] || fail "scaling report job: $(job_field "$scaling_report" JobState)"
for f in strong_scaling_slurm.csv strong_scaling_slurm.md; do
    [ -s "scaling/$f" ] || fail "scaling study: scaling/$f missing"
done
if python3 -c 'import matplotlib' 2>/dev/null; then
    [ -s scaling/strong_scaling_slurm.png ] || fail "scaling study: no plot"
fi
expected_rows=$(( $(echo "$rank_list" | wc -w) + 1 ))
[ "$(wc -l < scaling/strong_scaling_slurm.csv)" -eq "$expected_rows" ] ||
    fail "scaling study CSV: $(cat scaling/strong_scaling_slurm.csv)"

note "array task requeued ${restarts:-0}x, batch job requeued ${restarts_batch:-0}x; retries checked"
if [ $failures -eq 0 ]; then
    note "slurm test: all passed"
    exit 0
fi
exit 1
