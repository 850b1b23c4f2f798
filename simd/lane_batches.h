// xsimd batches of floats as a lane type of the core's math (src/core/lanes.h):
// the SIMD tracer runs the core's own intersection tests, slab test and hit
// ordering with one primitive, one box or one ray per lane. Included by the
// kernel translation units only (through wide_traversal.h); every member is
// always inlined, so each instruction set's copy stays in its own unit.
#pragma once

#include <xsimd/xsimd.hpp>

#include "core/lanes.h"

namespace farmrt {

template <class Arch>
struct LaneOps<xsimd::batch<float, Arch>> {
    using Real = xsimd::batch<float, Arch>;
    using Mask = xsimd::batch_bool<float, Arch>;
    static FARMRT_INLINE Real select(const Mask& mask, const Real& a, const Real& b) {
        return xsimd::select(mask, a, b);
    }
    static FARMRT_INLINE Real abs(const Real& x) { return xsimd::abs(x); }
    // maxps and minps: the second operand unless the first is larger
    // (smaller), as max_float and min_float.
    static FARMRT_INLINE Real max(const Real& a, const Real& b) { return xsimd::max(a, b); }
    static FARMRT_INLINE Real min(const Real& a, const Real& b) { return xsimd::min(a, b); }
    static FARMRT_INLINE bool none(const Mask& mask) { return xsimd::none(mask); }
    static FARMRT_INLINE Mask negate(const Mask& mask) { return ~mask; }
    // Two products rounded on their own: the build never contracts.
    static FARMRT_INLINE Real difference_of_products(const Real& a, const Real& b, const Real& c, const Real& d) {
        return a * b - c * d;
    }
};

}  // namespace farmrt
