#!/usr/bin/env bash
# The SIMD kernel objects (each built with its instruction set's -m flags) must
# export nothing but their constant kernel table, and run no code at start-up:
# an inline function or template emitted there as a weak symbol could be picked
# by the linker for the portable code too, and then run AVX-512 instructions on
# a CPU without them. Usage: check_kernel_objects.sh [--sanitized] OBJECT...
# --sanitized (ASan builds, for tests only): AddressSanitizer's own global
# registration (an __odr_asan symbol and a module constructor) is allowed.
set -euo pipefail
sanitized=0
if [ "${1:-}" = --sanitized ]; then sanitized=1; shift; fi
status=0
for object in "$@"; do
    # Defined, non-local symbols other than the table and the personality reference.
    unexpected=$(nm -C --defined-only "$object" | awk '$2 !~ /^[tdbrn]$/' |
        grep -v -E ' [DR] farmrt::simd::k(Sse42|Avx2|Avx512)Kernels$' |
        grep -v -E ' V DW\.ref\.__gxx_personality_v0$' |
        { if [ "$sanitized" = 1 ]; then grep -v -E ' [BD] __odr_asan\.'; else cat; fi; } || true)
    if [ -n "$unexpected" ]; then
        echo "$object: exports symbols besides its kernel table:"
        echo "$unexpected"
        status=1
    fi
    if [ "$sanitized" = 0 ] && objdump -h "$object" | grep -q -E '\.(init_array|ctors)'; then
        echo "$object: has static initialisers (code that would run at start-up on any CPU)"
        status=1
    fi
done
[ "$status" = 0 ] && echo "kernel objects OK: $#"
exit $status
