#include "scene.h"

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

std::vector<PrimitiveRef> Scene::all_primitive_refs() const {
    std::vector<PrimitiveRef> refs;
    refs.reserve(primitive_count());
    for (uint32_t i = 0; i < spheres.size(); ++i) refs.push_back(PrimitiveRef::make(PrimitiveType::Sphere, i));
    for (uint32_t i = 0; i < quads.size(); ++i) refs.push_back(PrimitiveRef::make(PrimitiveType::Quad, i));
    for (uint32_t i = 0; i < triangles.size(); ++i) refs.push_back(PrimitiveRef::make(PrimitiveType::Triangle, i));
    return refs;
}

void Scene::build_acceleration(const BvhBuildOptions& options) {
    const std::vector<PrimitiveRef> refs = all_primitive_refs();
    std::vector<Aabb> bounds;
    bounds.reserve(refs.size());
    for (const Sphere& s : spheres) bounds.push_back(bounds_of(s));
    for (const Quad& q : quads) bounds.push_back(bounds_of(q));
    for (const Triangle& t : triangles) bounds.push_back(bounds_of(t));
    Bvh bvh = build_bvh(bounds, options);
    nodes_ = std::move(bvh.nodes);
    primitive_refs_.resize(refs.size());
    for (size_t i = 0; i < refs.size(); ++i) primitive_refs_[i] = refs[bvh.primitive_order[i]];
}

void Scene::build_linear_list() {
    primitive_refs_ = all_primitive_refs();
    // One root leaf; its box is infinite so that the leaf is always entered.
    BvhNode root{};
    root.bounds.lower = Vec3(-kInfinity);
    root.bounds.upper = Vec3(kInfinity);
    root.offset = 0;
    root.count = static_cast<uint16_t>(primitive_refs_.size());
    nodes_.assign(1, root);
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
    v.materials = materials.data();
    v.textures = textures.data();
    v.background = background;
    return v;
}

}  // namespace farmrt
