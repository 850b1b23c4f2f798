#!/usr/bin/env bash
# The source tree's layering: src/core <- src/io <- src/render <- src/cmd.
# Backends (simd/, cuda/) see the core and the interface they implement
# (render/band_renderer.h, render/interrupt.h); mpi/ (what speaks MPI) sees every
# layer below cmd; only src/cmd knows simd/, cuda/ and mpi/. Every quoted
# include names its folder. Prints each include against the rule; exit 1 if any.
#   check_layering.sh SOURCE_DIR
set -uo pipefail
cd "$1" || exit 2
violations=0
allowed() {  # allowed FILE INCLUDE
    local file=$1 include=$2
    case "$include" in */*) ;; *) return 1 ;; esac
    local interface='render/band_renderer.h|render/interrupt.h'
    case "$file" in
        src/core/*) [[ $include =~ ^core/ ]] ;;
        src/io/*) [[ $include =~ ^(core|io)/ ]] ;;
        src/render/*) [[ $include =~ ^(core|io|render)/ ]] ;;
        src/cmd/*) true ;;
        simd/benchmark_*|cuda/cuda_benchmark*)  # programs: what a command sees
            [[ $include =~ ^(core|io|render|cmd)/ || $include =~ ^${file%%/*}/ ]] ;;
        simd/*) [[ $include =~ ^(core|simd)/ || $include =~ ^($interface)$ ]] ;;
        cuda/*) [[ $include =~ ^(core|cuda)/ || $include =~ ^($interface)$ ]] ;;
        mpi/*) [[ $include =~ ^(core|io|render|mpi)/ ]] ;;
        *) true ;;
    esac
}
while IFS= read -r file; do
    while IFS= read -r include; do
        if ! allowed "$file" "$include"; then
            echo "$file: includes \"$include\", against the layering"
            violations=$((violations + 1))
        fi
    done < <(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$file")
done < <(find src simd cuda mpi -type f \( -name '*.h' -o -name '*.cpp' -o -name '*.cu' -o -name '*.cuh' \) | sort)
[ $violations -eq 0 ] && echo "layering OK"
exit $((violations > 0))
