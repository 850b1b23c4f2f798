// Tangents for normal maps where a mesh file gives none, as glTF asks of a
// renderer: MikkTSpace's, the tangent space that baking tools (Blender,
// Substance, xNormal) bake normal maps in, so that a baked map shades as it
// was baked.
#pragma once

#include <cstdint>
#include <vector>

namespace farmrt {

// Per-corner tangents of a triangle mesh: 4 values per entry of `corners`,
// the unit tangent (x, y, z) and the handedness w (+1 or -1) that makes
// w * cross(normal, tangent) the direction of increasing v. `positions` and
// `normals` hold 3 values per vertex, `uvs` 2 (farmrt's: v up), `corners`
// 3 vertex indices per triangle.
//
// MikkTSpace's rules (Mikkelsen 2008, the reference mikktspace.c):
// - vertices equal in position, normal and (u, v) are one vertex, however
//   the file indexes them;
// - each triangle's direction of increasing u is made unit, and at each
//   corner made orthogonal to the corner's normal and unit again, and
//   weighed by the corner's angle;
// - a vertex's corners are summed in groups: triangles of one orientation
//   of (u, v) joined across the edges they share. Mirrored (u, v) (negative
//   area) have handedness -1, so a mirrored half never bends its twin's
//   tangents, and surfaces that only touch at a vertex keep their own.
// A triangle without usable (u, v) takes a group of its vertex (the
// reference lets it join its neighbours'); a corner that no usable triangle
// reaches gets a zero tangent (no normal map there).
std::vector<double> tangent_space(const std::vector<double>& positions, const std::vector<double>& normals,
                                  const std::vector<double>& uvs, const std::vector<uint32_t>& corners);

}  // namespace farmrt
