// Wavefront OBJ meshes, read through tinyobjloader: faces triangulated, vertex
// normals kept for smooth shading, texture coordinates kept for textures.
#pragma once

#include <string>
#include <vector>

#include "core/primitives.h"

namespace farmrt {

struct MeshData {
    std::vector<Triangle> triangles;  // material 0; the scene assigns one
    size_t skipped_degenerate = 0;    // zero-area faces, dropped
};

// Reads `path` (shown as `display_path` in errors). Throws InputError naming the
// file and, for malformed content, the line: "model.obj:12: face index 9 is out
// of range (8 vertices so far)".
MeshData load_obj_mesh(const std::string& path, const std::string& display_path);

// The same from text already in memory (tests).
MeshData parse_obj_mesh(const std::string& text, const std::string& display_path);

}  // namespace farmrt
