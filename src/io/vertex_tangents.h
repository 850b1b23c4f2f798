// Tangents for normal maps where a mesh file gives none, as glTF asks of a
// renderer: per vertex, the direction of increasing u along the surface.
#pragma once

#include <cstdint>
#include <vector>

namespace farmrt {

// Per-vertex tangents of an indexed triangle mesh: 4 values per vertex, the
// unit tangent (x, y, z) and the handedness w (+1 or -1) that makes
// w * cross(normal, tangent) point along increasing v. `positions` and
// `normals` hold 3 values per vertex, `uvs` 2 (farmrt's: v up), `corners`
// 3 vertex indices per triangle. Each triangle's dP/du and dP/dv, weighted
// by its area in (u, v), are summed at its corners; the sum is made
// orthogonal to the vertex normal. A vertex no triangle with usable (u, v)
// reaches gets a zero tangent (its normal map is not applied).
std::vector<double> vertex_tangents(const std::vector<double>& positions, const std::vector<double>& normals,
                                    const std::vector<double>& uvs, const std::vector<uint32_t>& corners);

}  // namespace farmrt
