#include "io/mesh_loader.h"

#include <tiny_obj_loader.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "core/errors.h"
#include "core/stop_flag.h"
#include "io/polygon_triangulation.h"
#include "io/texture_loader.h"
#include "io/file_reader.h"

namespace farmrt {
namespace {

// tinyobjloader parses leniently: a coordinate that is not a number reads as 0
// and an index past the end is only a warning, without a line. This pass checks
// the statements that carry geometry first, so that a malformed file is
// rejected with the line at fault; tinyobjloader then does the real parsing.
class ObjChecker {
public:
    explicit ObjChecker(const std::string& display_path) : display_path_(display_path) {}

    void check(const std::string& text) {
        size_t line_number = 0;
        size_t begin = 0;
        while (begin < text.size()) {
            size_t end = text.find('\n', begin);
            if (end == std::string::npos) end = text.size();
            ++line_number;
            check_line(text.substr(begin, end - begin), line_number);
            begin = end + 1;
        }
        if (faces_ == 0) throw InputError(display_path_ + ": no faces (f lines) in the OBJ file");
    }

private:
    [[noreturn]] void fail(size_t line, const std::string& problem) const {
        throw InputError(display_path_ + ":" + std::to_string(line) + ": " + problem);
    }

    static std::vector<std::string> tokens_of(const std::string& line) {
        std::vector<std::string> tokens;
        std::istringstream in(line);
        std::string token;
        while (in >> token) tokens.push_back(token);
        return tokens;
    }

    void check_numbers(const std::vector<std::string>& tokens, size_t line, size_t lo, size_t hi) const {
        const size_t count = tokens.size() - 1;
        if (count < lo || count > hi) {
            fail(line, "'" + tokens[0] + "' expects " +
                           (lo == hi ? std::to_string(lo) : std::to_string(lo) + " to " + std::to_string(hi)) +
                           " numbers, got " + std::to_string(count));
        }
        for (size_t i = 1; i < tokens.size(); ++i) {
            char* end = nullptr;
            const double value = std::strtod(tokens[i].c_str(), &end);
            if (end != tokens[i].c_str() + tokens[i].size()) fail(line, "'" + tokens[i] + "' is not a number");
            if (!std::isfinite(value) || std::fabs(value) > 1e30) {
                fail(line, "'" + tokens[i] + "' is not a finite number");
            }
        }
    }

    // One index of a face: 1-based, or negative counting back from the last.
    void check_index(const std::string& text, size_t available, const char* what, const char* plural,
                     size_t line) const {
        char* end = nullptr;
        errno = 0;
        const long long index = std::strtoll(text.c_str(), &end, 10);
        if (text.empty() || end != text.c_str() + text.size() || errno == ERANGE) {
            fail(line, std::string(what) + " index '" + text + "' is not an integer");
        }
        // The magnitude of a negative index without negating it (-LLONG_MIN overflows).
        const unsigned long long magnitude =
            index < 0 ? static_cast<unsigned long long>(-(index + 1)) + 1 : static_cast<unsigned long long>(index);
        if (index == 0 || magnitude > available) {
            fail(line, std::string(what) + " index " + text + " is out of range (" + std::to_string(available) + " " +
                           (available == 1 ? what : plural) + " so far)");
        }
    }

    void check_face(const std::vector<std::string>& tokens, size_t line) {
        if (tokens.size() < 4) fail(line, "a face needs at least 3 vertices");
        for (size_t i = 1; i < tokens.size(); ++i) {
            const std::string& ref = tokens[i];
            const size_t slash1 = ref.find('/');
            check_index(ref.substr(0, slash1), vertices_, "vertex", "vertices", line);
            if (slash1 == std::string::npos) continue;
            const size_t slash2 = ref.find('/', slash1 + 1);
            const std::string texcoord =
                ref.substr(slash1 + 1, slash2 == std::string::npos ? std::string::npos : slash2 - slash1 - 1);
            if (!texcoord.empty()) check_index(texcoord, texcoords_, "texture coordinate", "texture coordinates", line);
            if (slash2 == std::string::npos) {
                if (texcoord.empty()) fail(line, "malformed face vertex '" + ref + "'");
                continue;
            }
            const std::string normal = ref.substr(slash2 + 1);
            if (normal.find('/') != std::string::npos) fail(line, "malformed face vertex '" + ref + "'");
            check_index(normal, normals_, "normal", "normals", line);
        }
        ++faces_;
    }

    void check_line(const std::string& line_text, size_t line) {
        const std::vector<std::string> tokens = tokens_of(line_text);
        if (tokens.empty() || tokens[0][0] == '#') return;
        const std::string& keyword = tokens[0];
        if (keyword == "v") {
            // x y z, x y z w, or x y z r g b (a common extension).
            check_numbers(tokens, line, 3, 6);
            if (tokens.size() == 6) fail(line, "'v' expects 3, 4 or 6 numbers, got 5");
            ++vertices_;
        } else if (keyword == "vn") {
            check_numbers(tokens, line, 3, 3);
            ++normals_;
        } else if (keyword == "vt") {
            check_numbers(tokens, line, 1, 3);
            ++texcoords_;
        } else if (keyword == "f") {
            check_face(tokens, line);
        }
        // Other statements (o, g, s, usemtl, mtllib, l, p, ...) carry no
        // surface that farmrt renders; tinyobjloader skips them too.
    }

    const std::string& display_path_;
    size_t vertices_ = 0, normals_ = 0, texcoords_ = 0, faces_ = 0;
};

// tinyobjloader's indices, checked again against its own arrays: it splits
// lines and fields differently from ObjChecker (a vertical tab, a lone
// carriage return), so an index ObjChecker passed can still be past the end
// of what tinyobjloader read; that is an error, never a read out of bounds.
void check_parsed_index(const std::vector<tinyobj::real_t>& values, int index, size_t width, const char* what,
                        const std::string& display_path) {
    if (index < 0 || size_t(index) >= values.size() / width) {
        throw InputError(display_path + ": malformed OBJ: a face refers to " + what + " " + std::to_string(index + 1) +
                         " of " + std::to_string(values.size() / width) + " read");
    }
}

Vec3 vertex_at(const std::vector<tinyobj::real_t>& values, int index, const char* what,
               const std::string& display_path) {
    check_parsed_index(values, index, 3, what, display_path);
    return Vec3(values[3 * size_t(index)], values[3 * size_t(index) + 1], values[3 * size_t(index) + 2]);
}

Color color_of(const tinyobj::real_t* values) { return Color(float(values[0]), float(values[1]), float(values[2])); }

ObjMaterial obj_material(const tinyobj::material_t& m, const std::string& display_path) {
    ObjMaterial result;
    result.name = m.name;
    result.diffuse = color_of(m.diffuse);
    result.specular = color_of(m.specular);
    result.emission = color_of(m.emission);
    result.transmittance = color_of(m.transmittance);
    result.shininess = float(m.shininess);
    result.ior = float(m.ior);
    result.dissolve = float(m.dissolve);
    result.illum = m.illum;
    result.roughness = float(m.roughness);
    result.metallic = float(m.metallic);
    result.diffuse_texture = m.diffuse_texname;
    result.emission_texture = m.emissive_texname;
    const float values[] = {result.diffuse.x,  result.diffuse.y,  result.diffuse.z,  result.specular.x,
                            result.specular.y, result.specular.z, result.emission.x, result.emission.y,
                            result.emission.z, result.shininess,  result.ior,        result.dissolve,
                            result.roughness,  result.metallic};
    for (float v : values) {
        if (!std::isfinite(v) || v < 0.0f) {
            throw InputError(display_path + ": material '" + m.name + "': values must be finite and not negative");
        }
    }
    return result;
}

void add_obj_triangle(const tinyobj::attrib_t& attrib, const std::array<tinyobj::index_t, 3>& corners,
                      uint32_t material, const std::string& display_path, MeshData& mesh) {
    Triangle t{};
    t.material = material;
    t.vertex0 = vertex_at(attrib.vertices, corners[0].vertex_index, "vertex", display_path);
    t.vertex1 = vertex_at(attrib.vertices, corners[1].vertex_index, "vertex", display_path);
    t.vertex2 = vertex_at(attrib.vertices, corners[2].vertex_index, "vertex", display_path);
    if (!(length_squared(cross(t.vertex1 - t.vertex0, t.vertex2 - t.vertex0)) > 0)) {
        ++mesh.skipped_degenerate;
        return;
    }
    // Smooth shading where every corner has a usable normal; flat otherwise.
    bool smooth = true;
    Vec3 normals[3];
    for (int c = 0; c < 3; ++c) {
        if (corners[c].normal_index < 0) {
            smooth = false;
            break;
        }
        normals[c] = vertex_at(attrib.normals, corners[c].normal_index, "normal", display_path);
        if (!(length_squared(normals[c]) > 0)) {
            smooth = false;
            break;
        }
        normals[c] = unit_vector(normals[c]);
    }
    if (smooth) {
        t.normal0 = normals[0];
        t.normal1 = normals[1];
        t.normal2 = normals[2];
    }
    const bool textured =
        corners[0].texcoord_index >= 0 && corners[1].texcoord_index >= 0 && corners[2].texcoord_index >= 0;
    for (int c = 0; textured && c < 3; ++c) {
        check_parsed_index(attrib.texcoords, corners[c].texcoord_index, 2, "texture coordinate", display_path);
    }
    for (int c = 0; c < 3; ++c) {
        t.uv[2 * c] = textured ? attrib.texcoords[2 * size_t(corners[c].texcoord_index)] : kDefaultTriangleUvs[2 * c];
        t.uv[2 * c + 1] =
            textured ? attrib.texcoords[2 * size_t(corners[c].texcoord_index) + 1] : kDefaultTriangleUvs[2 * c + 1];
    }
    // Vertex colours, where any corner's differs from white (tinyobjloader's
    // value for vertices without one); sRGB-encoded in [0, 1], as MeshLab and
    // ZBrush write them.
    TriangleAttributes a;
    bool colored = false;
    for (int c = 0; c < 3; ++c) {
        const size_t at = 3 * size_t(corners[c].vertex_index);
        if (at + 2 >= attrib.colors.size()) break;
        for (int k = 0; k < 3; ++k) {
            const float value = float(attrib.colors[at + size_t(k)]);
            if (!(value >= 0.0f && value <= 1.0f)) {
                throw InputError(display_path + ": vertex " + std::to_string(corners[c].vertex_index + 1) +
                                 ": colour values must lie in [0, 1]");
            }
            a.color[c][k] = srgb_to_linear(value);
            colored |= value != 1.0f;
        }
    }
    if (colored) {
        t.attributes = uint32_t(mesh.attributes.size());
        mesh.attributes.push_back(a);
    }
    mesh.triangles.push_back(t);
}

}  // namespace

MeshData parse_obj_mesh(const std::string& text, const std::string& display_path, bool with_materials,
                        const std::string& mtl_text) {
    ObjChecker(display_path).check(text);
    tinyobj::ObjReaderConfig config;
    // Faces are triangulated here (io/polygon_triangulation.h): tinyobjloader's
    // own ear clipping takes quadratic time on convex faces and fills concave ones.
    config.triangulate = false;
    // Vertex colours ('v x y z r g b'): where a file has none, tinyobjloader gives white.
    config.vertex_color = true;
    tinyobj::ObjReader reader;
    // ParseFromString reads no file: the materials come from `mtl_text`.
    if (!reader.ParseFromString(text, with_materials ? mtl_text : std::string(), config)) {
        throw InputError(display_path + ": malformed OBJ: " + joined_lines(reader.Error()));
    }
    const tinyobj::attrib_t& attrib = reader.GetAttrib();
    MeshData mesh;
    size_t index_count = 0;
    for (const tinyobj::shape_t& shape : reader.GetShapes()) index_count += shape.mesh.indices.size();
    mesh.triangles.reserve(index_count / 3);
    if (with_materials) {
        for (const tinyobj::material_t& m : reader.GetMaterials())
            mesh.materials.push_back(obj_material(m, display_path));
    }
    size_t faces_read = 0;
    std::vector<Vec3> polygon;
    for (const tinyobj::shape_t& shape : reader.GetShapes()) {
        const std::vector<tinyobj::index_t>& indices = shape.mesh.indices;
        size_t first = 0;
        for (size_t face = 0; face < shape.mesh.num_face_vertices.size(); ++face) {
            const size_t count = shape.mesh.num_face_vertices[face];
            if (first + count > indices.size()) break;
            if (++faces_read % 4096 == 0) stop_if_requested("loading an OBJ mesh");
            polygon.clear();
            for (size_t k = 0; k < count; ++k)
                polygon.push_back(vertex_at(attrib.vertices, indices[first + k].vertex_index, "vertex", display_path));
            const std::vector<std::array<uint32_t, 3>> pieces = triangulate_polygon(polygon);
            if (pieces.empty() && count >= 3) {
                throw InputError(display_path + ": face " + std::to_string(faces_read) + " is concave with " +
                                 std::to_string(count) + " corners; farmrt triangulates concave faces of at most " +
                                 std::to_string(kMaxConcavePolygonCorners));
            }
            uint32_t material = 0;
            if (with_materials) {
                const int id = face < shape.mesh.material_ids.size() ? shape.mesh.material_ids[face] : -1;
                material = id >= 0 && size_t(id) < mesh.materials.size() ? uint32_t(id) : kNoObjMaterial;
            }
            for (const std::array<uint32_t, 3>& piece : pieces) {
                add_obj_triangle(attrib,
                                 {indices[first + piece[0]], indices[first + piece[1]], indices[first + piece[2]]},
                                 material, display_path, mesh);
            }
            first += count;
        }
    }
    if (mesh.triangles.empty()) throw InputError(display_path + ": every face of the mesh has zero area");
    return mesh;
}

MeshData load_obj_mesh(const std::string& path, const std::string& display_path) {
    return parse_obj_mesh(read_regular_file(path, display_path, "mesh file"), display_path);
}

MeshData load_obj_model_mesh(const std::string& path, const std::string& display_path) {
    const std::string text = read_regular_file(path, display_path, "OBJ file");
    // The material libraries it names (mtllib a.mtl b.mtl), read whole and
    // joined. One that does not exist is a warning, as in Blender and assimp:
    // its materials render grey; one that cannot be read is an error.
    const std::filesystem::path directory = std::filesystem::path(path).parent_path();
    std::string mtl_text;
    std::set<std::string> libraries_read;  // a library named again is not read (nor joined) again
    std::vector<std::string> warnings;
    std::istringstream lines(text);
    std::string line;
    size_t line_number = 0;
    while (std::getline(lines, line)) {
        ++line_number;
        std::istringstream words(line);
        std::string keyword, name;
        if (!(words >> keyword) || keyword != "mtllib") continue;
        while (words >> name) {
            const std::string mtl_path = (directory / name).string();
            if (!libraries_read.insert(mtl_path).second) continue;
            std::error_code missing;
            if (!std::filesystem::exists(std::filesystem::symlink_status(mtl_path, missing))) {
                warnings.push_back(display_path + ":" + std::to_string(line_number) + ": mtllib: " + mtl_path +
                                   ": no such file; its materials render in a grey default");
                continue;
            }
            try {
                mtl_text += read_regular_file(mtl_path, mtl_path, "material library") + "\n";
            } catch (const InputError& e) {
                throw InputError(display_path + ":" + std::to_string(line_number) + ": mtllib: " + e.what());
            }
        }
    }
    size_t materials = 0;
    for (size_t at = mtl_text.find("newmtl"); at != std::string::npos; at = mtl_text.find("newmtl", at + 6))
        ++materials;
    if (materials > kMaxObjMaterials) {
        throw InputError(display_path + ": its material libraries define " + std::to_string(materials) +
                         " materials; farmrt reads at most " + std::to_string(kMaxObjMaterials));
    }
    MeshData mesh = parse_obj_mesh(text, display_path, true, mtl_text);
    mesh.warnings = std::move(warnings);
    return mesh;
}

}  // namespace farmrt
