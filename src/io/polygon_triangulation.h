// Polygons of OBJ files into triangles: quads split along their shorter
// diagonal, convex polygons fanned in linear time, concave ones (rings,
// L-shapes, letters) cut by ear clipping in the polygon's own plane, so that
// a concave face renders as its outline and not as its convex hull.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/vector_math.h"

namespace farmrt {

// The most corners of a concave polygon that ear clipping (quadratic time)
// takes; a larger concave face is an error, a larger convex one is fanned.
constexpr size_t kMaxConcavePolygonCorners = 4096;

// Triangles as triples of corner numbers (0 .. corners.size()-1), in the
// polygon's winding. Empty when the polygon is concave and has more than
// kMaxConcavePolygonCorners corners. A polygon that is not simple (its edges
// cross) is clipped as far as ears are found and fanned for the rest.
std::vector<std::array<uint32_t, 3>> triangulate_polygon(const std::vector<Vec3>& corners);

}  // namespace farmrt
