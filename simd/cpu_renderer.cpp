#include "simd/cpu_renderer.h"

#include <omp.h>

#include <algorithm>
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

// FARMRT_CPU_TAIL_SPLIT=0|1 turns the split tail off or on (for the scaling
// measurements of scripts/bench/simd_scaling.sh); unset: on.
bool tail_split_enabled() {
    const char* value = std::getenv("FARMRT_CPU_TAIL_SPLIT");
    if (!value || std::strcmp(value, "1") == 0) return true;
    if (std::strcmp(value, "0") == 0) return false;
    throw InputError(std::string("FARMRT_CPU_TAIL_SPLIT: expected 0 or 1, got '") + value + "'");
}

// FARMRT_SIMD_TRAVERSAL=wide|scalar|auto forces the closest-hit query of a
// SIMD level (for measurements); unset or auto: wide_traversal_pays().
CpuRenderer::Traversal traversal_from_environment(CpuRenderer::Traversal requested) {
    const char* value = std::getenv("FARMRT_SIMD_TRAVERSAL");
    if (requested != CpuRenderer::Traversal::Auto || !value) return requested;
    if (std::strcmp(value, "wide") == 0) return CpuRenderer::Traversal::Wide;
    if (std::strcmp(value, "scalar") == 0) return CpuRenderer::Traversal::Scalar;
    if (std::strcmp(value, "auto") == 0) return CpuRenderer::Traversal::Auto;
    throw InputError(std::string("FARMRT_SIMD_TRAVERSAL: expected wide, scalar or auto, got '") + value + "'");
}

// FARMRT_SIMD_COLLAPSE=largest_area builds the wide BVH with the earlier
// collapse (design comparisons: results/simd.md); sah (the default) or unset:
// the SAH-optimal one.
simd::WideBvhOptions wide_options_from_environment() {
    simd::WideBvhOptions options;
    const char* value = std::getenv("FARMRT_SIMD_COLLAPSE");
    if (!value || std::strcmp(value, "sah") == 0) return options;
    if (std::strcmp(value, "largest_area") == 0) {
        options.collapse = simd::WideCollapse::LargestArea;
        return options;
    }
    throw InputError(std::string("FARMRT_SIMD_COLLAPSE: expected sah or largest_area, got '") + value + "'");
}

}  // namespace

bool wide_traversal_pays(const SceneView& scene) {
    uint32_t geometry = 0;  // top-level primitives that the wide BVH packs (instances stay scalar)
    for (uint32_t i = 0; i < scene.primitive_count; ++i) geometry += scene.primitives[i].type() != PrimitiveType::Instance;
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
    const size_t split_from =
        split_tail && threads > 1 && sub < tile ? tile_count - std::min(tile_count, size_t(2) * size_t(threads)) : tile_count;
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
            for (uint32_t x = x0; x < x1; x += sub) units.push_back({x, y, std::min(x1, x + sub), std::min(y1, y + sub)});
        }
    }
    return units;
}

CpuRenderer::CpuRenderer(const SceneView& scene, int threads, int tile_size, SimdLevel simd, Traversal traversal)
    : scene_(scene),
      threads_(threads > 0 ? threads : omp_get_max_threads()),
      tile_size_(std::max(1, tile_size)),
      simd_(simd),
      split_tail_(tail_split_enabled()) {
    // Start the OpenMP team now: a renderer renders many bands (the farm)
    // or frames, and the threads' creation belongs to start-up, not to the
    // first band's render time.
#pragma omp parallel num_threads(threads_)
    {
    }
    if (simd_ == SimdLevel::Off) return;
    if (!simd::kernels_for(simd_) || !simd_level_supported(simd_)) {
        throw RenderError(std::string("SIMD level ") + simd_level_name(simd_) + " is not available on this CPU");
    }
    traversal = traversal_from_environment(traversal);
    if (traversal == Traversal::Wide || (traversal == Traversal::Auto && wide_traversal_pays(scene_))) {
        accelerator_ = std::make_unique<simd::WideAccelerator>(scene_, simd_, wide_options_from_environment());
    }
    // Otherwise exactly the scalar path (the level's Philox blocks alone did
    // not measurably pay on these scenes, whose paths are short).
}

CpuRenderer::~CpuRenderer() = default;

std::string CpuRenderer::description() const {
    return std::string("cpu-") + (simd_ == SimdLevel::Off ? "scalar" : simd_level_name(simd_));
}

void CpuRenderer::render(const FrameSettings& frame, RowRange rows, SampleRange samples, float* sums,
                         std::atomic<uint64_t>* samples_done) {
    const SceneView& scene = scene_;
    const simd::WideAccelerator* accelerator = accelerator_.get();
    const std::vector<WorkUnit> units = cpu_work_units(frame.width, rows, uint32_t(tile_size_), threads_, split_tail_);
    const int64_t unit_count = int64_t(units.size());
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads_)
    for (int64_t u = 0; u < unit_count; ++u) {
        const WorkUnit& unit = units[size_t(u)];
        // A unit's samples in slices, so that a stop abandons the band within
        // one slice (the sums are the same: each pixel's samples are still
        // added in order, the sum stored between slices).
        for (uint32_t begin = samples.begin; begin < samples.end; begin += kSamplesBetweenStopChecks) {
            if (stop_requested()) break;
            const uint32_t end = std::min(samples.end, begin + kSamplesBetweenStopChecks);
            if (accelerator) {
                accelerator->render_unit(scene, frame, unit, rows.begin, begin, end, sums);
            } else {
                render_unit_pixels(frame, unit, rows.begin, begin, end, sums,
                                   [&](uint32_t x, uint32_t y, uint32_t pixel_index, uint32_t sample) {
                                       PixelSampler sampler(frame.key, pixel_index, sample);
                                       return trace_sample(scene, frame, x, y, sampler, BvhClosestHit());
                                   });
            }
            if (samples_done) {
                samples_done->fetch_add(uint64_t(unit.x1 - unit.x0) * (unit.y1 - unit.y0) * (end - begin),
                                        std::memory_order_relaxed);
            }
        }
    }
}

}  // namespace farmrt
