#!/usr/bin/env bash
# Renders tests/data/reference.pfm, the stored reference of the end-to-end
# render test (tests/render/test_render_reference.cpp): reference_scene.yaml at
# 8192 samples per pixel with seed 1001, a seed the test never uses, so that
# the test compares two independent estimates of the same image.
# Rerun it only when the physics is meant to change, and say why in the commit.
#
# usage: tests/data/make_reference.sh [FARMRT_BINARY]   (default: build/farmrt)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
farmrt=${1:-$here/../../build/farmrt}
"$farmrt" "$here/reference_scene.yaml" --spp 8192 --seed 1001 --quiet -o "$here/reference.pfm"
{
    echo "reference.pfm: $(basename "$farmrt") $("$farmrt" --version | cut -d' ' -f2)," \
        "commit $(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo unknown), $(date -u +%Y-%m-%d)"
    echo "command: tests/data/make_reference.sh (reference_scene.yaml --spp 8192 --seed 1001)"
} >"$here/reference.txt"
cat "$here/reference.txt"
