// The renderable scene as plain pointers to flat arrays: what every tracer
// (CPU, SIMD, CUDA) reads, so one layout serves every backend. Scene
// (core/scene.h) owns the arrays on the host.
#pragma once

#include "core/background.h"
#include "core/bvh.h"
#include "core/light_tree.h"
#include "core/light_types.h"
#include "core/materials.h"
#include "core/primitives.h"
#include "core/trigonometry.h"

namespace farmrt {

struct SceneView {
    const BvhNode* nodes = nullptr;            // top-level BVH, root at 0
    const PrimitiveRef* primitives = nullptr;  // top-level refs in BVH leaf order
    const Sphere* spheres = nullptr;
    const Quad* quads = nullptr;
    const Triangle* triangles = nullptr;
    // The triangles' corners in 16-byte rows, in the triangles' order, where a
    // tracer keeps a copy (the GPU's); null: traversal reads `triangles`.
    const TriangleCorners* triangle_corners = nullptr;
    const TriangleAttributes* triangle_attributes = nullptr;  // Triangle::attributes indexes it
    const Material* materials = nullptr;
    const Texture* textures = nullptr;
    const float* texture_pixels = nullptr;  // linear RGB texels of every image texture
    const Instance* instances = nullptr;
    // Bottom-level BVHs of instanced geometry, one after another; node offsets
    // and leaf offsets are absolute indices into these two arrays.
    const BvhNode* instance_nodes = nullptr;
    const PrimitiveRef* instance_primitives = nullptr;
    uint32_t node_count = 0;
    uint32_t primitive_count = 0;
    uint32_t instance_count = 0;
    uint32_t instance_node_count = 0;
    uint32_t instance_primitive_count = 0;
    uint64_t texture_pixel_count = 0;                               // floats in texture_pixels
    uint32_t sphere_count = 0, quad_count = 0, triangle_count = 0;  // array sizes, for copies (GPU upload)
    uint32_t material_count = 0, texture_count = 0, triangle_attributes_count = 0;
    // Some material cuts its triangles out (AlphaMode): hits on triangles then
    // ask surface_kept. False for most scenes, whose traversal skips it.
    bool has_cutouts = false;
    Background background;
    // What next-event estimation samples (lights.h): every light, the alias
    // table that picks one by power, and the environment's distribution.
    const Light* lights = nullptr;
    const AliasEntry* light_alias = nullptr;
    const float* environment_distribution = nullptr;
    uint32_t light_count = 0;
    uint32_t environment_distribution_size = 0;  // floats
    float inverse_light_power = 0.0f;            // 1 / the lights' total power; 0: no lights
    float environment_power = 0.0f;              // the background's share of it
    float scene_radius = 0.0f;                   // of the scene's bounding sphere (distant lights' power)
    // sampling.clamp (integrator.h add_light); infinite when off.
    float direct_clamp = kInfinity;
    float indirect_clamp = kInfinity;
    // image.alpha: camera rays that leave the scene see no background (the
    // image's alpha channel says where they did); later bounces still do.
    bool transparent_background = false;
    // Choosing lights by importance (light_tree.h), where use_light_tree:
    // the tree over the finite lights, chosen with tree_probability (their
    // share of the power), and the infinite lights beside it.
    bool use_light_tree = false;
    const LightTreeNode* light_tree = nullptr;
    const LightTrail* light_trails = nullptr;  // light_count of them
    const EmitterKey* emitter_keys = nullptr;
    const InfiniteLight* infinite_lights = nullptr;
    uint32_t light_tree_size = 0;
    uint32_t emitter_key_count = 0;
    uint32_t infinite_light_count = 0;
    float tree_probability = 0.0f;
};

}  // namespace farmrt
