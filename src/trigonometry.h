// Sine and cosine written out in plain float arithmetic, so that every backend
// (scalar, SIMD, CUDA) computes the same bits: the C library's sinf/cosf and
// CUDA's differ in their last bits, which would make GPU images differ from
// CPU images. Also cheaper than sinf/cosf and trivially vectorisable.
#pragma once

#include <cmath>

#include "common.h"

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

}  // namespace farmrt
