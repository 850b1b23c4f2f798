// The GPU's split kernels shade with the core's segment compiled for the
// scene's material types, or for one surface type with emitters and misses
// (continue_path_deferring_shadow<kTypes>, material_type_within). These
// tests run that code on the CPU: a segment compiled for a set holding the
// hit's type must do exactly what the general one does.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "core/integrator.h"
#include "io/scene_loader.h"
#include "render/frame_job.h"
#include "test_helpers.h"

namespace farmrt {
namespace {

// The type of a segment's hit; misses count as emitters'.
MaterialType hit_type(const SceneView& scene, bool found, const Hit& hit) {
    return found ? scene.materials[hit_material(scene, hit)].type : MaterialType::Emissive;
}

struct Segment {
    PathState path;
    DeferredShadow shadow;
    bool pending = false;
    bool going = false;
};

constexpr MaterialTypes with_emitters(MaterialType type) {
    return material_type_bit(type) | material_type_bit(MaterialType::Emissive);
}

template <MaterialTypes kTypes>
Segment shade(const SceneView& scene, const PathState& path, PixelSampler sampler, bool found, const Hit& hit) {
    Segment s;
    s.path = path;
    s.going = continue_path_deferring_shadow<kTypes>(scene, s.path, sampler, found, hit, s.shadow, s.pending);
    return s;
}

// The segment compiled for surface type `type` (and emitters and misses).
Segment shade_as(MaterialType type, const SceneView& scene, const PathState& path, const PixelSampler& sampler,
                 bool found, const Hit& hit) {
    switch (type) {
    case MaterialType::Lambertian:
        return shade<with_emitters(MaterialType::Lambertian)>(scene, path, sampler, found, hit);
    case MaterialType::Metal: return shade<with_emitters(MaterialType::Metal)>(scene, path, sampler, found, hit);
    case MaterialType::Dielectric:
        return shade<with_emitters(MaterialType::Dielectric)>(scene, path, sampler, found, hit);
    case MaterialType::Emissive: return shade<with_emitters(MaterialType::Emissive)>(scene, path, sampler, found, hit);
    case MaterialType::Principled:
        return shade<with_emitters(MaterialType::Principled)>(scene, path, sampler, found, hit);
    }
    return {};
}

bool same_bits(const Color& a, const Color& b) { return std::memcmp(&a, &b, sizeof(Color)) == 0; }
bool same_bits(float a, float b) { return std::memcmp(&a, &b, sizeof(float)) == 0; }

void expect_same(const Segment& general, const Segment& typed, const std::string& where) {
    EXPECT_EQ(general.going, typed.going) << where;
    EXPECT_EQ(general.pending, typed.pending) << where;
    EXPECT_EQ(general.path.depth, typed.path.depth) << where;
    EXPECT_TRUE(same_bits(general.path.radiance, typed.path.radiance)) << where;
    EXPECT_TRUE(same_bits(general.path.throughput, typed.path.throughput)) << where;
    EXPECT_TRUE(same_bits(general.path.previous_pdf, typed.path.previous_pdf)) << where;
    if (!general.going) return;
    EXPECT_TRUE(same_bits(general.path.ray.origin, typed.path.ray.origin)) << where;
    EXPECT_TRUE(same_bits(general.path.ray.direction, typed.path.ray.direction)) << where;
    EXPECT_TRUE(same_bits(general.path.previous_point, typed.path.previous_point)) << where;
    if (!general.pending) return;
    EXPECT_TRUE(same_bits(general.shadow.sample.light, typed.shadow.sample.light)) << where;
    EXPECT_TRUE(same_bits(general.shadow.sample.shadow_ray.direction, typed.shadow.sample.shadow_ray.direction))
        << where;
    EXPECT_TRUE(same_bits(general.shadow.sample.shadow_end, typed.shadow.sample.shadow_end)) << where;
    EXPECT_TRUE(same_bits(general.shadow.throughput, typed.shadow.throughput)) << where;
}

// Every path of `samples` samples of each pixel of `frame`, a segment at a
// time: `check(where, path, sampler)` compares the segment's forms and
// returns the general one, whose path the walk follows while it goes on.
template <class Check>
void walk_paths(const FrameSettings& frame, uint32_t samples, const Check& check) {
    for (uint32_t y = 0; y < frame.height; ++y) {
        for (uint32_t x = 0; x < frame.width; ++x) {
            for (uint32_t sample = 0; sample < samples; ++sample) {
                PixelSampler sampler(frame.key, frame.pixel_index(x, y), sample);
                float weight;
                const Ray ray = frame.camera_ray(x, y, sampler, weight);
                PathState path = start_path(ray, frame.integrator, weight);
                for (;;) {
                    const std::string where = "pixel " + std::to_string(x) + "," + std::to_string(y) + " sample " +
                                              std::to_string(sample) + " depth " + std::to_string(path.depth);
                    const Segment general = check(where, path, sampler);
                    if (::testing::Test::HasFailure()) return;
                    path = general.path;
                    if (!general.going || path.depth >= frame.max_depth) break;
                }
            }
        }
    }
}

TEST(ShadingPerMaterialType, SegmentsCompiledForTheHitsTypeEqualTheGeneralOnes) {
    // lights.yaml: Lambertian, metal, dielectric and emissive surfaces under
    // lamps; models.yaml: principled spheres, OBJ materials and an area lamp.
    for (const std::string config : {"configs/lights.yaml", "configs/models.yaml"}) {
        for (const std::string integrator : {"nee", "naive"}) {
            std::vector<SceneOverride> overrides = {
                {"image.width=24", ""},
                {"image.height=18", ""},
                {"sampling.integrator=" + integrator, ""},
                {"image.output=shaded.pfm", ""}};  // no image is written; .pfm needs no OpenImageIO
            SceneDescription description = load_scene_file(testing::source_path(config), overrides);
            description.scene.build_acceleration();
            const SceneView scene = description.scene.view();
            const FrameSettings frame = frame_settings_for(description, 0);
            uint32_t segments[kMaterialTypeCount] = {};
            walk_paths(frame, 4, [&](const std::string& where, const PathState& path, const PixelSampler& sampler) {
                Hit hit;
                const bool found = BvhQuery()(scene, path.ray, kMinHitDistance, hit);
                const MaterialType type = hit_type(scene, found, hit);
                ++segments[uint32_t(type)];
                const Segment general = shade<kAllMaterialTypes>(scene, path, sampler, found, hit);
                // Emitters and misses: any surface type's kernel.
                for (uint32_t t = 0; t < kMaterialTypeCount; ++t) {
                    if (MaterialType(t) != type && type != MaterialType::Emissive) continue;
                    expect_same(general, shade_as(MaterialType(t), scene, path, sampler, found, hit),
                                config + " " + integrator + " " + where + " hit type " +
                                    std::to_string(uint32_t(type)) + " kernel type " + std::to_string(t));
                }
                if ((material_type_bit(type) & kBookMaterialTypes) != 0) {
                    expect_same(general, shade<kBookMaterialTypes>(scene, path, sampler, found, hit),
                                config + " " + integrator + " " + where + " the book's types");
                }
                return general;
            });
            // Every type the scene has was shaded (misses count as emitters').
            for (uint32_t m = 0; m < description.scene.materials.size(); ++m) {
                const uint32_t type = uint32_t(description.scene.materials[m].type);
                EXPECT_GT(segments[type], 0u) << config << ": no segment of material type " << type;
            }
        }
    }
}

// The GPU's megakernel for scenes of the book's material types compiles the
// principled material out, and for scenes without lights the light sample
// too (extend_path_with<NextEvent, kBookMaterialTypes, false>): on the book's
// final scene, which has neither, each segment must be the general one's.
TEST(ShadingPerMaterialType, SegmentsWithoutLightSamplingEqualTheGeneralOnesWhereTheSceneHasNoLights) {
    for (const std::string integrator : {"nee", "naive"}) {
        std::vector<SceneOverride> overrides = {{"image.width=32", ""},
                                                {"image.height=18", ""},
                                                {"sampling.integrator=" + integrator, ""},
                                                {"image.output=shaded.pfm", ""}};
        SceneDescription description = load_scene_file(testing::source_path("configs/spheres.yaml"), overrides);
        description.scene.build_acceleration();
        const SceneView scene = description.scene.view();
        ASSERT_EQ(scene.light_count, 0u);
        for (const Material& material : description.scene.materials) {
            ASSERT_NE(material_type_bit(material.type) & kBookMaterialTypes, 0u);
        }
        const FrameSettings frame = frame_settings_for(description, 0);
        uint32_t segments = 0, scattered = 0;
        walk_paths(frame, 4, [&](const std::string& where, const PathState& path, const PixelSampler& sampler) {
            Segment general, book;
            general.path = book.path = path;
            PixelSampler general_sampler = sampler, book_sampler = sampler;
            general.going = extend_path(scene, general.path, general_sampler, BvhQuery());
            // As the kernels run them: each estimator's segment compiled on its own.
            book.going = frame.integrator == Integrator::Naive
                             ? extend_path_with<Integrator::Naive, kBookMaterialTypes>(scene, book.path, book_sampler,
                                                                                       BvhQuery())
                             : extend_path_with<Integrator::NextEvent, kBookMaterialTypes, false>(
                                   scene, book.path, book_sampler, BvhQuery());
            expect_same(general, book, integrator + " " + where);
            ++segments;
            scattered += general.going ? 1 : 0;
            return general;
        });
        // Paths that bounce, not only camera rays that meet the sky.
        EXPECT_GT(scattered, segments / 4) << integrator;
    }
}

// A surface type's kernel sees its type and the emitters' as themselves.
template <MaterialType kType>
void expect_kernel_types() {
    EXPECT_EQ(material_type_within<with_emitters(kType)>(kType), kType);
    EXPECT_EQ(material_type_within<with_emitters(kType)>(MaterialType::Emissive), MaterialType::Emissive);
}

TEST(ShadingPerMaterialType, TypesWithinASetAreTheMaterialsOwn) {
    for (uint32_t t = 0; t < kMaterialTypeCount; ++t) {
        EXPECT_EQ(lowest_material_type(1u << t), MaterialType(t));
    }
    for (MaterialType t :
         {MaterialType::Lambertian, MaterialType::Metal, MaterialType::Dielectric, MaterialType::Emissive}) {
        EXPECT_EQ(material_type_within<kBookMaterialTypes>(t), t);
    }
    EXPECT_EQ(material_type_within<material_type_bit(MaterialType::Principled)>(MaterialType::Lambertian),
              MaterialType::Principled);
    EXPECT_EQ(material_type_within<material_type_bit(MaterialType::Metal)>(MaterialType::Metal), MaterialType::Metal);
    for (uint32_t t = 0; t < kMaterialTypeCount; ++t) {
        EXPECT_EQ(material_type_within<kAllMaterialTypes>(MaterialType(t)), MaterialType(t));
    }
    expect_kernel_types<MaterialType::Lambertian>();
    expect_kernel_types<MaterialType::Metal>();
    expect_kernel_types<MaterialType::Dielectric>();
    expect_kernel_types<MaterialType::Emissive>();
    expect_kernel_types<MaterialType::Principled>();
    constexpr MaterialTypes three = material_type_bit(MaterialType::Metal) |
                                    material_type_bit(MaterialType::Dielectric) |
                                    material_type_bit(MaterialType::Principled);
    for (MaterialType t : {MaterialType::Metal, MaterialType::Dielectric, MaterialType::Principled}) {
        EXPECT_EQ(material_type_within<three>(t), t);
    }
}

}  // namespace
}  // namespace farmrt
