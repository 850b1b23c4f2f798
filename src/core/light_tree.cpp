#include "core/light_tree.h"

#include <algorithm>
#include <cmath>

#include "core/lights.h"

namespace farmrt {
namespace {

struct Cone {
    Vec3 axis{0, 0, 1};
    double theta_o = 0;  // half-angle of the normals' cone
    double theta_e = 0;  // emission beyond a normal
    bool empty = true;
};

double angle_between(const Vec3& a, const Vec3& b) {
    const double d = double(a.x) * b.x + double(a.y) * b.y + double(a.z) * b.z;
    return std::acos(std::clamp(d, -1.0, 1.0));
}

// Rotates unit v about unit k by `angle` (Rodrigues).
Vec3 rotate(const Vec3& v, const Vec3& k, double angle) {
    const double c = std::cos(angle), s = std::sin(angle);
    const Vec3 kv = cross(k, v);
    const double kd = double(dot(k, v)) * (1 - c);
    return Vec3(float(v.x * c + kv.x * s + k.x * kd), float(v.y * c + kv.y * s + k.y * kd),
                float(v.z * c + kv.z * s + k.z * kd));
}

// The smallest cone holding two cones (pbrt-v4's DirectionCone::Union).
Cone merge(const Cone& a, const Cone& b) {
    if (a.empty) return b;
    if (b.empty) return a;
    Cone out;
    out.empty = false;
    out.theta_e = std::max(a.theta_e, b.theta_e);
    const double theta_d = angle_between(a.axis, b.axis);
    if (std::min(theta_d + b.theta_o, M_PI) <= a.theta_o) return {a.axis, a.theta_o, out.theta_e, false};
    if (std::min(theta_d + a.theta_o, M_PI) <= b.theta_o) return {b.axis, b.theta_o, out.theta_e, false};
    const double theta_o = 0.5 * (a.theta_o + theta_d + b.theta_o);
    const Vec3 k = cross(a.axis, b.axis);
    if (theta_o >= M_PI || !(length_squared(k) > 0.0f)) return {a.axis, M_PI, out.theta_e, false};
    out.axis = unit_vector(rotate(a.axis, unit_vector(k), theta_o - a.theta_o));
    out.theta_o = theta_o;
    return out;
}

struct Bounds {
    Aabb box;
    Cone cone;
    double power = 0;
    bool two_sided = false;
};

Bounds light_bounds(const SceneView& scene, const Light& light) {
    Bounds b;
    b.power = light_power(scene, light);
    b.cone.empty = false;
    b.cone.theta_e = M_PI / 2;
    switch (light.type) {
    case LightType::Sphere:
        b.box = bounds_of(scene.spheres[light.primitive]);
        b.cone.theta_o = M_PI;
        break;
    case LightType::Quad:
    case LightType::Triangle: {
        const EmitterShape shape = emitter_shape(scene, light.type, light.primitive, light.instance);
        b.box.expand(shape.corner);
        b.box.expand(shape.corner + shape.edge_u);
        b.box.expand(shape.corner + shape.edge_v);
        if (!shape.triangle) b.box.expand(shape.corner + shape.edge_u + shape.edge_v);
        const Vec3 normal = cross(shape.edge_u, shape.edge_v);
        b.cone.axis = length_squared(normal) > 0.0f ? unit_vector(normal) : Vec3(0, 0, 1);
        b.cone.theta_o = length_squared(normal) > 0.0f ? 0.0 : M_PI;
        b.two_sided = true;  // both faces emit
        break;
    }
    case LightType::Point:
        b.box.expand(light.position);
        b.cone.theta_o = M_PI;
        break;
    case LightType::Spot:
        b.box.expand(light.position);
        b.cone.axis = unit_vector(light.direction);
        b.cone.theta_o = std::acos(std::clamp(double(light.cos_inner), -1.0, 1.0));
        b.cone.theta_e = std::max(0.0, std::acos(std::clamp(double(light.cos_outer), -1.0, 1.0)) - b.cone.theta_o);
        break;
    case LightType::Directional:
    case LightType::Environment: break;  // not in the tree
    }
    return b;
}

void store(LightTreeNode& node, const Bounds& b) {
    node.lower = b.box.lower;
    node.upper = b.box.upper;
    node.axis = b.cone.axis;
    node.cos_theta_o = float(std::cos(b.cone.theta_o));
    node.cos_theta_e = float(std::cos(b.cone.theta_e));
    node.power = float(b.power);
    node.two_sided = b.two_sided ? 1u : 0u;
}

struct Builder {
    const SceneView& scene;
    std::vector<uint32_t>& order;  // light indices, partitioned in place
    std::vector<Bounds> bounds;    // by position in `order`
    std::vector<LightTreeNode> nodes;
    std::vector<LightTrail>& trails;

    Bounds build(uint32_t node, uint32_t begin, uint32_t end, uint32_t depth, uint32_t trail) {
        if (end - begin == 1) {
            nodes[node].light = order[begin];
            trails[order[begin]] = LightTrail{trail, depth};
            store(nodes[node], bounds[begin]);
            return bounds[begin];
        }
        // Split at the median of the centres along the widest axis.
        Aabb centres;
        for (uint32_t i = begin; i < end; ++i) centres.expand(0.5f * (bounds[i].box.lower + bounds[i].box.upper));
        const Vec3 extent = centres.upper - centres.lower;
        const int axis = extent.x >= extent.y && extent.x >= extent.z ? 0 : (extent.y >= extent.z ? 1 : 2);
        auto centre = [&](uint32_t i) {
            const Vec3 c = 0.5f * (bounds[i].box.lower + bounds[i].box.upper);
            return axis == 0 ? c.x : (axis == 1 ? c.y : c.z);
        };
        std::vector<uint32_t> positions(end - begin);
        for (uint32_t i = begin; i < end; ++i) positions[i - begin] = i;
        const uint32_t middle = begin + (end - begin) / 2;
        std::nth_element(
            positions.begin(), positions.begin() + (middle - begin), positions.end(),
            [&](uint32_t a, uint32_t b) { return centre(a) < centre(b) || (centre(a) == centre(b) && a < b); });
        std::vector<uint32_t> lights(end - begin);
        std::vector<Bounds> moved(end - begin);
        for (uint32_t i = 0; i < end - begin; ++i) {
            lights[i] = order[positions[i]];
            moved[i] = bounds[positions[i]];
        }
        std::copy(lights.begin(), lights.end(), order.begin() + begin);
        std::copy(moved.begin(), moved.end(), bounds.begin() + begin);
        const uint32_t child = uint32_t(nodes.size());
        nodes.resize(nodes.size() + 2);
        nodes[node].first_child = child;
        const Bounds left = build(child, begin, middle, depth + 1, trail);
        const Bounds right = build(child + 1, middle, end, depth + 1, trail | (1u << depth));
        Bounds merged;
        merged.box = left.box;
        merged.box.expand(right.box);
        merged.cone = merge(left.cone, right.cone);
        merged.power = left.power + right.power;
        merged.two_sided = left.two_sided || right.two_sided;
        store(nodes[node], merged);
        return merged;
    }
};

}  // namespace

bool is_infinite_light(LightType type) { return type == LightType::Directional || type == LightType::Environment; }

std::vector<LightTreeNode> build_light_tree(const SceneView& scene, std::vector<LightTrail>& trails) {
    trails.assign(scene.light_count, LightTrail{});
    std::vector<uint32_t> order;
    for (uint32_t i = 0; i < scene.light_count; ++i) {
        if (!is_infinite_light(scene.lights[i].type)) order.push_back(i);
    }
    if (order.empty()) return {};
    Builder builder{scene, order, {}, {}, trails};
    for (uint32_t light : order) builder.bounds.push_back(light_bounds(scene, scene.lights[light]));
    builder.nodes.resize(1);
    builder.build(0, 0, uint32_t(order.size()), 0, 0);
    return std::move(builder.nodes);
}

}  // namespace farmrt
