// The renderable scene on the host: `Scene` owns the flat arrays that
// `SceneView` (core/scene_view.h) points into for every tracer, and builds
// the BVHs and the lights. Including it brings the queries over a view:
// closest hits (core/closest_hit.h) and surfaces (core/surface.h).
#pragma once

#include <vector>

#include "core/closest_hit.h"
#include "core/scene_view.h"
#include "core/surface.h"

namespace farmrt {

class Scene {
public:
    std::vector<Sphere> spheres;
    std::vector<Quad> quads;
    std::vector<Triangle> triangles;
    std::vector<TriangleAttributes> triangle_attributes;
    std::vector<Material> materials;
    std::vector<Texture> textures;
    std::vector<float> texture_pixels;
    Background background;
    // Point, spot and directional lights as the scene file gives them;
    // build_lights() adds every emissive surface and the background.
    std::vector<Light> punctual_lights;

    // Instancing, as flat arrays (MPI sends them as they are). Geometry g that
    // instances share is instance_geometry_refs[instance_geometry_begin[g] ..
    // instance_geometry_begin[g + 1]): primitives of the arrays above, which
    // then belong to the geometry and not to the top level.
    struct InstancePlacement {
        uint32_t geometry;
        Transform world_from_object;
        uint32_t material;  // every hit on the instance uses this material
    };
    std::vector<PrimitiveRef> instance_geometry_refs;
    std::vector<uint32_t> instance_geometry_begin;
    std::vector<InstancePlacement> instance_placements;

    uint32_t add_instance_geometry(const std::vector<PrimitiveRef>& primitives);
    // One placement of a geometry; every hit on it uses `material`.
    void add_instance(uint32_t geometry, const Transform& world_from_object, uint32_t material);

    // Builds the BVH over every primitive; call after the arrays are filled.
    void build_acceleration(const BvhBuildOptions& options = {});
    // Without a BVH: one leaf holding every primitive, for the linear-list baseline.
    void build_linear_list();
    // The light list, its alias table and the background's distribution
    // (lights.cpp); the two builds above call it.
    void build_lights();
    const std::vector<Light>& lights() const { return lights_; }

    // Top-level entries: primitives outside instanced geometry, plus one per instance.
    size_t primitive_count() const;
    // Every primitive the renderer sees, each instance counted with all of its primitives.
    uint64_t rendered_primitive_count() const;
    size_t instance_count() const { return instance_placements.size(); }
    size_t instance_geometry_count() const {
        return instance_geometry_begin.empty() ? 0 : instance_geometry_begin.size() - 1;
    }
    const std::vector<BvhNode>& nodes() const { return nodes_; }
    const std::vector<PrimitiveRef>& primitive_refs() const { return primitive_refs_; }
    const std::vector<Instance>& instances() const { return instances_; }
    const std::vector<BvhNode>& instance_nodes() const { return instance_nodes_; }
    const std::vector<PrimitiveRef>& instance_primitive_refs() const { return instance_primitives_; }
    SceneView view() const;
    // sampling.clamp, which every view carries to the integrator; 0: off.
    void set_sample_clamp(float direct, float indirect);
    // sampling.light_sampler: tree (where the scene has one) or power (the default).
    void set_light_tree(bool use) { use_light_tree_ = use; }
    // image.alpha: the background is transparent to camera rays (SceneView).
    void set_transparent_background(bool transparent) { transparent_background_ = transparent; }

private:
    std::vector<PrimitiveRef> all_primitive_refs() const;
    std::vector<Aabb> bounds_of_refs(const std::vector<PrimitiveRef>& refs) const;
    void build_instances(const BvhBuildOptions& options, bool use_bvh);
    std::vector<PrimitiveRef> geometry_refs(uint32_t geometry) const;
    std::vector<BvhNode> nodes_;
    std::vector<PrimitiveRef> primitive_refs_;
    std::vector<Instance> instances_;
    std::vector<BvhNode> instance_nodes_;
    std::vector<PrimitiveRef> instance_primitives_;
    std::vector<Light> lights_;
    std::vector<AliasEntry> light_alias_;
    std::vector<float> environment_distribution_;
    float inverse_light_power_ = 0.0f, environment_power_ = 0.0f, scene_radius_ = 0.0f;
    float direct_clamp_ = kInfinity, indirect_clamp_ = kInfinity;
    std::vector<LightTreeNode> light_tree_;
    std::vector<LightTrail> light_trails_;
    std::vector<EmitterKey> emitter_keys_;
    std::vector<InfiniteLight> infinite_lights_;
    float tree_probability_ = 0.0f;
    bool use_light_tree_ = false;
    bool transparent_background_ = false;
};

}  // namespace farmrt
