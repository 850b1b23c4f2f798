// A SIMD level's whole tracer for one work unit: the pixel loop, the core's
// camera, integrator and materials, the level's Philox blocks and its wide
// traversal, all compiled with the level's instruction set in one function
// (kernels_sse42.cpp, kernels_avx2.cpp, kernels_avx512.cpp). The physics is
// the core's one source (src/), instantiated here with this level's types.
// Include it from those files only: everything here has internal linkage.
#pragma once

#include <new>
#include <type_traits>

#include "simd/block_sampler.h"
#include "simd/packet_traversal.h"
#include "simd/philox_lanes.h"
#include "simd/sobol_lanes.h"
#include "simd/unit_pixels.h"
#include "simd/wide_traversal.h"

namespace farmrt {
namespace simd {
namespace {

// BlockSampler under a type of this translation unit's own: the core's
// templates instantiated with it (Camera::generate_ray, scatter, ...) then
// have internal linkage, so that no copy compiled for this level can stand in
// for another level's (check_kernel_objects.sh).
// The Sobol sampler's dimensions computed together (SobolLanes) when the
// sampler is first asked for one; `seeds`: the pixel's, kept by the caller
// across the pixel's samples.
template <class Arch>
struct LevelSampler : BlockSampler {
    LevelSampler(const SamplerKey& key, uint32_t pixel_index, uint32_t sample_index, const uint64_t* words,
                 uint32_t block_count, typename SobolLanes<Arch>::PixelSeeds& seeds)
        : BlockSampler(key, pixel_index, sample_index, words, block_count), seeds_(&seeds), pixel_(pixel_index) {}

    float uniform(uint32_t dimension) {
        if (!beyond_.sobol() || dimension >= kSobolDimensions) return BlockSampler::uniform(dimension);
        if (!computed_) {
            seeds_->update(beyond_, pixel_);
            SobolLanes<Arch>::values(beyond_, *seeds_, sobol_values_);
            computed_ = true;
        }
        return bits_to_unit_float(sobol_values_[dimension]);
    }

private:
    typename SobolLanes<Arch>::PixelSeeds* seeds_;
    uint32_t pixel_;
    bool computed_ = false;
    alignas(64) uint32_t sobol_values_[kSobolDimensions];
};

template <class Arch>
struct UnitKernel {
    using Traversal = WideTraversal<Arch>;
    using Packet = PacketTraversal<Arch>;
    static constexpr int N = Traversal::N;

    // Renders a work unit as CpuRenderer does with the scalar path, bit for
    // bit: the same samples, the same closest hits, the same sums.
    static void render_unit(const SceneView& scene, const void* wide_bvh_view, const FrameSettings& frame,
                            const WorkUnit& unit, uint32_t row_begin, uint32_t sample_begin, uint32_t sample_end,
                            float* sums, RayCounts& rays) {
        const WideBvhView<N>& bvh = *static_cast<const WideBvhView<N>*>(wide_bvh_view);
        if (Packet::usable(bvh)) {
            typename SobolLanes<Arch>::PixelSeeds seeds;
            const typename Traversal::template Query<true> sphere_query{&bvh};
            for_each_unit_pixel(
                frame, unit, row_begin, sums, [&](uint32_t x, uint32_t y, uint32_t pixel_index, float* record) {
                    for_each_sample_run(
                        record, frame.sampling, sample_begin, sample_end, [&](uint32_t begin, uint32_t end) {
                            for (uint32_t first = begin; first < end; first += N) {
                                add_samples_in_packet(scene, bvh, sphere_query, frame, x, y, pixel_index, first,
                                                      std::min<uint32_t>(N, end - first), record, seeds, rays);
                            }
                        });
                });
            return;
        }
        const typename Traversal::template Query<> query{&bvh};
        typename SobolLanes<Arch>::PixelSeeds seeds;
        render_unit_pixels(frame, unit, row_begin, sample_begin, sample_end, sums,
                           [&](uint32_t x, uint32_t y, uint32_t pixel_index, uint32_t sample) {
                               alignas(64) uint64_t words[4 * kMaxLaneBlocks];
                               if (frame.key.type == SamplerType::Independent) {
                                   PhiloxLanes<Arch>::blocks(frame.key, pixel_index, sample, words);
                               }
                               LevelSampler<Arch> sampler(frame.key, pixel_index, sample, words,
                                                          uint32_t(PhiloxLanes<Arch>::kBlocks), seeds);
                               return trace_counted_sample(scene, frame, x, y, sampler, query, rays);
                           });
    }

    // Samples [first, first + count) of pixel (x, y), added to its record in
    // sample order: their camera rays traced together in one packet, the
    // rest of each path on its own.
    static FARMRT_INLINE void add_samples_in_packet(const SceneView& scene, const WideBvhView<N>& bvh,
                                                    const typename Traversal::template Query<true>& query,
                                                    const FrameSettings& frame, uint32_t x, uint32_t y,
                                                    uint32_t pixel_index, uint32_t first, uint32_t count, float* record,
                                                    typename SobolLanes<Arch>::PixelSeeds& seeds,
                                                    RayCounts& ray_counts) {
        alignas(64) uint64_t words[N][4 * kMaxLaneBlocks];
        // The samplers live through both loops: their Sobol values, computed
        // for the camera ray, serve the rest of the path. Raw storage built in
        // place: an array of std::optional cost 300 instructions a packet to
        // set up, and LevelSampler needs no tearing down.
        static_assert(std::is_trivially_destructible_v<LevelSampler<Arch>>);
        alignas(LevelSampler<Arch>) unsigned char sampler_storage[N][sizeof(LevelSampler<Arch>)];
        LevelSampler<Arch>* samplers[N];
        Ray rays[N];
        float filter_weights[N];
        Hit hits[N];
        bool found[N];
        for (uint32_t i = 0; i < count; ++i) {
            if (frame.key.type == SamplerType::Independent) {
                PhiloxLanes<Arch>::blocks(frame.key, pixel_index, first + i, words[i]);
            }
            samplers[i] = new (sampler_storage[i]) LevelSampler<Arch>(frame.key, pixel_index, first + i, words[i],
                                                                      uint32_t(PhiloxLanes<Arch>::kBlocks), seeds);
            rays[i] = frame.camera_ray(x, y, *samplers[i], filter_weights[i]);
        }
        if (!Packet::trace(bvh, rays, int(count), kMinHitDistance, hits, found)) {
            // Rare (direction signs differ within the pixel): the out-of-line single-ray query.
            for (uint32_t i = 0; i < count; ++i)
                found[i] = Traversal::closest_hit(&bvh, rays[i], kMinHitDistance, hits[i]);
        }
        // The rays: the packet's camera rays, each path's further
        // closest-hit queries once it has ended, its shadow rays as traced
        // (counted in locals, which stay in registers, and added once).
        uint64_t extension = 0, shadow = 0;
        const ShadowCountingQuery<typename Traversal::template Query<true>, uint64_t> counting{query, &shadow};
        for (uint32_t i = 0; i < count; ++i) {
            const PathState path =
                ended_path_from_first_hit(scene, rays[i], found[i], hits[i], *samplers[i], frame.max_depth, counting,
                                          frame.integrator, filter_weights[i]);
            extension += closest_hit_queries(path) - 1;
            add_sample_to_record(record, path_sample(path, filter_weights[i]), frame.sampling.record_floats);
        }
        ray_counts.camera += count;
        ray_counts.extension += extension;
        ray_counts.shadow += shadow;
    }
};

// The level's kernel table: constant data (a constant expression, so no code
// runs at start-up on a CPU that lacks the level).
template <class Arch>
constexpr Kernels kernels_of(SimdLevel level) {
    return Kernels{level,
                   WideTraversal<Arch>::N,
                   &WideTraversal<Arch>::closest_hit,
                   &PacketTraversal<Arch>::closest_hits,
                   &PhiloxLanes<Arch>::blocks,
                   PhiloxLanes<Arch>::kBlocks,
                   &UnitKernel<Arch>::render_unit};
}

}  // namespace
}  // namespace simd
}  // namespace farmrt
