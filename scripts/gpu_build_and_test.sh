#!/usr/bin/env bash
# Builds farmrt with the CUDA backend and runs every test on a GPU machine,
# then runs compute-sanitizer (memcheck, initcheck) over the GPU tests and the
# test scenes. Made for a GPU machine (CUDA 13, CMake, Open MPI,
# yaml-cpp, GoogleTest; no OpenImageIO, no package registry: the header-only
# Debian packages it lacks are unpacked under .deps/root on a Debian machine
# and carried there:
#   for p in libxsimd-dev xtl-dev libtinyobjloader-dev libtinyobjloader2rc10 libcli11-dev libtinygltf-dev libtinygltf2d libstb0; do apt-get download $p; done
#   for f in *.deb; do dpkg -x $f .deps/root; done
# ), but works on any Linux machine with nvcc and a GPU.
#
#   scripts/gpu_build_and_test.sh [BUILD_DIR]      (default: build-gpu)
#
# Logs go to $LOG_DIR (default BUILD_DIR/logs); a summary table is printed last.
# Warnings are not errors here (FARMRT_GPU_WERROR=ON makes them so): the GPU
# machine's newer g++ warns where CI's does not (CI builds with -Werror);
# build.log keeps them, and the summary counts them.
# FARMRT_CMAKE_EXTRA: more configure arguments (e.g. -DFARMRT_CUDA_EXPERIMENTS=ON);
# FARMRT_GPU_STEPS: "all" (default), or a comma-separated choice of the
# optional steps "cpu" (the CPU tests), "sanitizer" and "farm" (frame reports
# under mpirun with a GPU rank); "gpu" runs none of them (build, GPU tests and
# the command-line check only: a short device call).
# Exit status: 0 when every step passed.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build-gpu}
logs=${LOG_DIR:-$build/logs}
mkdir -p "$build" "$logs"
jobs=$(nproc)
configure_extra=()
if [ -d "$root/.deps/root/usr" ]; then
  configure_extra+=("-DCMAKE_PREFIX_PATH=$root/.deps/root/usr" "-DCMAKE_LIBRARY_PATH=$root/.deps/root/usr/lib/x86_64-linux-gnu")
  # libtinygltf.so finds its own dependency (libstb) there too.
  export LD_LIBRARY_PATH=$root/.deps/root/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  # The assimp-testmodels the model tests read, where carried (a few of them).
  [ -d "$root/.deps/root/usr/share/assimp/models" ] &&
    configure_extra+=("-DFARMRT_ASSIMP_MODELS=$root/.deps/root/usr/share/assimp/models")
fi
export PATH=/usr/local/cuda/bin:$PATH

summary=()
failed=0
step() {  # step NAME COMMAND...: runs the command, logs to $logs/NAME.log
  local name=$1; shift
  local start=$SECONDS
  "$@" >"$logs/$name.log" 2>&1
  local rc=$?
  local verdict=ok
  if [ $rc -ne 0 ]; then verdict="FAILED (exit $rc, see $name.log)"; failed=1; fi
  summary+=("$(printf '%-28s %-40s %4ss' "$name" "$verdict" $((SECONDS - start)))")
  echo "== $name: $verdict"
  [ $rc -ne 0 ] && tail -n 30 "$logs/$name.log"
  return $rc
}

step machine bash -c 'nvidia-smi; nvcc --version; cmake --version | head -1; g++ --version | head -1'
step configure cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DFARMRT_WITH_OPENIMAGEIO=OFF -DFARMRT_WITH_ASSIMP=OFF -DFARMRT_WARNINGS_AS_ERRORS=${FARMRT_GPU_WERROR:-OFF} -DFARMRT_CUDA_RESOURCE_USAGE=ON \
  "${configure_extra[@]}" ${FARMRT_CMAKE_EXTRA:-} || { printf '%s\n' "${summary[@]}"; exit 1; }
step build ninja -C "$build" -j "$jobs" || { printf '%s\n' "${summary[@]}"; exit 1; }
summary+=("$(printf '%-28s %s' build_warnings "$(grep -c 'warning:' "$logs/build.log") (see build.log)")")
grep -A2 "Compiling entry function" "$logs/build.log" | grep -E "entry|Used|stack" > "$logs/kernel_resources.txt" || true

# CPU tests in parallel; GPU tests one at a time (one of them fills the GPU's memory).
steps=${FARMRT_GPU_STEPS:-all}
want() { [ "$steps" = all ] || [[ ",$steps," == *",$1,"* ]]; }
want cpu && step ctest_cpu ctest --test-dir "$build" --output-on-failure -j "$jobs" -LE cuda
step ctest_gpu ctest --test-dir "$build" --output-on-failure -j 1 -L cuda
step gpu_tests_verbose "$build/tests/farmrt_cuda_tests"

# compute-sanitizer: no invalid accesses, no reads of uninitialised device
# memory, on the GPU tests (minus the one that provokes errors on purpose) and
# on the command line over the test scenes.
sanitize() {
  local tool=$1
  compute-sanitizer --tool "$tool" --error-exitcode 99 \
    "$build/tests/farmrt_cuda_tests" --gtest_filter='CudaGpu.*:-CudaGpu.ErrorsAreOneLine' || return 1
  for scene in tiny emissive spheres; do
    for math in exact fast; do
      compute-sanitizer --tool "$tool" --error-exitcode 99 "$build/farmrt" "$root/configs/$scene.yaml" \
        --backend cuda --gpu-math "$math" --width 64 --height 36 --spp 4 -o "$build/sanitized_$scene.pfm" --quiet \
        || return 1
    done
  done
  # Adaptive sampling (pixel lists, stops) and the AOVs' first hits on the GPU.
  compute-sanitizer --tool "$tool" --error-exitcode 99 "$build/farmrt" "$root/configs/interior.yaml" --backend cuda \
    --width 64 --height 36 --spp 40 --min-spp 4 --noise-threshold 0.1 --aov albedo,normal,depth,samples,variance \
    -o "$build/sanitized_interior.pfm" --quiet || return 1
  # The split kernels, with a pool smaller than a launch.
  for scene in spheres interior models; do
    FARMRT_CUDA_INTEGRATOR=split FARMRT_CUDA_PATHS=1024 compute-sanitizer --tool "$tool" --error-exitcode 99 \
      "$build/farmrt" "$root/configs/$scene.yaml" --backend cuda --width 64 --height 36 --spp 4 \
      -o "$build/sanitized_split_$scene.pfm" --quiet || return 1
  done
}
if want sanitizer; then
  step sanitizer_memcheck sanitize memcheck
  step sanitizer_initcheck sanitize initcheck
fi

# The command line on the GPU: exact math gives the CPU's bytes, AOVs included.
same_bytes() {
  local args=(configs/spheres.yaml --width 320 --height 180 --spp 16 --quiet --aov albedo,normal,depth,samples)
  cd "$root" || return 1
  "$build/farmrt" "${args[@]}" --backend cpu -o "$build/cli_cpu.pfm" &&
    "$build/farmrt" "${args[@]}" --backend cuda -o "$build/cli_cuda.pfm" || return 1
  for aov in "" .albedo .normal .depth .samples; do cmp "$build/cli_cpu$aov.pfm" "$build/cli_cuda$aov.pfm" || return 1; done
  # A window of the frame (image.region) on both GPU integrators: the CPU's
  # window, which tests/cmd/image_region.sh shows is the whole frame's.
  local crop=(configs/cornell.yaml --width 160 --height 90 --spp 8 --quiet --crop 37,121,11,70 --aov depth)
  "$build/farmrt" "${crop[@]}" --backend cpu -o "$build/crop_cpu.pfm" || return 1
  local integrator
  for integrator in megakernel split; do
    FARMRT_CUDA_INTEGRATOR=$integrator "$build/farmrt" "${crop[@]}" --backend cuda -o "$build/crop_$integrator.pfm" ||
      return 1
    for aov in "" .depth; do cmp "$build/crop_cpu$aov.pfm" "$build/crop_$integrator$aov.pfm" || return 1; done
  done
}
step cli_cuda_equals_cpu same_bytes

# image.alpha on the GPU: the colour and its alpha are the CPU's bytes with
# per-sample and per-pixel work items, on both integrators, with and
# without adaptive sampling (the alpha sum after the statistics).
same_bytes_alpha() {
  cd "$root" || return 1
  local args integrator items
  for args in "configs/spheres.yaml --spp 16" "configs/interior.yaml --spp 96 --min-spp 8 --noise-threshold 0.05"; do
    # shellcheck disable=SC2086
    local run=($args --width 160 --height 90 --quiet --set image.alpha=true)
    "$build/farmrt" "${run[@]}" --backend cpu -o "$build/alpha_cpu.pfm" || return 1
    for integrator in megakernel split; do
      for items in samples pixels; do
        [ $integrator = split ] && [ $items = pixels ] && continue  # the split kernels take per-sample items only
        FARMRT_CUDA_INTEGRATOR=$integrator FARMRT_CUDA_ITEMS=$items "$build/farmrt" "${run[@]}" --backend cuda \
          -o "$build/alpha_gpu.pfm" || return 1
        for suffix in .pfm .alpha.pfm; do
          cmp "$build/alpha_cpu$suffix" "$build/alpha_gpu$suffix" || { echo "$args $integrator $items"; return 1; }
        done
      done
    done
  done
}
step cli_alpha_cuda_equals_cpu same_bytes_alpha

# The rays --stats counts by kind: camera extension shadow.
rays_counted() {
  python3 -c 'import json, sys; r = json.load(open(sys.argv[1]))["rays"]; print(r["camera"], r["extension"], r["shadow"])' "$1"
}

# Both GPU integrators (megakernel, split kernels) give the CPU's bytes on
# every config, and count the CPU's rays, on the GPU's 4-wide BVH (the
# default) with the split kernels' paths sorted into a shading queue per
# material type, and on the CPU's binary BVH with one shading kernel for
# every type; with every camera projection and with adaptive sampling (the
# default shading: the scene's types).
integrators_equal_cpu() {
  cd "$root" || return 1
  local config name integrator tree args shading
  for config in configs/*.yaml; do
    name=$(basename "$config" .yaml)
    "$build/farmrt" "$config" --width 120 --height 68 --spp 8 --quiet --backend cpu -o "$build/every_cpu.pfm" \
      --stats "$build/every_cpu.json" || return 1
    for integrator in megakernel split; do
      for tree in 1 0; do
        shading=$([ $tree = 1 ] && echo sorted || echo all)
        FARMRT_CUDA_SHADING=$shading FARMRT_CUDA_EXACT_WIDE=$tree FARMRT_CUDA_INTEGRATOR=$integrator "$build/farmrt" "$config" --width 120 \
          --height 68 --spp 8 --quiet --backend cuda -o "$build/every_$integrator.pfm" \
          --stats "$build/every_$integrator.json" || return 1
        cmp "$build/every_cpu.pfm" "$build/every_$integrator.pfm" || { echo "$name $integrator wide $tree differs"; return 1; }
        [ "$(rays_counted "$build/every_cpu.json")" = "$(rays_counted "$build/every_$integrator.json")" ] || {
          echo "$name $integrator: rays $(rays_counted "$build/every_$integrator.json"), the CPU's $(rays_counted "$build/every_cpu.json")"
          return 1
        }
      done
    done
  done
  # Larger frames on the 4-wide BVH: more rays to meet a near-tie.
  for args in "configs/spheres.yaml --width 1200 --height 675 --spp 16" "configs/models.yaml --spp 32"; do
    # shellcheck disable=SC2086
    "$build/farmrt" $args --quiet --backend cpu -o "$build/large_cpu.pfm" &&
      "$build/farmrt" $args --quiet --backend cuda -o "$build/large_gpu.pfm" &&
      cmp "$build/large_cpu.pfm" "$build/large_gpu.pfm" || { echo "$args differs"; return 1; }
  done
  # The orthographic and equirectangular cameras.
  local projection
  for projection in orthographic equirectangular; do
    for name in spheres cornell models textured; do
      local view=(configs/$name.yaml --width 120 --height 68 --spp 8 --quiet --set camera.projection=$projection)
      "$build/farmrt" "${view[@]}" --backend cpu -o "$build/view_cpu.pfm" || return 1
      for integrator in megakernel split; do
        FARMRT_CUDA_INTEGRATOR=$integrator "$build/farmrt" "${view[@]}" --backend cuda -o "$build/view_gpu.pfm" || return 1
        cmp "$build/view_cpu.pfm" "$build/view_gpu.pfm" || { echo "$name $projection $integrator differs"; return 1; }
      done
    done
  done
  local args=(configs/interior.yaml --width 240 --height 135 --spp 160 --min-spp 8 --noise-threshold 0.02 --quiet
              --aov samples,variance)
  "$build/farmrt" "${args[@]}" --backend cpu -o "$build/adaptive_every_cpu.pfm" \
    --stats "$build/adaptive_every_cpu.json" || return 1
  # Per-sample items on both integrators, and per-pixel items on the megakernel.
  # Launches that end at every decision (no lookahead, no fill) trace the CPU's rays.
  for integrator in megakernel split pixels; do
    FARMRT_CUDA_LOOKAHEAD=0 FARMRT_CUDA_ADAPTIVE_FILL=0 FARMRT_CUDA_ITEMS=$([ $integrator = pixels ] && echo pixels || echo samples) \
      FARMRT_CUDA_INTEGRATOR=$([ $integrator = split ] && echo split || echo megakernel) \
      "$build/farmrt" "${args[@]}" --backend cuda \
      -o "$build/adaptive_every_$integrator.pfm" --stats "$build/adaptive_every_$integrator.json" || return 1
    for aov in "" .samples .variance; do
      cmp "$build/adaptive_every_cpu$aov.pfm" "$build/adaptive_every_$integrator$aov.pfm" || return 1
    done
    [ "$(rays_counted "$build/adaptive_every_cpu.json")" = "$(rays_counted "$build/adaptive_every_$integrator.json")" ] ||
      { echo "adaptive $integrator: rays differ from the CPU's"; return 1; }
  done
}
step integrators_equal_cpu integrators_equal_cpu

# Adaptive sampling on the GPU: the same stops, counts and variances as the
# CPU, with per-sample and per-pixel work items, and under mpirun with rank 0
# on the GPU beside two CPU ranks.
same_bytes_adaptive() {
  local args=(configs/interior.yaml --width 240 --height 135 --spp 160 --min-spp 8 --noise-threshold 0.02 --quiet
              --aov samples,variance)
  cd "$root" || return 1
  "$build/farmrt" "${args[@]}" --backend cpu -o "$build/adaptive_cpu.pfm" &&
    "$build/farmrt" "${args[@]}" --backend cuda -o "$build/adaptive_cuda.pfm" &&
    FARMRT_CUDA_ITEMS=pixels "$build/farmrt" "${args[@]}" --backend cuda -o "$build/adaptive_cuda_pixels.pfm" &&
    OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
      OMPI_MCA_mca_base_param_files="$root/mpi/openmpi-mca-params.conf" \
      mpirun -n 3 "$build/farmrt" "${args[@]}" --backend auto --threads 4 -o "$build/adaptive_mixed.pfm" || return 1
  # Launches that look far past decisions (speculative_run_end), on both integrators.
  local lookahead
  for lookahead in 100 400; do
    FARMRT_CUDA_LOOKAHEAD=$lookahead "$build/farmrt" "${args[@]}" --backend cuda -o "$build/adaptive_ahead$lookahead.pfm" &&
      FARMRT_CUDA_LOOKAHEAD=$lookahead FARMRT_CUDA_INTEGRATOR=split "$build/farmrt" "${args[@]}" --backend cuda \
        -o "$build/adaptive_split_ahead$lookahead.pfm" || return 1
  done
  # Split launches filled past the lookahead while few pixels still sample (run_end_within).
  local fill
  for fill in 0 400 1000; do
    FARMRT_CUDA_ADAPTIVE_FILL=$fill FARMRT_CUDA_INTEGRATOR=split "$build/farmrt" "${args[@]}" --backend cuda \
      -o "$build/adaptive_split_fill$fill.pfm" || return 1
  done
  for run in cuda cuda_pixels mixed ahead100 ahead400 split_ahead100 split_ahead400 split_fill0 split_fill400 split_fill1000; do
    for aov in "" .samples .variance; do cmp "$build/adaptive_cpu$aov.pfm" "$build/adaptive_$run$aov.pfm" || return 1; done
  done
  # The book's estimator (the naive-only kernels) too; fast math runs (its bytes are its own).
  "$build/farmrt" "${args[@]}" --integrator naive --backend cpu -o "$build/adaptive_naive_cpu.pfm" &&
    "$build/farmrt" "${args[@]}" --integrator naive --backend cuda -o "$build/adaptive_naive_cuda.pfm" &&
    "$build/farmrt" "${args[@]}" --backend cuda --gpu-math fast -o "$build/adaptive_fast.pfm" || return 1
  for aov in "" .samples .variance; do
    cmp "$build/adaptive_naive_cpu$aov.pfm" "$build/adaptive_naive_cuda$aov.pfm" || return 1
  done
}
step cli_adaptive_cuda_equals_cpu same_bytes_adaptive

# A stop while the GPU renders a band keeps the band's sample passes that
# finished (one process, and a GPU worker rank under mpirun); the resumed
# image equals the uninterrupted one.
stop_keeps_gpu_passes() {
  local args=(configs/spheres.yaml --width 96 --height 54 --spp 4000000 --backend cuda)
  cd "$root" || return 1
  "$build/farmrt" "${args[@]}" --quiet -o "$build/stop_full.pfm" || return 1
  local launcher
  for launcher in one mpirun; do
    local run=("$build/farmrt")
    [ "$launcher" = mpirun ] && run=(env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
      OMPI_MCA_mca_base_param_files="$root/mpi/openmpi-mca-params.conf" mpirun -n 2 "$build/farmrt")
    rm -f "$build/stop_part.pfm" "$build/stop_part.pfm.checkpoint"
    "${run[@]}" "${args[@]}" -o "$build/stop_part.pfm" 2>"$build/stop_$launcher.log" &
    local pid=$!
    sleep 4
    if [ "$launcher" = mpirun ]; then pkill -USR1 -f "farmrt configs/spheres.yaml" ; else kill -TERM $pid; fi
    wait $pid
    local rc=$?
    tail -n 1 "$build/stop_$launcher.log"
    [ $rc -eq 75 ] || { echo "$launcher: exit $rc"; return 1; }
    grep -Eq "1 checkpoint saved with [0-9.e+]+ pixel samples" "$build/stop_$launcher.log" ||
      { echo "$launcher: no checkpoint kept"; return 1; }
    "${run[@]}" "${args[@]}" --quiet --resume -o "$build/stop_part.pfm" || return 1
    cmp "$build/stop_full.pfm" "$build/stop_part.pfm" || return 1
  done
}
step stop_keeps_gpu_passes stop_keeps_gpu_passes

# Several GPUs in one process (and the cores beside them): the CPU's bytes,
# AOVs and adaptive sampling included; two ranks of one node each driving
# every GPU (--gpus all); a stop and resume across the group. Skipped with
# fewer than 2 GPUs.
several_gpus_one_process() {
  local count
  count=$(nvidia-smi -L | grep -c '^GPU')
  [ "$count" -ge 2 ] || { echo "one GPU: skipped"; return 0; }
  cd "$root" || return 1
  local args=(configs/interior.yaml --width 240 --height 135 --spp 96 --min-spp 8 --noise-threshold 0.05 --quiet
              --aov albedo,normal,depth,samples,variance)
  "$build/farmrt" "${args[@]}" --backend cpu -o "$build/group_cpu.pfm" || return 1
  local run
  for run in "cuda --gpus 0,1" "auto" "cuda --gpus 1,0" "auto --gpus all --threads 3"; do
    # shellcheck disable=SC2086
    "$build/farmrt" "${args[@]}" --backend $run -o "$build/group_gpu.pfm" || return 1
    for aov in "" .albedo .normal .depth .samples .variance; do
      cmp "$build/group_cpu$aov.pfm" "$build/group_gpu$aov.pfm" || { echo "--backend $run: $aov differs"; return 1; }
    done
  done
  # The split kernels' queue per material type (models.yaml's principled
  # spheres beside the walls' lambertian) on both GPUs.
  local models=(configs/models.yaml --width 160 --height 160 --spp 32 --quiet)
  "$build/farmrt" "${models[@]}" --backend cpu -o "$build/group_models_cpu.pfm" || return 1
  "$build/farmrt" "${models[@]}" --backend cuda --gpus 0,1 -o "$build/group_models_gpu.pfm" || return 1
  cmp "$build/group_models_cpu.pfm" "$build/group_models_gpu.pfm" || { echo "models.yaml on two GPUs differs"; return 1; }
  OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_mca_base_param_files="$root/mpi/openmpi-mca-params.conf" \
    mpirun -n 2 "$build/farmrt" "${args[@]}" --backend auto --gpus all -o "$build/group_ranks.pfm" || return 1
  cmp "$build/group_cpu.pfm" "$build/group_ranks.pfm" || return 1
  # Stopped while the group renders, then resumed: the uninterrupted bytes.
  local big=(configs/spheres.yaml --width 320 --height 180 --spp 400000 --backend auto)
  "$build/farmrt" "${big[@]}" --quiet -o "$build/group_full.pfm" || return 1
  rm -f "$build/group_part.pfm" "$build/group_part.pfm.checkpoint"
  "$build/farmrt" "${big[@]}" -o "$build/group_part.pfm" 2>"$build/group_stop.log" &
  local pid=$!
  sleep 3
  kill -TERM $pid
  wait $pid
  local rc=$?
  tail -n 1 "$build/group_stop.log"
  [ $rc -eq 75 ] || { echo "stop: exit $rc"; return 1; }
  "$build/farmrt" "${big[@]}" --quiet --resume -o "$build/group_part.pfm" || return 1
  cmp "$build/group_full.pfm" "$build/group_part.pfm"
}
step several_gpus_one_process several_gpus_one_process

# Frame log, time limit, previews and AOVs under mpirun with a GPU rank
# (auto: rank 0 takes the GPU, ranks 1 and 2 the CPU).
frame_reports_with_gpu_rank() {
  FARMRT_TEST_BACKEND=auto OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
    OMPI_MCA_mca_base_param_files="$root/mpi/openmpi-mca-params.conf" \
    "$root/tests/farm/frame_reports.sh" "$build/farmrt" "$root" mpirun
}
want farm && step frame_reports_gpu_rank frame_reports_with_gpu_rank

echo
echo "step                         result                                   time"
printf '%s\n' "${summary[@]}"
exit $failed
