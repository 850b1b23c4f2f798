#include "core/scene.h"
#include "core/stop_flag.h"

namespace farmrt {

Quad make_quad(const Vec3& corner, const Vec3& edge_u, const Vec3& edge_v, uint32_t material) {
    Quad q;
    q.corner = corner;
    q.edge_u = edge_u;
    q.edge_v = edge_v;
    const Vec3 n = cross(edge_u, edge_v);
    q.normal = unit_vector(n);
    q.plane_offset = dot(q.normal, corner);
    q.w = n / dot(n, n);
    q.material = material;
    return q;
}

uint32_t Scene::add_instance_geometry(const std::vector<PrimitiveRef>& primitives) {
    if (instance_geometry_begin.empty()) instance_geometry_begin.push_back(0);
    instance_geometry_refs.insert(instance_geometry_refs.end(), primitives.begin(), primitives.end());
    instance_geometry_begin.push_back(uint32_t(instance_geometry_refs.size()));
    return uint32_t(instance_geometry_begin.size() - 2);
}

void Scene::add_instance(uint32_t geometry, const Transform& world_from_object, uint32_t material) {
    instance_placements.push_back(InstancePlacement{geometry, world_from_object, material});
}

std::vector<PrimitiveRef> Scene::geometry_refs(uint32_t geometry) const {
    return std::vector<PrimitiveRef>(instance_geometry_refs.begin() + instance_geometry_begin[geometry],
                                     instance_geometry_refs.begin() + instance_geometry_begin[geometry + 1]);
}

size_t Scene::primitive_count() const {
    return spheres.size() + quads.size() + triangles.size() - instance_geometry_refs.size() +
           instance_placements.size();
}

uint64_t Scene::rendered_primitive_count() const {
    uint64_t count = primitive_count() - instance_placements.size();
    for (const InstancePlacement& p : instance_placements) {
        count += instance_geometry_begin[p.geometry + 1] - instance_geometry_begin[p.geometry];
    }
    return count;
}

// Top-level refs: every primitive that no instanced geometry owns, then the instances.
std::vector<PrimitiveRef> Scene::all_primitive_refs() const {
    std::vector<char> owned_spheres(spheres.size(), 0), owned_quads(quads.size(), 0),
        owned_triangles(triangles.size(), 0);
    {
        for (const PrimitiveRef ref : instance_geometry_refs) {
            switch (ref.type()) {
            case PrimitiveType::Sphere: owned_spheres[ref.index()] = 1; break;
            case PrimitiveType::Quad: owned_quads[ref.index()] = 1; break;
            case PrimitiveType::Triangle: owned_triangles[ref.index()] = 1; break;
            case PrimitiveType::Instance: break;
            }
        }
    }
    std::vector<PrimitiveRef> refs;
    refs.reserve(primitive_count());
    for (uint32_t i = 0; i < spheres.size(); ++i) {
        if (!owned_spheres[i]) refs.push_back(PrimitiveRef::make(PrimitiveType::Sphere, i));
    }
    for (uint32_t i = 0; i < quads.size(); ++i) {
        if (!owned_quads[i]) refs.push_back(PrimitiveRef::make(PrimitiveType::Quad, i));
    }
    for (uint32_t i = 0; i < triangles.size(); ++i) {
        if (!owned_triangles[i]) refs.push_back(PrimitiveRef::make(PrimitiveType::Triangle, i));
    }
    for (uint32_t i = 0; i < instance_placements.size(); ++i) {
        refs.push_back(PrimitiveRef::make(PrimitiveType::Instance, i));
    }
    return refs;
}

// World bounds of an object-space box: its eight corners transformed, widened
// by a few float ulps so that rounding never clips the transformed geometry.
static Aabb transformed_bounds(const Aabb& box, const Transform& transform) {
    Aabb out;
    if (box.empty()) return out;
    for (int corner = 0; corner < 8; ++corner) {
        const Vec3 p((corner & 1) ? box.upper.x : box.lower.x, (corner & 2) ? box.upper.y : box.lower.y,
                     (corner & 4) ? box.upper.z : box.lower.z);
        out.expand(transform.point(p));
    }
    const Vec3 extent = out.upper - out.lower;
    const float scale = max_float(max_float(fabsf(out.lower.x), fabsf(out.upper.x)),
                                  max_float(max_float(fabsf(out.lower.y), fabsf(out.upper.y)),
                                            max_float(fabsf(out.lower.z), fabsf(out.upper.z))));
    const Vec3 pad(1e-6f * (scale + max_float(extent.x, max_float(extent.y, extent.z))));
    out.lower = out.lower - pad;
    out.upper = out.upper + pad;
    return out;
}

std::vector<Aabb> Scene::bounds_of_refs(const std::vector<PrimitiveRef>& refs) const {
    std::vector<Aabb> bounds(refs.size());
#pragma omp parallel for schedule(static) if (refs.size() > 65536)
    for (size_t i = 0; i < refs.size(); ++i) {
        const PrimitiveRef ref = refs[i];
        switch (ref.type()) {
        case PrimitiveType::Sphere: bounds[i] = bounds_of(spheres[ref.index()]); break;
        case PrimitiveType::Quad: bounds[i] = bounds_of(quads[ref.index()]); break;
        case PrimitiveType::Triangle: bounds[i] = bounds_of(triangles[ref.index()]); break;
        case PrimitiveType::Instance: {
            const Instance& instance = instances_[ref.index()];
            const Aabb local = instance_nodes_[instance.root_node].bounds;
            bounds[i] = transformed_bounds(local, instance_placements[ref.index()].world_from_object);
            break;
        }
        }
    }
    return bounds;
}

// One bottom-level BVH per geometry (however many instances use it), appended
// to the shared instance arrays with absolute offsets; then the instances.
void Scene::build_instances(const BvhBuildOptions& options, bool use_bvh) {
    instance_nodes_.clear();
    instance_primitives_.clear();
    instances_.clear();
    const uint32_t geometry_count = uint32_t(instance_geometry_count());
    std::vector<uint32_t> roots(geometry_count), offsets(geometry_count);
    for (uint32_t g = 0; g < geometry_count; ++g) {
        // Between builds, not inside one (OpenMP tasks): a stop waits for one BVH at most.
        stop_if_requested("building the BVH");
        const std::vector<PrimitiveRef> refs = geometry_refs(g);
        const uint32_t node_base = uint32_t(instance_nodes_.size());
        const uint32_t primitive_base = uint32_t(instance_primitives_.size());
        roots[g] = node_base;
        offsets[g] = primitive_base;
        if (use_bvh || refs.size() > 0xFFFF) {
            Bvh bvh = build_bvh(bounds_of_refs(refs), options);
            for (BvhNode node : bvh.nodes) {
                node.offset += node.is_leaf() ? primitive_base : node_base;
                instance_nodes_.push_back(node);
            }
            for (const uint32_t index : bvh.primitive_order) instance_primitives_.push_back(refs[index]);
        } else {
            BvhNode leaf{};
            for (const Aabb& b : bounds_of_refs(refs)) leaf.bounds.expand(b);
            leaf.offset = primitive_base;
            leaf.count = uint16_t(refs.size());
            instance_nodes_.push_back(leaf);
            instance_primitives_.insert(instance_primitives_.end(), refs.begin(), refs.end());
        }
    }
    for (const InstancePlacement& p : instance_placements) {
        Instance instance{};
        instance.world_from_object = p.world_from_object.to_affine();
        instance.object_from_world = p.world_from_object.inverse().to_affine();
        instance.root_node = roots[p.geometry];
        instance.primitive_offset = offsets[p.geometry];
        instance.primitive_count = instance_geometry_begin[p.geometry + 1] - instance_geometry_begin[p.geometry];
        instance.material = p.material;
        instances_.push_back(instance);
    }
}

void Scene::build_acceleration(const BvhBuildOptions& options) {
    build_instances(options, true);
    stop_if_requested("building the BVH");
    const std::vector<PrimitiveRef> refs = all_primitive_refs();
    Bvh bvh = build_bvh(bounds_of_refs(refs), options);
    stop_if_requested("building the BVH");
    nodes_ = std::move(bvh.nodes);
    primitive_refs_.resize(refs.size());
    for (size_t i = 0; i < refs.size(); ++i) primitive_refs_[i] = refs[bvh.primitive_order[i]];
    build_lights();
}

void Scene::build_linear_list() {
    build_instances(BvhBuildOptions{}, false);
    primitive_refs_ = all_primitive_refs();
    // One root leaf; its box is infinite so that the leaf is always entered.
    BvhNode root{};
    root.bounds.lower = Vec3(-kInfinity);
    root.bounds.upper = Vec3(kInfinity);
    root.offset = 0;
    root.count = static_cast<uint16_t>(primitive_refs_.size());
    nodes_.assign(1, root);
    build_lights();
}

void Scene::set_sample_clamp(float direct, float indirect) {
    direct_clamp_ = direct > 0.0f ? direct : kInfinity;
    indirect_clamp_ = indirect > 0.0f ? indirect : kInfinity;
}

SceneView Scene::view() const {
    SceneView v;
    v.nodes = nodes_.data();
    v.node_count = static_cast<uint32_t>(nodes_.size());
    v.primitives = primitive_refs_.data();
    v.primitive_count = static_cast<uint32_t>(primitive_refs_.size());
    v.spheres = spheres.data();
    v.quads = quads.data();
    v.triangles = triangles.data();
    v.triangle_attributes = triangle_attributes.data();
    for (const Material& m : materials) v.has_cutouts |= m.alpha_mode != AlphaMode::Opaque;
    v.triangle_attributes_count = static_cast<uint32_t>(triangle_attributes.size());
    v.materials = materials.data();
    v.textures = textures.data();
    v.texture_pixels = texture_pixels.data();
    v.texture_pixel_count = texture_pixels.size();
    v.instances = instances_.data();
    v.instance_count = static_cast<uint32_t>(instances_.size());
    v.instance_nodes = instance_nodes_.data();
    v.instance_node_count = static_cast<uint32_t>(instance_nodes_.size());
    v.instance_primitives = instance_primitives_.data();
    v.instance_primitive_count = static_cast<uint32_t>(instance_primitives_.size());
    v.sphere_count = static_cast<uint32_t>(spheres.size());
    v.quad_count = static_cast<uint32_t>(quads.size());
    v.triangle_count = static_cast<uint32_t>(triangles.size());
    v.material_count = static_cast<uint32_t>(materials.size());
    v.texture_count = static_cast<uint32_t>(textures.size());
    v.background = background;
    v.lights = lights_.data();
    v.light_alias = light_alias_.data();
    v.use_light_tree = use_light_tree_ && !light_tree_.empty();
    v.light_tree = light_tree_.data();
    v.light_tree_size = uint32_t(light_tree_.size());
    v.light_trails = light_trails_.data();
    v.emitter_keys = emitter_keys_.data();
    v.emitter_key_count = uint32_t(emitter_keys_.size());
    v.infinite_lights = infinite_lights_.data();
    v.infinite_light_count = uint32_t(infinite_lights_.size());
    v.tree_probability = tree_probability_;
    v.direct_clamp = direct_clamp_;
    v.indirect_clamp = indirect_clamp_;
    v.transparent_background = transparent_background_;
    v.light_count = static_cast<uint32_t>(lights_.size());
    v.environment_distribution = environment_distribution_.data();
    v.environment_distribution_size = static_cast<uint32_t>(environment_distribution_.size());
    v.inverse_light_power = inverse_light_power_;
    v.environment_power = environment_power_;
    v.scene_radius = scene_radius_;
    return v;
}

}  // namespace farmrt
