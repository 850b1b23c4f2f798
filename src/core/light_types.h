// The lights next-event estimation samples, as plain data (lights.h samples
// them): emissive spheres, quads and triangles (through instances too),
// point, spot and directional lights, and the background.
#pragma once

#include "core/vector_math.h"

namespace farmrt {

enum class LightType : uint32_t {
    Sphere = 0,
    Quad = 1,
    Triangle = 2,
    Point = 3,
    Spot = 4,
    Directional = 5,
    Environment = 6
};

struct Light {
    LightType type = LightType::Point;
    uint32_t primitive = 0;           // Sphere, Quad, Triangle: the index in its array
    uint32_t instance = 0xFFFFFFFFu;  // Quad, Triangle: the instance placing it (kNoInstance: none)
    Vec3 position;                    // Point, Spot
    Vec3 direction{0, -1, 0};         // Spot: its axis; Directional: where the light travels (unit)
    Color intensity;                  // Point, Spot: W/sr; Directional: irradiance
    float cos_inner = 1.0f;           // Spot: full intensity inside this cone
    float cos_outer = 0.0f;           // Spot: none outside this one
};

// One slot of Vose's alias table: keep this index with `probability`, else
// take `alias`; `pmf`: the probability that the table picks this index (the
// light's share of the power), kept so that no light's power is recomputed
// per sample.
struct AliasEntry {
    float probability = 1.0f;
    uint32_t alias = 0;
    float pmf = 0.0f;
};

}  // namespace farmrt
