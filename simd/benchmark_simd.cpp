// Microbenchmarks of the SIMD tracer (Google Benchmark): closest-hit queries
// through the scalar binary BVH vs the wide BVH of each SIMD level this CPU
// runs, and primitive intersection throughput (linear lists of one type).
//   build/farmrt_simd_benchmark [--benchmark_filter=...] [--benchmark_repetitions=5]
// Scenes are read from FARMRT_SOURCE_DIR/configs.
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdlib>
#include <map>
#include <memory>
#include <random>
#include <vector>
#include <string>

#include "core/integrator.h"
#include "io/scene_loader.h"
#include "render/render_job.h"
#include "simd/cpu_renderer.h"
#include "simd/simd_level.h"
#include "simd/wide_accelerator.h"

namespace farmrt {
namespace {

// Design experiments: FARMRT_WIDE_LEAF=N, leaves of at most N primitives;
// FARMRT_SIMD_COLLAPSE=largest_area, the earlier collapse; FARMRT_WIDE_NODE_COST,
// FARMRT_WIDE_PACKET_COST, the SAH-optimal collapse's cost model.
simd::WideBvhOptions wide_options() {
    simd::WideBvhOptions options;
    if (const char* leaf = std::getenv("FARMRT_WIDE_LEAF")) options.max_leaf_primitives = std::atoi(leaf);
    if (const char* collapse = std::getenv("FARMRT_SIMD_COLLAPSE")) {
        if (std::string(collapse) == "largest_area") options.collapse = simd::WideCollapse::LargestArea;
    }
    if (const char* node = std::getenv("FARMRT_WIDE_NODE_COST")) options.node_cost = float(std::atof(node));
    if (const char* packet = std::getenv("FARMRT_WIDE_PACKET_COST")) options.packet_cost = float(std::atof(packet));
    return options;
}

struct RaySet {
    std::vector<Ray> rays;
};

// The rays a render traces, recorded from the path tracer itself (one sample
// per pixel of a small frame): camera rays alone (coherent) and every path
// segment (camera rays and all bounces: the real mix).
// `pixel_samples`: the camera rays of 16 samples of each pixel, pixel by
// pixel (what the SIMD tracer traces as packets: simd/packet_traversal.h).
struct TraversalWorkload {
    SceneDescription description;
    RaySet camera, paths, pixel_samples;
};
constexpr uint32_t kPixelSamples = 16;

struct RecordingQuery {
    std::vector<Ray>* rays;
    bool operator()(const SceneView& scene, const Ray& ray, float t_min, Hit& hit) const {
        rays->push_back(ray);
        return intersect_closest(scene, ray, t_min, hit);
    }
    bool occluded(const SceneView& scene, const Ray& ray, float t_max) const {
        return intersect_any(scene, ray, kMinHitDistance, t_max);
    }
};

const TraversalWorkload& traversal_workload(const std::string& scene_file) {
    static std::map<std::string, std::unique_ptr<TraversalWorkload>> cache;
    std::unique_ptr<TraversalWorkload>& slot = cache[scene_file];
    if (slot) return *slot;
    slot = std::make_unique<TraversalWorkload>();
    TraversalWorkload& w = *slot;
    w.description =
        load_scene_file(std::string(FARMRT_SOURCE_DIR) + "/configs/" + scene_file,
                        {{"image.width=160", ""}, {"image.height=90", ""}, {"image.output=benchmark.pfm", ""}});
    w.description.scene.build_acceleration();
    const SceneView scene = w.description.scene.view();
    const FrameSettings frame = frame_settings_for(w.description, 0);
    for (uint32_t y = 0; y < frame.height; ++y) {
        for (uint32_t x = 0; x < frame.width; ++x) {
            PixelSampler sampler(frame.key, frame.pixel_index(x, y), 0);
            const Ray ray = frame.camera_ray(x, y, sampler);
            w.camera.rays.push_back(ray);
            trace_path(scene, ray, sampler, frame.max_depth, RecordingQuery{&w.paths.rays}, frame.integrator);
            for (uint32_t sample = 0; sample < kPixelSamples; ++sample) {
                PixelSampler pixel_sampler(frame.key, frame.pixel_index(x, y), sample);
                w.pixel_samples.rays.push_back(frame.camera_ray(x, y, pixel_sampler));
            }
        }
    }
    return w;
}

// One closest-hit query per ray, per iteration: items = rays.
template <class Query>
void trace_all(benchmark::State& state, const SceneView& scene, const RaySet& rays, const Query& query) {
    size_t hits = 0;
    for (auto _ : state) {
        for (const Ray& ray : rays.rays) {
            Hit hit;
            hits += query(scene, ray, kMinHitDistance, hit);
        }
    }
    benchmark::DoNotOptimize(hits);
    state.SetItemsProcessed(int64_t(state.iterations()) * int64_t(rays.rays.size()));
    state.counters["rays"] = double(rays.rays.size());
}

// trace_all() through the scalar BVH (Off) or the level's single-ray traversal.
void trace_all_at_level(benchmark::State& state, const SceneView& scene, const RaySet& rays, SimdLevel level) {
    if (level == SimdLevel::Off) {
        trace_all(state, scene, rays, BvhQuery());
    } else {
        const simd::WideAccelerator accelerator(scene, level, wide_options());
        trace_all(state, scene, rays, accelerator.closest_hit());
    }
}

void run_traversal(benchmark::State& state, const std::string& scene_file, bool paths, SimdLevel level) {
    if (!simd_level_supported(level)) {
        state.SkipWithError((std::string("CPU lacks ") + simd_level_name(level)).c_str());
        return;
    }
    const TraversalWorkload& w = traversal_workload(scene_file);
    trace_all_at_level(state, w.description.scene.view(), paths ? w.paths : w.camera, level);
}

// The pixel-sample camera rays one by one (`packets` false: the scalar BVH
// or the level's single-ray traversal) or in packets of the level's width.
// Items = rays.
void run_pixel_samples(benchmark::State& state, const std::string& scene_file, SimdLevel level, bool packets) {
    if (!simd_level_supported(level)) {
        state.SkipWithError((std::string("CPU lacks ") + simd_level_name(level)).c_str());
        return;
    }
    const TraversalWorkload& w = traversal_workload(scene_file);
    const SceneView scene = w.description.scene.view();
    const std::vector<Ray>& rays = w.pixel_samples.rays;
    if (!packets) {
        trace_all_at_level(state, scene, w.pixel_samples, level);
        return;
    }
    const simd::WideAccelerator accelerator(scene, level, wide_options());
    const int width = accelerator.width();
    size_t hits = 0, refused = 0;
    Hit packet_hits[kPixelSamples];  // a packet holds at most 16 rays (AVX-512)
    bool found[kPixelSamples];
    for (auto _ : state) {
        for (size_t first = 0; first < rays.size(); first += kPixelSamples) {
            for (uint32_t offset = 0; offset < kPixelSamples; offset += uint32_t(width)) {
                const Ray* packet = &rays[first + offset];
                if (accelerator.packet_closest_hits(packet, width, kMinHitDistance, packet_hits, found)) {
                    for (int i = 0; i < width; ++i) hits += found[i];
                } else {
                    ++refused;
                    for (int i = 0; i < width; ++i) {
                        Hit hit;
                        hits += accelerator.closest_hit()(scene, packet[i], kMinHitDistance, hit);
                    }
                }
            }
        }
    }
    benchmark::DoNotOptimize(hits);
    state.SetItemsProcessed(int64_t(state.iterations()) * int64_t(rays.size()));
    state.counters["refused_packets"] = double(refused) / double(state.iterations());
}

// Whole frames on one thread (the CPU renderer's tile loop, shading included):
// 160x90 pixels, 2 samples each. Items = samples; CPU time, so that a busy
// machine slows every level alike.
void run_frame(benchmark::State& state, const std::string& scene_file, SimdLevel level) {
    if (!simd_level_supported(level)) {
        state.SkipWithError((std::string("CPU lacks ") + simd_level_name(level)).c_str());
        return;
    }
    const TraversalWorkload& w = traversal_workload(scene_file);
    const FrameSettings frame = frame_settings_for(w.description, 0);
    const uint32_t spp = 2;
    CpuRenderer renderer(w.description.scene.view(), 1, 16, level);
    std::vector<float> sums(size_t(frame.width) * frame.height * 3);
    for (auto _ : state) {
        std::fill(sums.begin(), sums.end(), 0.0f);
        renderer.render(frame, RowRange{0, frame.height}, SampleRange{0, spp}, sums.data(), nullptr);
    }
    benchmark::DoNotOptimize(sums.data());
    state.SetItemsProcessed(int64_t(state.iterations()) * frame.width * frame.height * spp);
}

// `count` primitives of one type in a unit cube, one linear-list leaf; rays
// from outside through the cube. Items = ray-primitive tests.
struct PrimitiveWorkload {
    Scene scene;
    RaySet rays;
};

const PrimitiveWorkload& primitive_workload(PrimitiveType type, int count) {
    static std::map<std::pair<int, int>, std::unique_ptr<PrimitiveWorkload>> cache;
    std::unique_ptr<PrimitiveWorkload>& slot = cache[{int(type), count}];
    if (slot) return *slot;
    slot = std::make_unique<PrimitiveWorkload>();
    PrimitiveWorkload& w = *slot;
    std::mt19937 random(11);
    std::uniform_real_distribution<float> uniform(0.0f, 1.0f);
    auto point = [&] { return Vec3(uniform(random), uniform(random), uniform(random)); };
    auto small = [&] { return 0.1f * (point() - Vec3(0.5f)); };
    w.scene.materials.push_back(Material{});
    for (int i = 0; i < count; ++i) {
        const Vec3 p = point();
        switch (type) {
        case PrimitiveType::Sphere: w.scene.spheres.push_back(Sphere{p, 0.05f, Vec3(0.0f), 0}); break;
        case PrimitiveType::Quad: w.scene.quads.push_back(make_quad(p, small(), small(), 0)); break;
        case PrimitiveType::Triangle: {
            Triangle t{};
            t.vertex0 = p;
            t.vertex1 = p + small();
            t.vertex2 = p + small();
            w.scene.triangles.push_back(t);
            break;
        }
        case PrimitiveType::Instance: break;  // not a primitive workload
        }
    }
    w.scene.build_linear_list();
    for (int i = 0; i < 4096; ++i) {
        const Vec3 origin = Vec3(0.5f) + 2.0f * (point() - Vec3(0.5f)) + Vec3(0, 0, -2);
        w.rays.rays.push_back(Ray{origin, point() - origin, 0.0f});
    }
    return w;
}

void run_primitives(benchmark::State& state, PrimitiveType type, SimdLevel level) {
    if (!simd_level_supported(level)) {
        state.SkipWithError((std::string("CPU lacks ") + simd_level_name(level)).c_str());
        return;
    }
    const int count = int(state.range(0));
    const PrimitiveWorkload& w = primitive_workload(type, count);
    const SceneView scene = w.scene.view();
    if (level == SimdLevel::Off) {
        trace_all(state, scene, w.rays, BvhQuery());
    } else {
        const simd::WideAccelerator accelerator(scene, level);
        trace_all(state, scene, w.rays, accelerator.closest_hit());
    }
    state.SetItemsProcessed(int64_t(state.iterations()) * int64_t(w.rays.rays.size()) * count);
}

const SimdLevel kLevels[] = {SimdLevel::Off, SimdLevel::Sse42, SimdLevel::Avx2, SimdLevel::Avx512};

int register_benchmarks() {
    for (const char* scene : {"spheres.yaml", "many_spheres.yaml"}) {
        for (bool paths : {false, true}) {
            for (SimdLevel level : kLevels) {
                const std::string name = std::string("traversal/") + scene + (paths ? "/paths/" : "/camera/") +
                                         (level == SimdLevel::Off ? "scalar" : simd_level_name(level));
                benchmark::RegisterBenchmark(name.c_str(), [=](benchmark::State& state) {
                    run_traversal(state, scene, paths, level);
                })->Unit(benchmark::kMillisecond);
            }
        }
    }
    for (const char* scene : {"spheres.yaml", "many_spheres.yaml"}) {
        for (SimdLevel level : kLevels) {
            for (bool packets : {false, true}) {
                if (packets && level == SimdLevel::Off) continue;
                const std::string name = std::string("traversal/") + scene +
                                         (packets ? "/pixel_samples_packets/" : "/pixel_samples/") +
                                         (level == SimdLevel::Off ? "scalar" : simd_level_name(level));
                benchmark::RegisterBenchmark(name.c_str(), [=](benchmark::State& state) {
                    run_pixel_samples(state, scene, level, packets);
                })->Unit(benchmark::kMillisecond);
            }
        }
    }
    for (const char* scene : {"spheres.yaml", "many_spheres.yaml"}) {
        for (SimdLevel level : kLevels) {
            const std::string name =
                std::string("frame/") + scene + "/" + (level == SimdLevel::Off ? "scalar" : simd_level_name(level));
            benchmark::RegisterBenchmark(name.c_str(), [=](benchmark::State& state) {
                run_frame(state, scene, level);
            })->Unit(benchmark::kMillisecond);
        }
    }
    const std::pair<PrimitiveType, const char*> types[] = {
        {PrimitiveType::Sphere, "sphere"}, {PrimitiveType::Quad, "quad"}, {PrimitiveType::Triangle, "triangle"}};
    for (const auto& [type, type_name] : types) {
        for (SimdLevel level : kLevels) {
            const std::string name = std::string("primitives/") + type_name + "/" +
                                     (level == SimdLevel::Off ? "scalar" : simd_level_name(level));
            benchmark::RegisterBenchmark(name.c_str(),
                                         [=](benchmark::State& state) { run_primitives(state, type, level); })
                ->Arg(1)
                ->Arg(64)
                ->Unit(benchmark::kMicrosecond);
        }
    }
    return 0;
}

const int registered = register_benchmarks();

}  // namespace
}  // namespace farmrt

BENCHMARK_MAIN();
