// A ray: origin + t * direction at shutter time `time` in [0, 1).
#pragma once

#include "core/vector_math.h"

namespace farmrt {

struct Ray {
    Vec3 origin;
    Vec3 direction;  // not necessarily unit length, as in the books
    float time = 0;

    FARMRT_CPU_GPU FARMRT_INLINE Vec3 at(float t) const { return origin + t * direction; }
};

}  // namespace farmrt
