#!/usr/bin/env bash
# Chains measured on whole frames, and the host memory of bare CUDA contexts.
set -uo pipefail
root=$PWD; out=${OUT:-/tmp/out}; mkdir -p $out
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi -L > $out/gpus.txt
( nvcc -O2 -o /tmp/ctx_probe .deps/ctx_probe.cu && for m in LAZY EAGER; do echo "== CUDA_MODULE_LOADING=$m"; CUDA_MODULE_LOADING=$m /tmp/ctx_probe; CUDA_MODULE_LOADING=$m /tmp/ctx_probe launch; done ) > $out/ctx_probe.txt 2>&1
bash .deps/chain.sh ${STEPS:-build test time} 2>&1 | tee $out/whole_frames.txt | tail -5
for f in /tmp/c*.json; do python3 -c "import json,sys; d=json.load(open('$f')); print('$f', d.get('peak_resident_bytes',0)>>20, 'MiB')"; done > $out/rss.txt 2>&1
