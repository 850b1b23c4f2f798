// The path-tracing kernel: the shared core's extend_path() run by persistent
// threads with path regeneration. Included by the path_kernel_*.cu files,
// which compile it with their math flags and list their variants.
#pragma once

#include "cuda/path_kernel.h"

// Whether this unit compiles chain kernels (PathKernelEntry::chain_launch).
#ifndef FARMRT_PATH_KERNEL_CHAINS
#define FARMRT_PATH_KERNEL_CHAINS 0
#endif

namespace farmrt {
namespace FARMRT_PATH_KERNEL_VARIANT {

// One thread's current run: samples [sample, sample_end) of one pixel. The
// pixel's coordinates are recomputed for each sample rather than kept (fewer
// live registers across the traversal).
struct PixelWork {
    uint32_t pixel;  // in the band (BandLaunch::item_pixel)
    uint32_t sample, sample_end;
    float sum[kMaxRecordFloats];  // per-pixel items: the pixel's record (FrameSettings::sampling)
};

// A pixel record's 3 to 6 floats, by constant indices (registers, not local memory).
__device__ __forceinline__ void copy_record(float* to, const float* from, uint32_t floats) {
    to[0] = from[0];
    to[1] = from[1];
    to[2] = from[2];
    if (record_has_statistics(floats)) {
        to[kLuminanceDeviations] = from[kLuminanceDeviations];
        to[kSamplesTaken] = from[kSamplesTaken];
        if (floats == kStatisticsFloats + 1) to[kStatisticsFloats] = from[kStatisticsFloats];
    } else if (floats == kColorFloats + 1) {
        to[kColorFloats] = from[kColorFloats];
    }
}

// The band's pixel of work item `item` (BandLaunch::last_rows_first).
__device__ __forceinline__ uint32_t item_pixel(const BandLaunch& band, uint32_t item) {
    return band.last_rows_first ? band.pixel_count - 1 - item : item;
}

// The pixels of a per-sample launch: the band's, or those of its list of
// pixels that adaptive sampling leaves samples to (BandLaunch::active_pixels).
__device__ __forceinline__ uint32_t launch_pixel_count(const BandLaunch& band) {
    return band.active_pixels != nullptr ? *band.active_count : band.pixel_count;
}

// Per-pixel items: chunk c holds items [c * chunk_pixels, ...), each a pixel
// with every sample of the launch. Per-sample items (BandLaunch::radiance):
// chunk c holds samples [s, s + chunk_samples) of pixel c mod pixel_count,
// s = sample_begin + (c / pixel_count) * chunk_samples: the first chunks of
// every pixel come first, so a warp's lanes start on neighbouring pixels.
template <bool kSamples>
__device__ __forceinline__ uint32_t chunk_count_of(const BandLaunch& band) {
    if (kSamples) {
        const uint32_t samples = band.sample_end - band.sample_begin;
        return (samples + band.chunk_samples - 1) / band.chunk_samples * launch_pixel_count(band);
    }
    return (band.pixel_count + band.chunk_pixels - 1) / band.chunk_pixels;
}

// Sets up work item `item`; false when adaptive sampling leaves it no
// samples. A per-pixel item's run ends at the pixel's next decision (the
// thread then decides and goes on: trace_band). Per-sample launches never
// cross a decision (CudaRenderer::submit), and with adaptive sampling their
// items are those of the pixels listed as still sampling (active_pixels).
template <bool kSamples>
__device__ __forceinline__ bool begin_run(const FrameSettings& frame, const BandLaunch& band, uint32_t item,
                                          PixelWork& work) {
    uint32_t pixel_item = item;
    work.sample = band.sample_begin;
    work.sample_end = band.sample_end;
    if (kSamples) {
        const uint32_t pixels = launch_pixel_count(band);
        pixel_item = item % pixels;
        work.sample = band.sample_begin + item / pixels * band.chunk_samples;
        work.sample_end = min(work.sample + band.chunk_samples, band.sample_end);
    }
    const uint32_t pixel =
        kSamples && band.active_pixels != nullptr ? band.active_pixels[pixel_item] : item_pixel(band, pixel_item);
    work.pixel = pixel;
    if (!kSamples) {
        copy_record(work.sum, band.sums + size_t(pixel) * frame.sampling.record_floats, frame.sampling.record_floats);
        work.sample_end = adaptive_run_end(work.sum, frame.sampling, work.sample, band.sample_end);
    }
    return work.sample < work.sample_end;
}

// The random numbers of sample `sample` of the band's pixel `pixel`.
__device__ __forceinline__ PixelSampler band_pixel_sampler(const FrameSettings& frame, const BandLaunch& band,
                                                           uint32_t pixel, uint32_t sample) {
    const uint32_t x = pixel % frame.width, y = band.row_begin + pixel / frame.width;
    return PixelSampler(frame.key, frame.pixel_index(x, y), sample);
}

// The first path of the run's current sample.
template <bool kNaiveOnly>
__device__ __forceinline__ PathState start_sample(const FrameSettings& frame, const BandLaunch& band,
                                                  const PixelWork& work, PixelSampler& sampler) {
    const uint32_t x = work.pixel % frame.width, y = band.row_begin + work.pixel / frame.width;
    sampler = band_pixel_sampler(frame, band, work.pixel, work.sample);
    float filter_weight;
    const Ray ray = frame.camera_ray(x, y, sampler, filter_weight);
    return start_path(ray, kNaiveOnly ? Integrator::Naive : frame.integrator, filter_weight);
}

// The next chunk of the dynamic schedule (less the first grid's worth).
// BandLaunch::warp_fetch: the lanes of a warp that run out of work in the
// same step take consecutive chunks with one atomic operation (neighbouring
// pixels, the same sample: rays that start together stay together longer).
// Which thread takes which chunk never changes a sum.
__device__ __forceinline__ uint32_t next_dynamic_chunk(const BandLaunch& band) {
    if (!band.warp_fetch) return atomicAdd(band.next_chunk, 1u);
    const unsigned lanes = __activemask();
    const unsigned lane = threadIdx.x & 31u;
    const int leader = __ffs(lanes) - 1;
    uint32_t first = 0;
    if (int(lane) == leader) first = atomicAdd(band.next_chunk, uint32_t(__popc(lanes)));
    first = __shfl_sync(lanes, first, leader);
    return first + uint32_t(__popc(lanes & ((1u << lane) - 1u)));
}

// Moves on to the thread's next work item (the next of its chunk, else its
// next chunk); false when none is left.
__device__ __forceinline__ bool next_item(const BandLaunch& band, uint32_t thread_count, uint32_t chunk_count,
                                          uint32_t chunk_items, uint32_t item_count, uint32_t& chunk, uint32_t& item,
                                          uint32_t& item_end) {
    if (++item < item_end) return true;
    chunk = band.schedule == PathSchedule::Dynamic ? thread_count + next_dynamic_chunk(band) : chunk + thread_count;
    if (chunk >= chunk_count) return false;
    item = chunk * chunk_items;
    item_end = min(item + chunk_items, item_count);
    return true;
}

// The thread's next work item with samples to take; false when none is left.
template <bool kSamples>
__device__ __forceinline__ bool next_run(const FrameSettings& frame, const BandLaunch& band, uint32_t thread_count,
                                         uint32_t chunk_count, uint32_t chunk_items, uint32_t item_count,
                                         uint32_t& chunk, uint32_t& item, uint32_t& item_end, PixelWork& work) {
    do {
        if (!next_item(band, thread_count, chunk_count, chunk_items, item_count, chunk, item, item_end)) return false;
    } while (!begin_run<kSamples>(frame, band, item, work));
    return true;
}

// Adds a thread's counts of rays to the device's totals (BandLaunch::rays):
// the lanes that arrive together add theirs with one atomic per kind.
__device__ __forceinline__ void add_to_ray_totals(unsigned long long* totals, uint32_t camera, uint32_t closest_hit,
                                                  uint32_t shadow) {
#if __CUDA_ARCH__ >= 800
    const unsigned lanes = __activemask();
    camera = __reduce_add_sync(lanes, camera);
    closest_hit = __reduce_add_sync(lanes, closest_hit);
    shadow = __reduce_add_sync(lanes, shadow);
    if (int(threadIdx.x & 31u) != __ffs(lanes) - 1) return;
#endif
    if (camera != 0) atomicAdd(totals + kCameraRays, (unsigned long long)camera);
    atomicAdd(totals + kClosestHitRays, (unsigned long long)closest_hit);
    atomicAdd(totals + kShadowRays, (unsigned long long)shadow);
}

// The closest-hit query of a kernel: the core's binary traversal, or the wide BVH's.
template <class Traits, bool kWide>
struct QueryOf {
    __device__ static TraversalQuery<Traits> make(const BandLaunch&) { return {}; }
};
template <class Traits>
struct QueryOf<Traits, true> {
    __device__ static WideTraversalQuery<Traits> make(const BandLaunch& band) { return {band.wide_nodes}; }
};

// Each thread owns one run of samples of one pixel at a time and traces them
// one after the other, in order; the loop body is one path segment, and a
// path that ends is replaced by the run's next sample (or the next run's
// first) in the same iteration, so lanes of a warp stay busy whatever their
// paths' lengths. Per-pixel items add each sample to the pixel's sum in
// registers; per-sample items store each sample's radiance for
// sum_sample_radiance, which adds them in sample order after the launch: the
// same additions in the same order, so the same sums, but a thread's work
// unit is a few samples instead of a whole pixel, and the launch's tail (the
// time its last items take while other threads idle) is a path or two long.
// kSamples: per-sample items (BandLaunch::radiance set), else per-pixel items.
// kNaiveOnly: a kernel for frames of the book's estimator only, without the
// registers of next-event estimation; the others run either (FrameSettings::integrator).
template <class Traits, bool kWide, bool kSamples, bool kNaiveOnly>
__device__ __forceinline__ void trace_band(const SceneView& scene, const FrameSettings& frame, const BandLaunch& band) {
    const uint32_t thread_count = gridDim.x * blockDim.x;
    const uint32_t chunk_count = chunk_count_of<kSamples>(band);
    const uint32_t chunk_items = kSamples ? 1u : band.chunk_pixels;
    const uint32_t item_count = kSamples ? chunk_count : band.pixel_count;
    uint32_t chunk = blockIdx.x * blockDim.x + threadIdx.x;
    if (chunk >= chunk_count) return;
    if (band.stop != nullptr && *band.stop != 0) return;  // the band is abandoned
    uint32_t item = chunk * chunk_items;
    uint32_t item_end = min(item + chunk_items, item_count);

    const auto query = QueryOf<Traits, kWide>::make(band);
    // The thread's rays: every closest-hit query (camera rays among them) and
    // shadow ray, and per-pixel items' paths ended (one camera ray each;
    // per-sample launches trace every sample of their items, counted once).
    uint32_t closest_rays = 0, shadow_rays = 0, paths = 0;
    if (kSamples && blockIdx.x == 0 && threadIdx.x == 0) {
        atomicAdd(band.rays + kCameraRays,
                  (unsigned long long)launch_pixel_count(band) * (band.sample_end - band.sample_begin));
    }
    const ShadowCountingQuery<std::remove_const_t<decltype(query)>, uint32_t> counted{query, &shadow_rays};
    PixelWork work;
    if (!begin_run<kSamples>(frame, band, item, work) &&
        !next_run<kSamples>(frame, band, thread_count, chunk_count, chunk_items, item_count, chunk, item, item_end,
                            work)) {
        return;
    }
    PixelSampler sampler(frame.key, 0, 0);
    PathState path = start_sample<kNaiveOnly>(frame, band, work, sampler);
    for (;;) {
        const bool going = kNaiveOnly ? extend_path_with<Integrator::Naive>(scene, path, sampler, counted)
                                      : extend_path(scene, path, sampler, counted);
        if (going && path.depth < frame.max_depth) continue;
        closest_rays += closest_hit_queries(path);
        if (!kSamples) ++paths;
        if (kSamples) {
            const uint32_t floats = sample_value_floats(frame.sampling);
            store_sample_value(
                band.radiance + (size_t(work.sample - band.sample_begin) * band.pixel_count + work.pixel) * floats,
                path, floats);
        } else {
            // The camera sample's filter weight again (the sample's alpha), only where alpha is kept.
            const float filter_weight =
                record_has_alpha(frame.sampling.record_floats) ? frame.filter_weight(sampler) : 1.0f;
            add_sample_to_record(work.sum, path_sample(path, filter_weight), frame.sampling.record_floats);
        }
        if (++work.sample == work.sample_end) {
            if (!kSamples) {
                // At a decision (adaptive sampling) or the launch's end.
                work.sample_end = adaptive_run_end(work.sum, frame.sampling, work.sample, band.sample_end);
                if (work.sample < work.sample_end) {
                    path = start_sample<kNaiveOnly>(frame, band, work, sampler);
                    continue;
                }
                copy_record(band.sums + size_t(work.pixel) * frame.sampling.record_floats, work.sum,
                            frame.sampling.record_floats);
            }
            if (!next_run<kSamples>(frame, band, thread_count, chunk_count, chunk_items, item_count, chunk, item,
                                    item_end, work)) {
                break;
            }
        }
        path = start_sample<kNaiveOnly>(frame, band, work, sampler);
    }
    add_to_ray_totals(band.rays, paths, closest_rays, shadow_rays);
}

// Adds samples [sample_begin, sample_begin + samples) of one pixel to its
// record `total`, in sample order, as add_sample_to_record does on the CPU.
// `values` is the pixel's first sample value, `stride` the floats from one
// sample's value to the next, `value_floats` 3 or 4 (sample_value_floats;
// kValueFloats, where not 0, fixes it). A thread loads kBatch values before
// it adds them: the loads need no order, and a batch in flight at once hides
// the memory's latency (sixteen took a thin band's sums from 0.48 to 0.12 ms:
// results/multi_gpu.md); the adds keep the CPU's order. kPastL1: loads
// through L2 only (a chain's lanes read what other lanes of the launch
// wrote), else streamed past the caches.
template <uint32_t kValueFloats, uint32_t kBatch, bool kPastL1>
__device__ __forceinline__ void add_pixel_samples(const FrameSettings& frame, uint32_t pixel_index, float* total,
                                                  const float* values, size_t stride, uint32_t sample_begin,
                                                  uint32_t samples, uint32_t value_floats = kValueFloats) {
    const uint32_t floats = frame.sampling.record_floats;
    const bool with_alpha = (kValueFloats != 0 ? kValueFloats : value_floats) == 4;
    for (uint32_t first = 0; first < samples; first += kBatch) {
        const uint32_t batch = min(kBatch, samples - first);
        float value[kBatch][4];
#pragma unroll
        for (uint32_t k = 0; k < kBatch; ++k) {
            if (k >= batch) break;
            const float* r = values + size_t(first + k) * stride;
            if (with_alpha) {
                // 16-byte aligned: 4 floats a value.
                const float4* r4 = reinterpret_cast<const float4*>(r);
                const float4 v = kPastL1 ? __ldcg(r4) : __ldcs(r4);
                value[k][0] = v.x, value[k][1] = v.y, value[k][2] = v.z, value[k][3] = v.w;
            } else {
                value[k][0] = kPastL1 ? __ldcg(r) : __ldcs(r);
                value[k][1] = kPastL1 ? __ldcg(r + 1) : __ldcs(r + 1);
                value[k][2] = kPastL1 ? __ldcg(r + 2) : __ldcs(r + 2);
                value[k][3] = 1.0f;
            }
        }
#pragma unroll
        for (uint32_t k = 0; k < kBatch; ++k) {
            if (k >= batch) break;
            float alpha = 1.0f;
            if (with_alpha) {
                PixelSampler sampler(frame.key, pixel_index, sample_begin + first + k);
                alpha = value[k][3] * frame.filter_weight(sampler);
            }
            add_sample_to_record(total, PixelSample{Color(value[k][0], value[k][1], value[k][2]), alpha}, floats);
        }
    }
}

// ---- Chains (BandLaunch::chain, path_kernel.h) ----

// Ring entry `entry`'s band, read through L2 (the host rewrites entries
// while the launch runs).
__device__ __forceinline__ ChainBand load_chain_band(const ChainControl* chain, uint32_t entry) {
    const ChainBand* from = &chain->entries[entry].band;
    ChainBand band;
    band.sequence = __ldcg(&from->sequence);
    band.row_begin = __ldcg(&from->row_begin);
    band.pixel_count = __ldcg(&from->pixel_count);
    band.sample_begin = __ldcg(&from->sample_begin);
    band.sample_end = __ldcg(&from->sample_end);
    band.radiance = reinterpret_cast<float*>(__ldcg(reinterpret_cast<const unsigned long long*>(&from->radiance)));
    band.sums = reinterpret_cast<float*>(__ldcg(reinterpret_cast<const unsigned long long*>(&from->sums)));
    return band;
}

// Clears entry `entry`'s hint (ChainControl::sums_pending) once its band's
// pixels are all handed out, unless another band's paths completed there
// meanwhile: its lane set the cursor before the hint, so the cursor shows it.
__device__ __forceinline__ void clear_sum_hint(ChainControl* chain, uint32_t entry, uint32_t sequence_plus_one) {
    atomicAnd(&chain->sums_pending, ~(1u << entry));
    __threadfence();
    if (uint32_t(__ldcg(&chain->sum_cursor[entry]) >> 32) != sequence_plus_one) {
        atomicOr(&chain->sums_pending, 1u << entry);
    }
}

// Sums the next pixel of ring entry `entry`'s band if its paths are all
// traced and a pixel is left; false otherwise. The cursor names its band,
// so a lane that takes a pixel knows whose it is: a band's entry is not
// reused before all its pixels are summed. `hinted`: the entry's hint was
// set (cleared here once nothing is left); else the lane only looks.
__device__ __forceinline__ bool chain_sum_pixel(const FrameSettings& frame, const BandLaunch& base, uint32_t entry,
                                                bool hinted) {
    ChainControl* const chain = base.chain;
    // A look before the atomic: most looks find nothing to take.
    const unsigned long long seen = __ldcg(&chain->sum_cursor[entry]);
    if ((seen >> 32) == 0) return false;
    if (uint32_t(seen) >= __ldcg(&chain->entries[entry].band.pixel_count)) {
        if (hinted) clear_sum_hint(chain, entry, uint32_t(seen >> 32));
        return false;
    }
    const unsigned long long cursor = atomicAdd(&chain->sum_cursor[entry], 1ull);
    __threadfence();  // the band's radiance after the cursor that opened it
    const uint32_t sequence_plus_one = uint32_t(cursor >> 32), pixel = uint32_t(cursor);
    const ChainBand band = load_chain_band(chain, entry);
    if (band.sequence + 1 != sequence_plus_one || pixel >= band.pixel_count) {
        if (hinted) clear_sum_hint(chain, entry, sequence_plus_one);
        return false;
    }
    const uint32_t floats = frame.sampling.record_floats;
    // The record as the host's copy left it (read through L2: the slot's
    // buffer held another band's records before).
    float* record = band.sums + size_t(pixel) * floats;
    float total[kMaxRecordFloats];
    for (uint32_t i = 0; i < kMaxRecordFloats; ++i) total[i] = i < floats ? __ldcg(record + i) : 0.0f;
    const uint32_t pixel_index = frame.pixel_index(pixel % frame.width, band.row_begin + pixel / frame.width);
    const uint32_t samples = band.sample_end - band.sample_begin;
    // A few values a batch: these lanes share their multiprocessor with paths.
    const uint32_t value_floats = sample_value_floats(frame.sampling);
    add_pixel_samples<0, 4, true>(frame, pixel_index, total, band.radiance + size_t(pixel) * value_floats,
                                  size_t(band.pixel_count) * value_floats, band.sample_begin, samples, value_floats);
    for (uint32_t i = 0; i < floats; ++i) record[i] = total[i];
    // The record before its count. A device-wide fence: a fence to the host
    // for every pixel (the records in mapped host memory) made a band of
    // 20,000 pixels take half a second.
    __threadfence();
    if (atomicAdd(&chain->entries[entry].sums_done, 1u) + 1 == band.pixel_count) {
        __threadfence_system();  // every lane's records before the flag
        atomicAdd(base.rays + kCameraRays, (unsigned long long)band.pixel_count * samples);
        base.chain_finished[entry] = band.sequence + 1;
        __threadfence_system();
    }
    return true;
}

// A lane's place in its chain.
struct ChainLane {
    uint32_t sequence = 0;     // the band it works on, or waits for
    uint32_t chunk_count = 0;  // that band's path work items
    uint32_t items = 0;        // of them traced by this lane
    uint32_t wait_ns = 0;      // the lane's last wait for the host
    bool in_band = false;
};

// The first ring entry with pixels left to sum, or kChainRing: a look at
// every entry, not only the hinted ones (for lanes that wait).
__device__ __forceinline__ uint32_t entry_with_sums(const ChainControl* chain) {
    for (uint32_t e = 0; e < kChainRing; ++e) {
        const unsigned long long seen = __ldcg(&chain->sum_cursor[e]);
        if ((seen >> 32) != 0 && uint32_t(seen) < __ldcg(&chain->entries[e].band.pixel_count)) return e;
    }
    return kChainRing;
}

// The lane's next run of samples: the next item of its band, else of the
// next band published, summing pixels of bands whose paths are traced
// first; false when the chain is over (closed with nothing left). The lanes
// never read the stop flag (mapped host memory: every waiting lane polling
// it would fill the bus the sums use); after a stop the host publishes no
// band and closes the chain once the bands published are back.
// `bands`: the block's copies of the ring's bands (shared memory). One call
// site of the sums, so that the kernel holds one copy of their code.
__device__ __forceinline__ bool chain_next_run(const FrameSettings& frame, const BandLaunch& base, ChainLane& lane,
                                               ChainBand* bands, PixelWork& work) {
    ChainControl* const chain = base.chain;
    for (;;) {
        const uint32_t pending = __ldcg(&chain->sums_pending);
        const uint32_t sum_entry =
            pending != 0 ? uint32_t(__ffs(pending) - 1) : (lane.wait_ns > 0 ? entry_with_sums(chain) : kChainRing);
        if (sum_entry < kChainRing && chain_sum_pixel(frame, base, sum_entry, pending != 0)) {
            lane.wait_ns = 0;
            continue;
        }
        const uint32_t entry = lane.sequence % kChainRing;
        if (lane.in_band) {
            const uint32_t chunk = atomicAdd(&chain->entries[entry].next_chunk, 1u);
            if (chunk < lane.chunk_count) {
                ++lane.items;
                const ChainBand& band = bands[entry];
                work.pixel = chunk % band.pixel_count;
                work.sample = band.sample_begin + chunk / band.pixel_count * base.chunk_samples;
                work.sample_end = min(work.sample + base.chunk_samples, band.sample_end);
                return true;
            }
            // Out of this band: count what the lane traced; the lane that
            // completes the band's paths opens its pixels for summing.
            if (lane.items > 0) {
                __threadfence();  // this lane's radiance before its count
                const uint32_t before = atomicAdd(&chain->entries[entry].items_done, lane.items);
                if (before + lane.items == lane.chunk_count) {
                    __threadfence();
                    atomicExch(&chain->sum_cursor[entry], (unsigned long long)(lane.sequence + 1) << 32);
                    __threadfence();
                    atomicOr(&chain->sums_pending, 1u << entry);
                }
            }
            lane.in_band = false;
            ++lane.sequence;
            continue;
        }
        if (__ldcg(&chain->published) > lane.sequence) {
            volatile ChainBand& cached = bands[entry];
            if (cached.sequence != lane.sequence) {
                __threadfence();  // the entry after its publication
                const ChainBand band = load_chain_band(chain, entry);
                if (band.sequence != lane.sequence) {
                    // Finished long ago and its entry reused: nothing left of it.
                    ++lane.sequence;
                    continue;
                }
                cached.row_begin = band.row_begin;
                cached.pixel_count = band.pixel_count;
                cached.sample_begin = band.sample_begin;
                cached.sample_end = band.sample_end;
                cached.radiance = band.radiance;
                cached.sums = band.sums;
                __threadfence_block();
                cached.sequence = band.sequence;
            }
            __threadfence_block();  // the copy's fields after its sequence
            const uint32_t samples = bands[entry].sample_end - bands[entry].sample_begin;
            lane.chunk_count = (samples + base.chunk_samples - 1) / base.chunk_samples * bands[entry].pixel_count;
            lane.items = 0;
            lane.wait_ns = 0;
            lane.in_band = true;
            continue;
        }
        // Nothing published and (after the first wait) no pixel to sum
        // anywhere: the end, else wait for the host, looking less often the
        // longer it takes (every waiting lane reads the same words).
        if (lane.wait_ns > 0 && __ldcg(&chain->closed) != 0 && __ldcg(&chain->published) <= lane.sequence) {
            return false;
        }
        lane.wait_ns = min(2 * lane.wait_ns + 500, 32000u);
        __nanosleep(lane.wait_ns);
    }
}

// A chain launch: trace_band's loop over the bands of a chain (per-sample
// items, every pixel; no adaptive sampling). Each block keeps a copy of the
// ring's bands in shared memory, so the loop reads its band's fields there.
template <class Traits, bool kWide, bool kNaiveOnly>
__device__ __forceinline__ void trace_chain(const SceneView& scene, const FrameSettings& frame,
                                            const BandLaunch& base) {
    __shared__ ChainBand bands[kChainRing];
    for (uint32_t e = threadIdx.x; e < kChainRing; e += blockDim.x) bands[e].sequence = ~0u;
    __syncthreads();
    const auto query = QueryOf<Traits, kWide>::make(base);
    uint32_t closest_rays = 0, shadow_rays = 0;
    const ShadowCountingQuery<std::remove_const_t<decltype(query)>, uint32_t> counted{query, &shadow_rays};
    const uint32_t floats = sample_value_floats(frame.sampling);
    ChainLane lane;
    lane.sequence = base.chain_first;
    PixelWork work;
    if (chain_next_run(frame, base, lane, bands, work)) {
        PixelSampler sampler(frame.key, 0, 0);
        PathState path;
        for (bool start = true;;) {
            const ChainBand& band = bands[lane.sequence % kChainRing];
            if (start) {
                const uint32_t x = work.pixel % frame.width, y = band.row_begin + work.pixel / frame.width;
                sampler = PixelSampler(frame.key, frame.pixel_index(x, y), work.sample);
                float filter_weight;
                const Ray ray = frame.camera_ray(x, y, sampler, filter_weight);
                path = start_path(ray, kNaiveOnly ? Integrator::Naive : frame.integrator, filter_weight);
            }
            const bool going = kNaiveOnly ? extend_path_with<Integrator::Naive>(scene, path, sampler, counted)
                                          : extend_path(scene, path, sampler, counted);
            start = !going || path.depth >= frame.max_depth;
            if (!start) continue;
            closest_rays += closest_hit_queries(path);
            store_sample_value(
                band.radiance + (size_t(work.sample - band.sample_begin) * band.pixel_count + work.pixel) * floats,
                path, floats);
            if (++work.sample == work.sample_end && !chain_next_run(frame, base, lane, bands, work)) break;
        }
    }
    add_to_ray_totals(base.rays, 0, closest_rays, shadow_rays);
}

template <class Traits, bool kWide, bool kNaiveOnly>
__global__ void chain_kernel(const SceneView scene, const FrameSettings frame, const BandLaunch band) {
    trace_chain<Traits, kWide, kNaiveOnly>(scene, frame, band);
}

template <class Traits, bool kWide, bool kNaiveOnly, int kMinBlocks>
__global__ void __launch_bounds__(128, kMinBlocks)
    chain_kernel_bounded(const SceneView scene, const FrameSettings frame, const BandLaunch band) {
    trace_chain<Traits, kWide, kNaiveOnly>(scene, frame, band);
}

template <class Traits, bool kWide, bool kNaiveOnly>
__global__ void __launch_bounds__(1024, 1)
    chain_kernel_capped(const SceneView scene, const FrameSettings frame, const BandLaunch band) {
    trace_chain<Traits, kWide, kNaiveOnly>(scene, frame, band);
}

template <auto kKernel>
cudaError_t launch_kernel(unsigned grid_blocks, unsigned block_size, cudaStream_t stream, const SceneView& scene,
                          const FrameSettings& frame, const BandLaunch& band) {
    kKernel<<<grid_blocks, block_size, 0, stream>>>(scene, frame, band);
    return cudaGetLastError();
}

template <class Traits, bool kWide, bool kSamples, bool kNaiveOnly>
__global__ void path_kernel(const SceneView scene, const FrameSettings frame, const BandLaunch band) {
    trace_band<Traits, kWide, kSamples, kNaiveOnly>(scene, frame, band);
}

// With a register cap: at most 128 threads per block, at least kMinBlocks
// blocks per multiprocessor.
template <class Traits, bool kWide, bool kSamples, bool kNaiveOnly, int kMinBlocks>
__global__ void __launch_bounds__(128, kMinBlocks)
    path_kernel_bounded(const SceneView scene, const FrameSettings frame, const BandLaunch band) {
    trace_band<Traits, kWide, kSamples, kNaiveOnly>(scene, frame, band);
}

// At most 64 registers, any block size (kRegisterCap64).
template <class Traits, bool kWide, bool kSamples, bool kNaiveOnly>
__global__ void __launch_bounds__(1024, 1)
    path_kernel_capped(const SceneView scene, const FrameSettings frame, const BandLaunch band) {
    trace_band<Traits, kWide, kSamples, kNaiveOnly>(scene, frame, band);
}

template <class Traits, bool kWide, bool kSamples, bool kNaiveOnly>
cudaError_t launch_capped(unsigned grid_blocks, unsigned block_size, cudaStream_t stream, const SceneView& scene,
                          const FrameSettings& frame, const BandLaunch& band) {
    path_kernel_capped<Traits, kWide, kSamples, kNaiveOnly><<<grid_blocks, block_size, 0, stream>>>(scene, frame, band);
    return cudaGetLastError();
}

template <class Traits, bool kWide, bool kSamples, bool kNaiveOnly>
cudaError_t launch(unsigned grid_blocks, unsigned block_size, cudaStream_t stream, const SceneView& scene,
                   const FrameSettings& frame, const BandLaunch& band) {
    path_kernel<Traits, kWide, kSamples, kNaiveOnly><<<grid_blocks, block_size, 0, stream>>>(scene, frame, band);
    return cudaGetLastError();
}

template <class Traits, bool kWide, bool kSamples, bool kNaiveOnly, int kMinBlocks>
cudaError_t launch_bounded(unsigned grid_blocks, unsigned block_size, cudaStream_t stream, const SceneView& scene,
                           const FrameSettings& frame, const BandLaunch& band) {
    path_kernel_bounded<Traits, kWide, kSamples, kNaiveOnly, kMinBlocks>
        <<<grid_blocks, block_size, 0, stream>>>(scene, frame, band);
    return cudaGetLastError();
}

// The table entry of one variant. kSamples: per-sample work items (the default).
template <KernelGeometry kGeometry, int kQuorum, bool kFusedSlabs, int kMinBlocks = 0, bool kWide = false,
          bool kSamples = true, bool kNaiveOnly = false>
PathKernelEntry entry(bool fast_math) {
    using Traits = TraversalTraits<kGeometry == KernelGeometry::General, kGeometry == KernelGeometry::Spheres, kQuorum,
                                   kFusedSlabs>;
    PathKernelEntry e;
    e.variant.fast_math = fast_math;
    e.variant.geometry = kGeometry;
    e.variant.leaf_quorum = kQuorum;
    e.variant.fused_slabs = kFusedSlabs;
    e.variant.min_blocks = kMinBlocks;
    e.variant.wide_bvh = kWide;
    e.variant.sample_items = kSamples;
    e.variant.naive_only = kNaiveOnly;
    if constexpr (kMinBlocks == kRegisterCap64) {
        e.function = reinterpret_cast<const void*>(&path_kernel_capped<Traits, kWide, kSamples, kNaiveOnly>);
        e.launch = &launch_capped<Traits, kWide, kSamples, kNaiveOnly>;
    } else if constexpr (kMinBlocks > 0) {
        e.function =
            reinterpret_cast<const void*>(&path_kernel_bounded<Traits, kWide, kSamples, kNaiveOnly, kMinBlocks>);
        e.launch = &launch_bounded<Traits, kWide, kSamples, kNaiveOnly, kMinBlocks>;
    } else {
        e.function = reinterpret_cast<const void*>(&path_kernel<Traits, kWide, kSamples, kNaiveOnly>);
        e.launch = &launch<Traits, kWide, kSamples, kNaiveOnly>;
    }
#if FARMRT_PATH_KERNEL_CHAINS
    // Chains sum inside the launch, with this unit's math: exact math only.
    if constexpr (kSamples) {
        if constexpr (kMinBlocks == kRegisterCap64) {
            constexpr auto kernel = &chain_kernel_capped<Traits, kWide, kNaiveOnly>;
            e.chain_function = reinterpret_cast<const void*>(kernel);
            e.chain_launch = &launch_kernel<kernel>;
        } else if constexpr (kMinBlocks > 0) {
            constexpr auto kernel = &chain_kernel_bounded<Traits, kWide, kNaiveOnly, kMinBlocks>;
            e.chain_function = reinterpret_cast<const void*>(kernel);
            e.chain_launch = &launch_kernel<kernel>;
        } else {
            constexpr auto kernel = &chain_kernel<Traits, kWide, kNaiveOnly>;
            e.chain_function = reinterpret_cast<const void*>(kernel);
            e.chain_launch = &launch_kernel<kernel>;
        }
    }
#endif
    return e;
}

}  // namespace FARMRT_PATH_KERNEL_VARIANT
}  // namespace farmrt
