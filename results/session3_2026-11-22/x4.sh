#!/usr/bin/env bash
export PATH=/usr/local/cuda/bin:$PATH NCCL_NVLS_ENABLE=0
nvidia-smi -L; nproc
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DFARMRT_WITH_OPENIMAGEIO=OFF \
  -DCMAKE_PREFIX_PATH=$PWD/.deps/root/usr -DCMAKE_LIBRARY_PATH=$PWD/.deps/root/usr/lib/x86_64-linux-gnu >$OUT/configure.log 2>&1 \
  && ninja -C build-gpu farmrt >$OUT/build.log 2>&1 || { tail -30 $OUT/configure.log $OUT/build.log; exit 1; }
echo "build done $SECONDS s"
SIZES="1200x675:4096 3840x2160:1024" REPEATS=2 CONFIGS="gpu1 gpuN hybrid" scripts/benchmark_multi_gpu.sh build-gpu $OUT/x4 2>&1 | tail -25
echo "== x4 done $SECONDS s"
export OMPI_MCA_mca_base_param_files=$PWD/mpi/openmpi-mca-params.conf OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
for size in "1200 675 4096" "3840 2160 1024"; do set -- $size
  for rep in 1 2; do
    CUDA_VISIBLE_DEVICES=0,1 mpirun -n 2 --bind-to none build-gpu/farmrt configs/spheres.yaml --width $1 --height $2 --spp $3 --backend cuda --quiet -o $OUT/two_$1.pfm --stats $OUT/two_${1}_$rep.json
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print("2 GPUs", sys.argv[2], "samples/s", d["samples_per_second"], "render", d.get("render_seconds", d.get("wall_seconds")))' $OUT/two_${1}_$rep.json $1x$2x$3
  done
  for r in $OUT/x4/runs/*.pfm; do cmp -s $OUT/two_$1.pfm $r && echo "2-GPU bytes equal $r"; done
done
echo "== two done $SECONDS s"
cd $OUT && rm -f *.pfm; find x4 -name "*.pfm" -delete; tar czf x4.tgz x4 *.json *.log 2>/dev/null
