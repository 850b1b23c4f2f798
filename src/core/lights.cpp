// The light list of a scene, built on the host once the BVH is: every
// emissive sphere, quad and triangle (instances' quads and triangles too),
// the punctual lights, and the background when it sends light; the alias
// table that picks among them by power; the background's sampling density.
// Everything here depends on the scene alone (never on the BVH's layout), so
// every rank and backend picks the same light for the same random number.
#include <algorithm>
#include <cmath>

#include "core/lights.h"

namespace farmrt {
namespace {

// The mean luminance of a texture (what a material emits on average).
float mean_luminance(const Texture& texture, const std::vector<float>& texture_pixels) {
    switch (texture.type) {
    case TextureType::Constant: return luminance(texture.color);
    case TextureType::Checker: return 0.5f * (luminance(texture.even) + luminance(texture.odd));
    case TextureType::Image: {
        const size_t count = size_t(texture.image_width) * texture.image_height;
        if (count == 0) return 0.0f;
        double sum = 0;
        const float* base = texture_pixels.data() + 3 * size_t(texture.image_offset);
        for (size_t i = 0; i < count; ++i) sum += luminance(Color(base[3 * i], base[3 * i + 1], base[3 * i + 2]));
        return float(sum / double(count));
    }
    }
    return 0.0f;
}

// Vose's alias method over `weights` (not all zero).
std::vector<AliasEntry> alias_table(const std::vector<double>& weights) {
    const size_t n = weights.size();
    double total = 0;
    for (double w : weights) total += w;
    std::vector<double> scaled(n);
    std::vector<uint32_t> small, large;
    for (size_t i = 0; i < n; ++i) {
        scaled[i] = weights[i] * double(n) / total;
        (scaled[i] < 1.0 ? small : large).push_back(uint32_t(i));
    }
    std::vector<AliasEntry> table(n);
    for (size_t i = 0; i < n; ++i) table[i].alias = uint32_t(i);
    while (!small.empty() && !large.empty()) {
        const uint32_t less = small.back(), more = large.back();
        small.pop_back();
        table[less].probability = float(scaled[less]);
        table[less].alias = more;
        scaled[more] -= 1.0 - scaled[less];
        if (scaled[more] < 1.0) {
            large.pop_back();
            small.push_back(more);
        }
    }
    // Left over from rounding: slots that keep themselves.
    for (uint32_t i : small) table[i].probability = 1.0f;
    for (uint32_t i : large) table[i].probability = 1.0f;
    return table;
}

// The background's largest luminance over cell (column, row) of a
// columns x rows grid, with one texel of margin for the bilinear lookup.
float image_cell_weight(const Background& b, const Texture& texture, const std::vector<float>& texture_pixels,
                        uint32_t column, uint32_t row, uint32_t columns, uint32_t rows) {
    const int width = int(texture.image_width), height = int(texture.image_height);
    const int x0 = std::max(0, int(uint64_t(column) * width / columns) - 1);
    const int x1 = std::min(width - 1, int(uint64_t(column + 1) * width / columns));
    const int y0 = std::max(0, int(uint64_t(row) * height / rows) - 1);
    const int y1 = std::min(height - 1, int(uint64_t(row + 1) * height / rows));
    const float* base = texture_pixels.data() + 3 * size_t(texture.image_offset);
    float largest = 0.0f;
    for (int y = y0; y <= y1; ++y) {
        for (int x = x0; x <= x1; ++x) {
            const float* p = base + 3 * (size_t(y) * width + x);
            largest = std::max(largest, luminance(Color(p[0], p[1], p[2])));
        }
    }
    return b.intensity * largest;
}

// The same for a sky or constant background: its corners and centre.
float analytic_cell_weight(const Background& b, uint32_t column, uint32_t row, uint32_t columns, uint32_t rows) {
    float largest = 0.0f;
    for (float dt : {0.0f, 0.5f, 1.0f}) {
        for (float ds : {0.0f, 0.5f, 1.0f}) {
            float sin_theta;
            const Vec3 d = equirectangular_direction((float(column) + ds) / float(columns),
                                                     (float(row) + dt) / float(rows), sin_theta);
            largest =
                std::max(largest, luminance(background_radiance(b, nullptr, nullptr, world_from_environment(b, d))));
        }
    }
    return largest;
}

// The distribution of directions over the background, proportional to its
// luminance (so its density per solid angle is): cell weights are radiance
// times sin(theta). Every cell keeps a small share, so that the density is
// positive wherever radiance is. Returns the background's power.
float build_environment_distribution(Background& b, const std::vector<Texture>& textures,
                                     const std::vector<float>& texture_pixels, float scene_radius,
                                     std::vector<float>& distribution) {
    uint32_t columns = 64, rows = 32;
    if (b.type == BackgroundType::Image) {
        const Texture& texture = textures[b.texture];
        const uint32_t step = std::max(1u, (texture.image_width + 1023) / 1024);
        columns = std::max(1u, texture.image_width / step);
        rows = std::max(1u, texture.image_height / step);
    }
    std::vector<double> weights(size_t(columns) * rows);
    double radiance_integral = 0;  // of luminance over the sphere
    for (uint32_t row = 0; row < rows; ++row) {
        const double sin_theta = std::sin(kPi * (row + 0.5) / rows);
        for (uint32_t column = 0; column < columns; ++column) {
            const float radiance =
                b.type == BackgroundType::Image
                    ? image_cell_weight(b, textures[b.texture], texture_pixels, column, row, columns, rows)
                    : analytic_cell_weight(b, column, row, columns, rows);
            weights[size_t(row) * columns + column] = radiance * sin_theta;
            radiance_integral += radiance * sin_theta * (kPi / rows) * (2 * kPi / columns);
        }
    }
    double mean = 0;
    for (double w : weights) mean += w / double(weights.size());
    if (!(mean > 0) || !std::isfinite(mean)) return 0.0f;
    for (double& w : weights) w = std::max(w, 1e-3 * mean);
    mean = 0;
    for (double w : weights) mean += w / double(weights.size());

    distribution.assign(size_t(rows) * (columns + 1) + rows + 1 + size_t(columns) * rows, 0.0f);
    b.distribution_columns = columns;
    b.distribution_rows = rows;
    b.distribution_integral = float(mean);
    std::vector<double> row_sums(rows, 0.0);
    for (uint32_t row = 0; row < rows; ++row) {
        float* cdf = distribution.data() + size_t(row) * (columns + 1);
        double sum = 0;
        for (uint32_t column = 0; column < columns; ++column) sum += weights[size_t(row) * columns + column];
        double running = 0;
        for (uint32_t column = 0; column < columns; ++column) {
            running += weights[size_t(row) * columns + column];
            cdf[column + 1] = float(running / sum);
        }
        cdf[columns] = 1.0f;
        row_sums[row] = sum;
    }
    float* marginal = distribution.data() + size_t(rows) * (columns + 1);
    double total = 0, running = 0;
    for (double s : row_sums) total += s;
    for (uint32_t row = 0; row < rows; ++row) {
        running += row_sums[row];
        marginal[row + 1] = float(running / total);
    }
    marginal[rows] = 1.0f;
    float* cell_weights = marginal + rows + 1;
    for (size_t i = 0; i < weights.size(); ++i) cell_weights[i] = float(weights[i]);
    // Power: pi r^2 times the mean radiance over the sphere of directions.
    return float(kPi * double(scene_radius) * scene_radius * radiance_integral / (4 * kPi));
}

Light area_light(LightType type, uint32_t primitive = 0, uint32_t instance = kNoInstance) {
    Light light;
    light.type = type;
    light.primitive = primitive;
    light.instance = instance;
    return light;
}

}  // namespace

void Scene::build_lights() {
    for (Material& m : materials) {
        // A texture index past the array (a scene still being assembled) emits nothing yet.
        const bool emits = material_emits(m) && m.emission_texture < textures.size();
        m.emission_luminance = emits ? mean_luminance(textures[m.emission_texture], texture_pixels) : 0.0f;
    }
    const std::vector<PrimitiveRef> top_level = all_primitive_refs();
    Aabb bounds;
    for (const Aabb& box : bounds_of_refs(top_level)) bounds.expand(box);
    scene_radius_ = top_level.empty() ? 0.0f : 0.5f * length(bounds.upper - bounds.lower);

    lights_.clear();
    const auto emissive = [&](uint32_t material) { return material_emits(materials[material]); };
    for (const PrimitiveRef ref : top_level) {
        switch (ref.type()) {
        case PrimitiveType::Sphere:
            if (emissive(spheres[ref.index()].material)) lights_.push_back(area_light(LightType::Sphere, ref.index()));
            break;
        case PrimitiveType::Quad:
            if (emissive(quads[ref.index()].material)) lights_.push_back(area_light(LightType::Quad, ref.index()));
            break;
        case PrimitiveType::Triangle:
            if (emissive(triangles[ref.index()].material))
                lights_.push_back(area_light(LightType::Triangle, ref.index()));
            break;
        case PrimitiveType::Instance: break;
        }
    }
    for (uint32_t i = 0; i < instance_placements.size(); ++i) {
        const uint32_t placed = instance_placements[i].material;
        if (placed != kGeometryMaterial && !emissive(placed)) continue;
        for (const PrimitiveRef ref : geometry_refs(instance_placements[i].geometry)) {
            if (ref.type() == PrimitiveType::Quad &&
                (placed != kGeometryMaterial || emissive(quads[ref.index()].material))) {
                lights_.push_back(area_light(LightType::Quad, ref.index(), i));
            }
            if (ref.type() == PrimitiveType::Triangle &&
                (placed != kGeometryMaterial || emissive(triangles[ref.index()].material))) {
                lights_.push_back(area_light(LightType::Triangle, ref.index(), i));
            }
        }
    }
    lights_.insert(lights_.end(), punctual_lights.begin(), punctual_lights.end());

    environment_distribution_.clear();
    background.distribution_columns = background.distribution_rows = 0;
    background.distribution_integral = 0.0f;
    const bool sample_background =
        background.sampling == BackgroundSampling::Light ||
        (background.sampling == BackgroundSampling::Auto && background.type == BackgroundType::Image);
    environment_power_ = sample_background
                             ? build_environment_distribution(background, textures, texture_pixels,
                                                              std::max(scene_radius_, 1e-3f), environment_distribution_)
                             : 0.0f;
    if (environment_power_ > 0.0f) lights_.push_back(area_light(LightType::Environment));

    // Weigh by power; lights that send nothing are dropped.
    inverse_light_power_ = 0.0f;
    const SceneView scene = view();
    std::vector<Light> kept;
    std::vector<double> powers;
    for (const Light& light : lights_) {
        const float power = light_power(scene, light);
        if (power > 0.0f && std::isfinite(power)) {
            kept.push_back(light);
            powers.push_back(power);
        }
    }
    lights_ = std::move(kept);
    light_alias_.clear();
    light_tree_.clear();
    light_trails_.clear();
    emitter_keys_.clear();
    infinite_lights_.clear();
    tree_probability_ = 0.0f;
    if (lights_.empty()) return;
    double total = 0;
    for (double p : powers) total += p;
    inverse_light_power_ = float(1.0 / total);
    light_alias_ = alias_table(powers);
    // light_power_probability()'s value, bit for bit (the same float product).
    for (size_t i = 0; i < lights_.size(); ++i) light_alias_[i].pmf = float(powers[i]) * inverse_light_power_;

    // The light tree over the finite lights; the infinite ones by power beside it.
    double infinite_power = 0;
    for (size_t i = 0; i < lights_.size(); ++i) {
        if (is_infinite_light(lights_[i].type)) infinite_power += powers[i];
    }
    double running = 0;
    for (size_t i = 0; i < lights_.size(); ++i) {
        if (!is_infinite_light(lights_[i].type)) continue;
        running += powers[i];
        infinite_lights_.push_back(InfiniteLight{uint32_t(i), float(running / infinite_power)});
    }
    if (!infinite_lights_.empty()) infinite_lights_.back().cumulative = 1.0f;
    light_tree_ = build_light_tree(view(), light_trails_);
    tree_probability_ = infinite_lights_.empty() ? 1.0f : float((total - infinite_power) / total);
    for (size_t i = 0; i < lights_.size(); ++i) {
        const Light& light = lights_[i];
        if (light.type == LightType::Sphere || light.type == LightType::Quad || light.type == LightType::Triangle) {
            emitter_keys_.push_back(
                EmitterKey{emitter_key(light.type, light.primitive, light.instance), uint32_t(i), 0});
        }
    }
    std::sort(emitter_keys_.begin(), emitter_keys_.end(),
              [](const EmitterKey& a, const EmitterKey& b) { return a.key < b.key; });
}

}  // namespace farmrt
