#!/usr/bin/env bash
# Builds the libFuzzer targets (tests/fuzz/) with clang, ASan and UBSan, and
# runs each for SECONDS (default 60), as many at once as there are cores,
# from its committed seed corpus
# (tests/fuzz/corpus/TARGET/; new inputs found go to a scratch copy, not into
# the repository). Exit status 1 when any target finds something, its
# reproducer left in BUILD_DIR/findings/.
#   scripts/fuzz.sh [SECONDS] [BUILD_DIR] [TARGET...]
#   (defaults: 60 s, build-fuzz, every target: scene obj image checkpoint frame_list gltf ply mtl
#    texture output_path model_cache)
# A target with a dictionary (tests/fuzz/dictionaries/TARGET.dict: tokens that
# reach deep nesting and huge counts) runs with it.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
seconds=${1:-60}
build=${2:-$root/build-fuzz}
mkdir -p "$build" && build=$(cd "$build" && pwd)  # absolute: the targets run from findings/
targets=(scene obj image checkpoint frame_list gltf ply mtl texture output_path model_cache)
[ $# -gt 2 ] && targets=("${@:3}")
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ \
    -DFARMRT_FUZZ=ON -DFARMRT_BUILD_TESTS=OFF -DFARMRT_WITH_CUDA=OFF -DFARMRT_WITH_SIMD=OFF \
    -DFARMRT_WITH_OPENIMAGEIO=ON >/dev/null
cmake --build "$build" -j "$(nproc)" --target "${targets[@]/#/fuzz_}"
mkdir -p "$build/findings"
export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# Sanitizer reports go to files of their own (BUILD_DIR/fuzz_TARGET.sanitizer.PID): a
# reader that captures stderr around a library call (image_output.cpp) would
# otherwise swallow a report made inside that call.
# One target: its log in BUILD_DIR/fuzz_TARGET.log, and fuzz_TARGET.failed
# when it found something.
fuzz_target() {
    local target=$1 corpus=$build/corpus/$1 dictionary=()
    rm -rf "$corpus" "$build/fuzz_$target.failed" "$build/fuzz_$target.sanitizer".* && mkdir -p "$corpus"
    cp "$root/tests/fuzz/corpus/$target/"* "$corpus/"
    [ -f "$root/tests/fuzz/dictionaries/$target.dict" ] && dictionary=(-dict="$root/tests/fuzz/dictionaries/$target.dict")
    # -rss_limit_mb: an input that makes farmrt allocate more than 1 GiB is a finding.
    (cd "$build/findings" && ASAN_OPTIONS=$ASAN_OPTIONS:log_path="$build/fuzz_$target.sanitizer" \
        UBSAN_OPTIONS=$UBSAN_OPTIONS:log_path="$build/fuzz_$target.sanitizer" "$build/tests/fuzz/fuzz_$target" -max_total_time="$seconds" -rss_limit_mb=1024 \
        -max_len=65536 -timeout=10 -print_final_stats=1 "${dictionary[@]}" "$corpus" 2>"$build/fuzz_$target.log") ||
        touch "$build/fuzz_$target.failed"
}
# As many targets at once as there are cores, each for its full time.
for target in "${targets[@]}"; do
    while [ "$(jobs -rp | wc -l)" -ge "$(nproc)" ]; do wait -n || true; done
    fuzz_target "$target" &
done
wait
status=0
for target in "${targets[@]}"; do
    echo "== fuzz_$target: $seconds s"
    if [ -f "$build/fuzz_$target.failed" ]; then
        tail -n 40 "$build/fuzz_$target.log"
        for report in "$build/fuzz_$target.sanitizer".*; do [ -f "$report" ] && head -n 40 "$report"; done
        status=1
    fi
    grep -E "^stat::number_of_executed_units|^stat::new_units_added" "$build/fuzz_$target.log" | tr '\n' ' '
    echo
done
exit $status
