// Sine and cosine written out in plain float arithmetic, so that every backend
// (scalar, SIMD, CUDA) computes the same bits: the C library's sinf/cosf and
// CUDA's differ in their last bits, which would make GPU images differ from
// CPU images. Also cheaper than sinf/cosf and trivially vectorisable.
#pragma once

#include <cmath>

#include "core/common.h"

namespace farmrt {

// sin(2 pi t) and cos(2 pi t), for |t| < 2^20 (sampling uses t in [0, 1)).
// Reduction is exact: 4t counts quarter turns, and 4t minus the nearest whole
// quarter is exact, leaving r in [-pi/4, pi/4] for short minimax polynomials
// (Cephes sinf/cosf coefficients; error about 1 ulp, checked against double
// precision in the tests).
FARMRT_CPU_GPU FARMRT_INLINE void sin_cos_turns(float t, float& sine, float& cosine) {
    const float quarters = 4.0f * t;
    const float nearest = floorf(quarters + 0.5f);
    const float r = (quarters - nearest) * (0.5f * kPi);
    const float r2 = r * r;
    const float s = r + (r * r2) * (-1.6666654611e-1f + r2 * (8.3321608736e-3f + r2 * -1.9515295891e-4f));
    const float c = (1.0f - 0.5f * r2) +
                    (r2 * r2) * (4.166664568298827e-2f + r2 * (-1.388731625493765e-3f + r2 * 2.443315711809948e-5f));
    // Rotate by the whole quarter turns: (sin, cos) of r + q pi/2.
    const int quadrant = static_cast<int>(nearest) & 3;
    const bool swap = (quadrant & 1) != 0;
    const float sine_magnitude = swap ? c : s;
    const float cosine_magnitude = swap ? s : c;
    sine = (quadrant & 2) ? -sine_magnitude : sine_magnitude;
    cosine = (quadrant == 1 || quadrant == 2) ? -cosine_magnitude : cosine_magnitude;
}

// atan2(y, x) in (-pi, pi], in plain float arithmetic (same bits on every
// backend, like sin_cos_turns): the octant reduces the argument to [0, 1],
// and tan(pi/8) splits that for Cephes' atanf polynomial. Error about 2e-7
// radians (checked against double precision in the tests).
FARMRT_CPU_GPU FARMRT_INLINE float arc_tangent2(float y, float x) {
    const float ax = fabsf(x), ay = fabsf(y);
    const float larger = ax > ay ? ax : ay;
    const float smaller = ax > ay ? ay : ax;
    float a = larger > 0.0f ? smaller / larger : 0.0f;  // in [0, 1]
    float base = 0.0f;
    if (a > 0.4142135623730950f) {  // tan(pi/8): atan(a) = pi/4 + atan((a - 1) / (a + 1))
        base = 0.25f * kPi;
        a = (a - 1.0f) / (a + 1.0f);
    }
    const float z = a * a;
    float angle =
        base +
        ((((8.05374449538e-2f * z - 1.38776856032e-1f) * z + 1.99777106478e-1f) * z - 3.33329491539e-1f) * z * a + a);
    if (ay > ax) angle = 0.5f * kPi - angle;
    if (x < 0.0f) angle = kPi - angle;
    return copysignf(angle, y);  // the sign of y, -0 included, as atan2
}

// acos(x) for x in [-1, 1], through arc_tangent2.
FARMRT_CPU_GPU FARMRT_INLINE float arc_cosine(float x) {
    return arc_tangent2(sqrtf(max_float(0.0f, (1.0f - x) * (1.0f + x))), x);
}

}  // namespace farmrt
