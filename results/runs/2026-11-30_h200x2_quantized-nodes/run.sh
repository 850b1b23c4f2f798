#!/usr/bin/env bash
# The 4-wide BVH in 64-byte nodes against 128-byte ones, on GPU 0 of the
# 2 x H200 host: ../2026-11-30_h200x2_leaf-refs/run.sh (correctness of the
# changed build against its CPU, fast math against the base build, the
# split kernels' scenes and fast-math spheres three times, interleaved)
# with the builds named in README.md, no timeline.
here=$(dirname "$0")
NAMES=${NAMES:-"eager_timeline quant"} CHANGED=${CHANGED:-quant} TIMELINE= \
  bash "$here/../2026-11-30_h200x2_leaf-refs/run.sh"
