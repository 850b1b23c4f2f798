#include "simd/cpu_renderer.h"

#include <omp.h>
#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>
#include <vector>
#include <cstdlib>
#include <cstring>

#include "core/errors.h"
#include "render/interrupt.h"
#include "simd/wide_accelerator.h"

namespace farmrt {

namespace {

// Samples of one tile traced between two looks at the stop flag: a 16x16
// tile at 64 samples is 16k paths, tens of milliseconds on one core.
constexpr uint32_t kSamplesBetweenStopChecks = 64;

}  // namespace

bool wide_traversal_pays(const SceneView& scene) {
    uint32_t geometry = 0;  // top-level primitives that the wide BVH packs (instances stay scalar)
    for (uint32_t i = 0; i < scene.primitive_count; ++i)
        geometry += scene.primitives[i].type() != PrimitiveType::Instance;
    return geometry >= kWideTraversalMinPrimitives;
}

std::vector<CpuRenderer::WorkUnit> cpu_work_units(uint32_t width, RowRange rows, uint32_t tile, int threads,
                                                  bool split_tail) {
    std::vector<CpuRenderer::WorkUnit> units;
    tile = std::max(1u, tile);
    const uint32_t tiles_x = (width + tile - 1) / tile;
    const uint32_t tiles_y = (rows.count() + tile - 1) / tile;
    const size_t tile_count = size_t(tiles_x) * tiles_y;
    // The last tiles handed out decide when the last thread finishes: a
    // thread that takes a whole tile just before the list runs out keeps the
    // others waiting for up to a tile's time (and the last rows of a frame,
    // the ground, are usually its most expensive). So the last
    // 2 x threads tiles go out in sub-tiles a quarter of the edge, which cuts
    // that wait about 16-fold. Which thread traces a pixel never changes its
    // sums (each pixel's samples are still added in order by one thread).
    const uint32_t sub = std::max(1u, tile / 4);
    const size_t split_from = split_tail && threads > 1 && sub < tile
                                  ? tile_count - std::min(tile_count, size_t(2) * size_t(threads))
                                  : tile_count;
    units.reserve(split_from + (tile_count - split_from) * ((tile + sub - 1) / sub) * ((tile + sub - 1) / sub));
    for (size_t t = 0; t < tile_count; ++t) {
        const uint32_t x0 = uint32_t(t % tiles_x) * tile;
        const uint32_t y0 = rows.begin + uint32_t(t / tiles_x) * tile;
        const uint32_t x1 = std::min(width, x0 + tile);
        const uint32_t y1 = std::min(rows.end, y0 + tile);
        if (t < split_from) {
            units.push_back({x0, y0, x1, y1});
            continue;
        }
        for (uint32_t y = y0; y < y1; y += sub) {
            for (uint32_t x = x0; x < x1; x += sub)
                units.push_back({x, y, std::min(x1, x + sub), std::min(y1, y + sub)});
        }
    }
    return units;
}

namespace {

// libgomp ends the process with its own message when it cannot create a
// team's threads (RLIMIT_NPROC, an address-space limit), so more threads than
// the CPU has are first created here, parked and released: a count the
// machine refuses is one line naming --threads and what ran out.
void check_threads_can_start(int threads) {
    if (threads <= int(std::max(1u, std::thread::hardware_concurrency()))) return;
    pthread_attr_t attributes;
    pthread_attr_init(&attributes);
    size_t stack = 0;
    pthread_attr_getstacksize(&attributes, &stack);  // what libgomp's threads get (OMP_STACKSIZE aside)
    std::atomic<bool> release{false};
    std::vector<pthread_t> started;
    int failure = 0;
    for (int i = 1; i < threads && failure == 0; ++i) {
        pthread_t thread;
        failure = pthread_create(
            &thread, &attributes,
            [](void* flag) -> void* {
                while (!static_cast<std::atomic<bool>*>(flag)->load())
                    std::this_thread::sleep_for(std::chrono::milliseconds(1));
                return nullptr;
            },
            &release);
        if (failure == 0) started.push_back(thread);
    }
    release = true;
    for (pthread_t thread : started) pthread_join(thread, nullptr);
    pthread_attr_destroy(&attributes);
    if (failure != 0) {
        throw InputError("--threads " + std::to_string(threads) + ": this process can start only " +
                         std::to_string(started.size() + 1) + " threads (" + std::strerror(failure) + ", stacks of " +
                         std::to_string(stack >> 20) + " MiB)");
    }
}

}  // namespace

CpuRenderer::CpuRenderer(const SceneView& scene, int threads, int tile_size, SimdLevel simd, const CpuTuning& tuning)
    : scene_(scene),
      threads_(threads > 0 ? threads : omp_get_max_threads()),
      tile_size_(std::max(1, tile_size)),
      simd_(simd),
      split_tail_(tuning.tail_split) {
    check_threads_can_start(threads_);
    // Start the OpenMP team now: a renderer renders many bands (the farm)
    // or frames, and the threads' creation belongs to start-up, not to the
    // first band's render time.
#pragma omp parallel num_threads(threads_)
    {}
    if (simd_ == SimdLevel::Off) return;
    if (!simd::kernels_for(simd_) || !simd_level_supported(simd_)) {
        throw RenderError(std::string("SIMD level ") + simd_level_name(simd_) + " is not available on this CPU");
    }
    const CpuTuning::Traversal traversal = tuning.traversal;
    if (traversal == CpuTuning::Traversal::Wide ||
        (traversal == CpuTuning::Traversal::Auto && wide_traversal_pays(scene_))) {
        simd::WideBvhOptions wide;
        if (tuning.largest_area_collapse) wide.collapse = simd::WideCollapse::LargestArea;
        accelerator_ = std::make_unique<simd::WideAccelerator>(scene_, simd_, wide);
    }
    // Otherwise exactly the scalar path (the level's Philox blocks alone did
    // not measurably pay on these scenes, whose paths are short).
}

CpuRenderer::~CpuRenderer() = default;

RayCounts CpuRenderer::rays_traced() const {
    RayCounts rays;
    rays.camera = camera_rays_.load(std::memory_order_relaxed);
    rays.extension = extension_rays_.load(std::memory_order_relaxed);
    rays.shadow = shadow_rays_.load(std::memory_order_relaxed);
    return rays;
}

std::string CpuRenderer::description() const {
    return std::string("cpu-") + (simd_ == SimdLevel::Off ? "scalar" : simd_level_name(simd_));
}

void CpuRenderer::render(const FrameSettings& frame, RowRange rows, SampleRange samples, float* sums,
                         std::atomic<uint64_t>* samples_done) {
    const SceneView& scene = scene_;
    const simd::WideAccelerator* accelerator = accelerator_.get();
    const std::vector<WorkUnit> units = cpu_work_units(frame.width, rows, uint32_t(tile_size_), threads_, split_tail_);
    const int64_t unit_count = int64_t(units.size());
    std::vector<uint8_t> unit_finished(units.size(), 0);
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads_)
    for (int64_t u = 0; u < unit_count; ++u) {
        const WorkUnit& unit = units[size_t(u)];
        bool cut_short = false;
        RayCounts rays;
        // A unit's samples in slices, so that a stop abandons the band within
        // one slice (the sums are the same: each pixel's samples are still
        // added in order, the sum stored between slices).
        for (uint32_t begin = samples.begin; begin < samples.end; begin += kSamplesBetweenStopChecks) {
            if (stop_requested()) {
                cut_short = true;
                break;
            }
            const uint32_t end = std::min(samples.end, begin + kSamplesBetweenStopChecks);
            if (accelerator) {
                accelerator->render_unit(scene, frame, unit, rows.begin, begin, end, sums, rays);
            } else {
                render_unit_pixels(frame, unit, rows.begin, begin, end, sums,
                                   [&](uint32_t x, uint32_t y, uint32_t pixel_index, uint32_t sample) {
                                       PixelSampler sampler(frame.key, pixel_index, sample);
                                       return trace_counted_sample(scene, frame, x, y, sampler, BvhQuery(), rays);
                                   });
            }
            if (samples_done) {
                samples_done->fetch_add(uint64_t(unit.x1 - unit.x0) * (unit.y1 - unit.y0) * (end - begin),
                                        std::memory_order_relaxed);
            }
        }
        unit_finished[size_t(u)] = cut_short ? 0 : 1;
        camera_rays_.fetch_add(rays.camera, std::memory_order_relaxed);
        extension_rays_.fetch_add(rays.extension, std::memory_order_relaxed);
        shadow_rays_.fetch_add(rays.shadow, std::memory_order_relaxed);
    }
    // The leading rows that no unfinished tile touches (tiles go out top row first).
    uint32_t first_unfinished_row = rows.end;
    for (size_t u = 0; u < units.size(); ++u) {
        if (!unit_finished[u]) first_unfinished_row = std::min(first_unfinished_row, units[u].y0);
    }
    rows_finished_at_stop_ = first_unfinished_row - rows.begin;
}

}  // namespace farmrt
