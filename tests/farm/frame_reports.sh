#!/usr/bin/env bash
# End to end, under mpirun when MPIEXEC is given: --frame-log writes one JSON
# line per frame with every rank's memory; --time-limit ends frames at a pass
# boundary, records it in the image and the log, and --resume takes such a
# frame as done; --preview writes viewable images of the frame in progress
# without changing the final image.
# usage: frame_reports.sh FARMRT SOURCE_DIR [MPIEXEC]
#   FARMRT_TEST_BACKEND (default cpu): auto on a GPU machine makes rank 0 a
#   GPU rank (scripts/gpu_build_and_test.sh).
set -u
#   FARMRT_TEST_SANITIZED (set by ctest in sanitizer builds, which trace
#   about 30x slower): the renders that must outlast a few previews take a
#   tenth of the samples.
backend=${FARMRT_TEST_BACKEND:-cpu}
long=2000
[ -n "${FARMRT_TEST_SANITIZED:-}" ] && long=200
# A GPU rank renders 2000 samples of the tiny scene in a few passes' time:
# the second frame of a sequence could end before its first preview is due.
[ "$backend" = auto ] && long=20000
farmrt=$(realpath "$1")
source_dir=$(realpath "$2")
launcher=()
ranks=1
if [ -n "${3:-}" ]; then
    ranks=3
    launcher=("$3" -n "$ranks")
fi
scene=$source_dir/configs/tiny.yaml
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
run() { "${launcher[@]}" "$farmrt" "$scene" --quiet --backend "$backend" --threads 1 "$@"; }

# 1. The frame log: one line per frame, each a JSON object with what a farm
#    manager reads, appended across runs.
run --frames 1-3 -o 'seq_###.ppm' --spp 16 --frame-log log.jsonl || fail "sequence with --frame-log"
run --frames 4 -o 'seq_###.ppm' --spp 16 --frame-log log.jsonl || fail "second run appending to the log"
python3 - "$ranks" "$backend" <<'PY' || fail "frame log content"
import json, os, sys
ranks, backend = int(sys.argv[1]), sys.argv[2]
lines = open("log.jsonl").read().splitlines()
assert len(lines) == 4, f"{len(lines)} lines, expected 4"
entries = [json.loads(line) for line in lines]
assert sorted(e["frame"] for e in entries) == [1, 2, 3, 4], entries
for e in entries:
    assert e["spp"] == e["spp_requested"] == 16 and e["time_limited"] is False, e
    assert e["samples"] == 48 * 32 * 16, e
    assert os.path.isfile(e["output"]) and e["output"].endswith("seq_%03d.ppm" % e["frame"]), e
    assert e["seconds"]["render"] > 0 and e["seconds"]["write"] > 0 and e["samples_per_second"] > 0, e
    assert sorted(r["rank"] for r in e["ranks"]) == list(range(ranks)), e
    for r in e["ranks"]:
        assert r["peak_resident_bytes"] > 1 << 20, r
    gpus = [r for r in e["ranks"] if "gpu_memory_used_bytes" in r]
    assert backend == "cpu" and not gpus or backend != "cpu" and gpus and gpus[0]["gpu_memory_used_bytes"] > 1 << 20, e
print("frame log: 4 lines, ranks", ranks, "GPU ranks", len(gpus))
PY

# 2. The time limit: a frame asking for far more samples than fit in 0.5 s
#    ends soon after the limit, at a pass boundary, and says so.
start=$(date +%s.%N)
limited=(--width 320 --height 180 --spp 10000000 --time-limit 0.5)
run -o limited.ppm "${limited[@]}" --frame-log limit.jsonl || fail "render with --time-limit"
elapsed=$(python3 -c "import time; print(time.time() - $start)")
python3 -c "import sys; sys.exit(0 if $elapsed < 20 else 1)" || fail "--time-limit 0.5 took ${elapsed}s"
head -c 200 limited.ppm | grep -aq "time_limit=0.5 spp_requested=10000000" || fail "limited.ppm's metadata records the limit"
python3 - <<'PY' || fail "time-limited frame log"
import json
e = json.loads(open("limit.jsonl").read())
assert e["time_limited"] is True and 0 < e["spp"] < e["spp_requested"] == 10000000, e
assert e["samples"] == 320 * 180 * e["spp"], e
PY
cp limited.ppm limited.before
run -o limited.ppm "${limited[@]}" --resume || fail "--resume over a time-limited frame"
cmp -s limited.ppm limited.before || fail "--resume renders a time-limited frame again"

# 3. Previews: the frame in progress appears (a viewable PPM, never a
#    temporary), and the final image is the same bytes as without previews.
# (PFM: the final images hold no metadata, whose render time differs.)
run -o plain.pfm --spp $long --pass-samples 50 || fail "reference render"
run -o previewed.pfm --spp $long --pass-samples 50 --preview preview.ppm --preview-interval 0.05 || fail "render with --preview"
cmp -s plain.pfm previewed.pfm || fail "--preview changed the final image"
[ -f preview.ppm ] || fail "no preview written"
head -c 2 preview.ppm | grep -q P6 || fail "preview.ppm is not a PPM"
ls ./*.tmp* 2>/dev/null && fail "temporary files left behind"
run --frames 1-2 -o 'pseq_#.ppm' --spp $long --pass-samples 50 --preview 'pview_#.ppm' --preview-interval 0.05 ||
    fail "sequence with a preview pattern"
[ -f pview_1.ppm ] && [ -f pview_2.ppm ] || fail "a preview pattern gets one preview per frame: $(ls)"
# A preview that cannot be written is a warning, never a failed frame.
# (Its directory removed during the render: root ignores permissions.)
mkdir going
run -o unlocked.ppm --spp $((3 * long)) --pass-samples 50 --preview going/p.ppm --preview-interval 0.05 2>warnings.txt &
job=$!
for _ in $(seq 100); do [ -f going/p.ppm ] && break; sleep 0.1; done
rm -rf going 2>/dev/null || rm -rf going
wait $job || fail "a preview write failure failed the render"
[ -f unlocked.ppm ] || fail "the render with a failing preview wrote no image"
grep -q "warning: preview of frame 0 not written" warnings.txt || fail "no warning for the failed preview: $(cat warnings.txt)"
[ "$(grep -c "preview of frame" warnings.txt)" -le 1 ] || fail "the same preview failure warned more than once"

# 4. AOVs: the same bytes in one process on two threads as on this run's
#    ranks (each its one thread), written beside the PFM before it.
"$farmrt" "$scene" --quiet --backend cpu --threads 2 -o aov_ref.pfm --spp 8 --aov albedo,normal,depth,samples ||
    fail "AOV reference render"
run -o aov.pfm --spp 8 --aov albedo,normal,depth,samples || fail "render with AOVs"
for name in "" .albedo .normal .depth .samples; do
    [ -s "aov$name.pfm" ] || fail "aov$name.pfm missing"
    cmp -s "aov_ref$name.pfm" "aov$name.pfm" || fail "aov$name.pfm differs between decompositions"
done

[ $failures -eq 0 ] && echo "frame reports: all passed"
exit $((failures > 0))
