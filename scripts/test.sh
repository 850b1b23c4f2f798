#!/usr/bin/env bash
# Builds and runs the whole test suite: a Release build with warnings as errors,
# then the same tests under AddressSanitizer + UndefinedBehaviorSanitizer, then
# a short run of each fuzz target (scripts/fuzz.sh; FARMRT_FUZZ_SECONDS, default 30).
# Installs the test-only packages first (scripts/install_dependencies.sh --tests).
#   scripts/test.sh
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install_dependencies.sh --tests
jobs=$(nproc)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

echo "== Release build (-Werror) =="
cmake --preset release >/dev/null
cmake --build --preset release -j "$jobs"
(cd build-test && ctest --output-on-failure -j "$jobs" --timeout 600)

echo "== ASan + UBSan build =="
# The asan preset (CMakePresets.json) builds with -g1: line tables only,
# what the sanitizers' stack traces print; full -g adds GCC's variable
# tracking, the slow part of debug information.
cmake --preset asan >/dev/null
cmake --build --preset asan -j "$jobs"
export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
(cd build-asan && ctest --output-on-failure -j "$jobs" --timeout 900 -LE no_sanitizer)

echo "== Fuzzing (libFuzzer, ASan + UBSan): each input reader for ${FARMRT_FUZZ_SECONDS:-30} s =="
scripts/fuzz.sh "${FARMRT_FUZZ_SECONDS:-30}" build-fuzz
