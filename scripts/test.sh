#!/usr/bin/env bash
# Builds and runs the whole test suite: a Release build with warnings as errors
# (cuda/ included wherever nvcc is installed, a GPU or not), then the same tests
# under AddressSanitizer + UndefinedBehaviorSanitizer, then the farm's threads
# under ThreadSanitizer, then a short run of each fuzz target (scripts/fuzz.sh;
# FARMRT_FUZZ_SECONDS, default 30).
# Installs the test-only packages first (scripts/install_dependencies.sh --tests).
#   scripts/test.sh
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install_dependencies.sh --tests
jobs=$(nproc)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

echo "== Formatting (.clang-format) =="
git ls-files '*.h' '*.cpp' '*.cu' '*.cuh' | xargs clang-format --dry-run --Werror

echo "== Release build (-Werror) =="
cmake --preset release >/dev/null
cmake --build --preset release -j "$jobs"
# nvcc compiles cuda/ without a GPU: where it is installed, the GPU backend
# must have been built (its tests then skip for want of a device).
if command -v nvcc >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ]; then
    [ -f build-test/cuda/libfarmrt_cuda.a ] || { echo "test.sh: nvcc is installed but cuda/ was not built"; exit 1; }
    echo "cuda/ compiled with $(command -v nvcc || echo /usr/local/cuda/bin/nvcc)"
fi
(cd build-test && ctest --output-on-failure -j "$jobs" --timeout 600)

echo "== ASan + UBSan build =="
# The asan preset (CMakePresets.json) builds with -g1: line tables only,
# what the sanitizers' stack traces print; full -g adds GCC's variable
# tracking, the slow part of debug information.
cmake --preset asan >/dev/null
cmake --build --preset asan -j "$jobs"
export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
(cd build-asan && ctest --output-on-failure -j "$jobs" --timeout 900 -LE no_sanitizer)

echo "== ThreadSanitizer build: the farm's threads =="
cmake --preset tsan >/dev/null
cmake --build --preset tsan -j "$jobs"
export TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 suppressions=$PWD/tests/thread_sanitizer.supp"
(cd build-tsan && ctest --output-on-failure -j "$jobs" --timeout 900 -L thread)

echo "== Fuzzing (libFuzzer, ASan + UBSan): each input reader for ${FARMRT_FUZZ_SECONDS:-30} s =="
scripts/fuzz.sh "${FARMRT_FUZZ_SECONDS:-30}" build-fuzz
