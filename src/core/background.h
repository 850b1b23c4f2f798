// What a ray that leaves the scene sees: a sky gradient or a constant color.
#pragma once

#include "core/ray.h"

namespace farmrt {

struct Background {
    bool is_sky = true;
    Color horizon{1, 1, 1};
    Color zenith{0.5f, 0.7f, 1.0f};
    Color color{0, 0, 0};

    FARMRT_CPU_GPU FARMRT_INLINE Color radiance(const Ray& ray) const {
        if (!is_sky) return color;
        const Vec3 unit_direction = unit_vector(ray.direction);
        const float a = 0.5f * (unit_direction.y + 1.0f);
        return (1.0f - a) * horizon + a * zenith;
    }
};

}  // namespace farmrt
