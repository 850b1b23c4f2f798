// glTF 2.0 (.gltf with external or embedded buffers, .glb) through
// tinygltf, which parses the JSON and the binary chunk and decodes the
// images; everything it hands over is checked again here before a byte is
// read (bounds of buffers, views and accessors, indices, finite values), so
// a malformed file is one line naming the file and a JSON pointer, never a
// read out of bounds.
#include <tiny_gltf.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <set>
#include <string_view>

#include "core/errors.h"
#include "core/stop_flag.h"
#include "io/file_reader.h"
#include "io/gltf_accessors.h"
#include "io/gltf_materials.h"
#include "io/tangent_space.h"
#include "io/model_formats.h"
#include "io/texture_loader.h"

namespace farmrt {
namespace {

// What farmrt reads of each extension; anything else a file requires is an
// error, anything else it only uses is a warning.
const std::set<std::string> kSupportedExtensions = {"KHR_materials_transmission",      "KHR_materials_ior",
                                                    "KHR_materials_emissive_strength", "KHR_lights_punctual",
                                                    "KHR_mesh_quantization",           "KHR_texture_transform"};

// JSON nested deeper than this is refused before tinygltf parses it: its
// parser and the tree it builds recurse once per level, and 20,000 levels
// (40 KB of brackets) overflow the stack. Real files nest a few levels.
constexpr int kMaxJsonDepth = 256;

// The most node instances (and so mesh placements) the node graph may expand
// to: nodes that share children form a graph whose paths grow exponentially
// with its size.
constexpr uint64_t kMaxPlacements = uint64_t(1) << 20;

// Triangles a file may make: at least this many, and beyond it one per byte
// of its buffers (an indexed triangle takes at least 3 bytes), so that one
// accessor shared by thousands of primitives cannot multiply a small file.
constexpr uint64_t kMinTriangleBudget = uint64_t(1) << 21;

// Refuses JSON nested more than kMaxJsonDepth levels (arrays and objects,
// outside strings), naming the byte where the limit is passed.
void check_json_depth(const char* text, size_t size, const std::string& display_path) {
    int depth = 0;
    bool in_string = false;
    for (size_t i = 0; i < size; ++i) {
        const char c = text[i];
        if (in_string) {
            if (c == '\\')
                ++i;
            else if (c == '"')
                in_string = false;
        } else if (c == '"') {
            in_string = true;
        } else if (c == '[' || c == '{') {
            if (++depth > kMaxJsonDepth) {
                throw InputError(display_path + ": malformed glTF: JSON nested more than " +
                                 std::to_string(kMaxJsonDepth) + " levels deep (at byte " + std::to_string(i) + ")");
            }
        } else if (c == ']' || c == '}') {
            --depth;
        }
    }
}

// The JSON chunk of a .glb (header: magic, version, length; then the first
// chunk's length and type), or the whole text of a .gltf.
std::string_view gltf_json(const std::string& bytes, bool binary) {
    if (!binary) return bytes;
    if (bytes.size() < 20) return {};  // tinygltf reports the short header
    uint32_t chunk_length = 0;
    std::memcpy(&chunk_length, bytes.data() + 12, 4);
    return std::string_view(bytes).substr(20, std::min<size_t>(chunk_length, bytes.size() - 20));
}

const char* const kDracoAdvice =
    "requires extension KHR_draco_mesh_compression (Draco-compressed meshes), which farmrt does not decode; "
    "decompress the file first (gltf-transform copy, or gltfpack without -cc)";

// A glTF 1.0 file (a .glb of version 1, or asset.version "1.x"), said as
// such before tinygltf's messages about its parts.
void check_gltf_kind(const std::string& bytes, bool binary, std::string_view json, const std::string& display_path) {
    uint32_t glb_version = 2;
    if (binary && bytes.size() >= 8) std::memcpy(&glb_version, bytes.data() + 4, 4);
    const size_t asset = json.find("\"asset\"");
    const size_t version = asset == std::string::npos ? std::string::npos : json.find("\"version\"", asset);
    const size_t value = version == std::string::npos ? std::string::npos : json.find('"', json.find(':', version));
    const bool version_one = glb_version == 1 || (value != std::string::npos && json.compare(value, 3, "\"1.") == 0);
    if (version_one) {
        throw InputError(display_path +
                         ": a glTF 1.0 file: farmrt reads glTF 2.0 (convert it, e.g. by importing it "
                         "into Blender and exporting glTF 2.0)");
    }
}

// Candela and lux to farmrt's radiometric W/sr and W/m^2 (683 lm/W, as
// Blender's importer converts).
constexpr double kLumensPerWatt = 683.0;

// tinygltf's file access, replaced: names are taken as they are (its default
// expands them with wordexp, which would run a command substitution
// written in a URI), and files are read with the same checks as every input.
bool file_exists(const std::string& path, void*) { return std::filesystem::exists(path); }
std::string expand_path(const std::string& path, void*) { return path; }
bool read_whole_file(std::vector<unsigned char>* out, std::string* error, const std::string& path, void*) {
    try {
        const std::string bytes = read_regular_file(path, path, "glTF resource");
        out->assign(bytes.begin(), bytes.end());
        return true;
    } catch (const InputError& e) {
        if (error) *error += e.what();
        return false;
    }
}
bool write_whole_file(std::string*, const std::string&, const std::vector<unsigned char>&, void*) { return false; }

class GltfReader {
public:
    GltfReader(const tinygltf::Model& gltf, const std::string& display_path, ModelData& model)
        : gltf_(gltf), file_(display_path), model_(model), accessors_(gltf, display_path) {}

    void read() {
        uint64_t buffer_bytes = 0;
        for (const tinygltf::Buffer& buffer : gltf_.buffers) buffer_bytes += buffer.data.size();
        triangle_budget_ = std::max(kMinTriangleBudget, buffer_bytes);
        check_extensions();
        GltfMaterialReader materials(gltf_, file_, model_, [this](const std::string& text) { warn(text); });
        for (size_t i = 0; i < gltf_.materials.size(); ++i) model_.materials.push_back(materials.read(int(i)));
        mesh_of_gltf_mesh_.assign(gltf_.meshes.size(), -1);
        read_nodes();
        if (model_.placements.empty()) fail("", "the scene has no meshes to render");
        size_t placed_triangles = 0;
        for (const ModelPlacement& p : model_.placements) placed_triangles += model_.meshes[p.mesh].triangles.size();
        if (placed_triangles == 0 && skipped_points_or_lines_) {
            fail("", "holds no triangles: its primitives are points or lines, which farmrt does not render");
        }
    }

private:
    [[noreturn]] void fail(const std::string& pointer, const std::string& problem) const {
        throw InputError(file_ + (pointer.empty() ? "" : ": " + pointer) + ": " + problem);
    }
    void warn(const std::string& text) {
        if (warned_.insert(text).second) model_.warnings.push_back(file_ + ": " + text);
    }

    void check_extensions() {
        for (const std::string& name : gltf_.extensionsRequired) {
            if (name == "KHR_draco_mesh_compression") fail("/extensionsRequired", kDracoAdvice);
            if (!kSupportedExtensions.count(name))
                fail("/extensionsRequired", "requires extension " + name + ", which farmrt does not support");
        }
        for (const std::string& name : gltf_.extensionsUsed) {
            if (!kSupportedExtensions.count(name)) warn("ignores optional extension " + name);
        }
    }

    // ---- meshes -------------------------------------------------------------------------------

    uint32_t default_material() {
        if (default_material_ < 0) {
            // The spec's default material: white, metallic 1, roughness 1.
            model_.materials.push_back(default_model_material(model_, Color(1.0f), 1.0f, 1.0f));
            default_material_ = int(model_.materials.size() - 1);
        }
        return uint32_t(default_material_);
    }

    void read_primitive(int mesh_index, int primitive_index, ModelMesh& mesh) {
        const tinygltf::Primitive& p = gltf_.meshes[size_t(mesh_index)].primitives[size_t(primitive_index)];
        const std::string pointer =
            "/meshes/" + std::to_string(mesh_index) + "/primitives/" + std::to_string(primitive_index);
        const int mode = p.mode < 0 ? TINYGLTF_MODE_TRIANGLES : p.mode;
        if (mode != TINYGLTF_MODE_TRIANGLES && mode != TINYGLTF_MODE_TRIANGLE_STRIP &&
            mode != TINYGLTF_MODE_TRIANGLE_FAN) {
            // Points and lines beside triangles (guides, wireframes): left out, as assimp and Blender's renders do.
            if (!skipped_points_or_lines_) warn("leaves out primitives of points or lines: farmrt renders triangles");
            skipped_points_or_lines_ = true;
            return;
        }
        if (!p.targets.empty()) warn("renders morph targets in their rest pose");
        const auto attribute = [&](const char* name) {
            const auto found = p.attributes.find(name);
            return found == p.attributes.end() ? -1 : found->second;
        };
        if (attribute("POSITION") < 0) fail(pointer + "/attributes", "has no POSITION");
        const std::vector<double> positions = accessors_.read_finite(attribute("POSITION"), 3, "VEC3");
        const size_t vertex_count = positions.size() / 3;
        std::vector<double> normals, uvs;
        if (attribute("NORMAL") >= 0) normals = accessors_.read_finite(attribute("NORMAL"), 3, "VEC3");
        if (attribute("TEXCOORD_0") >= 0) uvs = accessors_.read_finite(attribute("TEXCOORD_0"), 2, "VEC2");
        VertexExtras extras;
        if (attribute("COLOR_0") >= 0) extras.colors = vertex_colors(attribute("COLOR_0"));
        if ((!normals.empty() && normals.size() / 3 != vertex_count) ||
            (!uvs.empty() && uvs.size() / 2 != vertex_count) ||
            (!extras.colors.empty() && extras.colors.size() / 3 != vertex_count)) {
            fail(pointer + "/attributes", "NORMAL, TEXCOORD_0 or COLOR_0 has a count other than POSITION's");
        }
        std::vector<uint32_t> indices;
        if (p.indices >= 0) {
            const tinygltf::Accessor* a =
                size_t(p.indices) < gltf_.accessors.size() ? &gltf_.accessors[size_t(p.indices)] : nullptr;
            if (a && a->componentType != TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE &&
                a->componentType != TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT &&
                a->componentType != TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT) {
                fail("/accessors/" + std::to_string(p.indices), "indices must be unsigned integers");
            }
            const std::vector<double> raw = accessors_.read_accessor(p.indices, 1, "SCALAR");
            indices.reserve(raw.size());
            for (size_t i = 0; i < raw.size(); ++i) {
                if (!(raw[i] >= 0 && raw[i] < double(vertex_count))) {
                    fail("/accessors/" + std::to_string(p.indices),
                         "index " + std::to_string(uint64_t(raw[i])) + " at element " + std::to_string(i) +
                             " is out of range (" + std::to_string(vertex_count) + " vertices)");
                }
                indices.push_back(uint32_t(raw[i]));
            }
        } else {
            for (size_t i = 0; i < vertex_count; ++i) indices.push_back(uint32_t(i));
        }
        uint32_t material = 0;
        if (p.material >= 0) {
            if (size_t(p.material) >= gltf_.materials.size())
                fail(pointer + "/material", "refers to a missing material");
            material = uint32_t(p.material);
        } else {
            material = default_material();
        }
        check_triangle_budget(mode == TINYGLTF_MODE_TRIANGLES ? indices.size() / 3 : indices.size(), pointer);
        stop_if_requested("loading a glTF model");
        // The corners of every triangle, whatever the mode.
        std::vector<uint32_t> corners;
        corners.reserve(mode == TINYGLTF_MODE_TRIANGLES ? indices.size() : 3 * indices.size());
        const auto add = [&](uint32_t a, uint32_t b, uint32_t c) { corners.insert(corners.end(), {a, b, c}); };
        if (mode == TINYGLTF_MODE_TRIANGLES) {
            for (size_t i = 0; i + 2 < indices.size(); i += 3) add(indices[i], indices[i + 1], indices[i + 2]);
        } else if (mode == TINYGLTF_MODE_TRIANGLE_STRIP) {
            for (size_t i = 0; i + 2 < indices.size(); ++i) {
                if (i % 2 == 0)
                    add(indices[i], indices[i + 1], indices[i + 2]);
                else
                    add(indices[i + 1], indices[i], indices[i + 2]);
            }
        } else {
            for (size_t i = 1; i + 1 < indices.size(); ++i) add(indices[0], indices[i], indices[i + 1]);
        }
        // Tangents (one per corner) only where the material has a normal map
        // to use them: the file's, else MikkTSpace's, as glTF asks of a renderer.
        const bool normal_mapped = p.material >= 0 && gltf_.materials[size_t(p.material)].normalTexture.index >= 0;
        if (normal_mapped && attribute("TANGENT") >= 0) {
            const std::vector<double> per_vertex = accessors_.read_finite(attribute("TANGENT"), 4, "VEC4");
            if (per_vertex.size() / 4 != vertex_count)
                fail(pointer + "/attributes", "TANGENT has a count other than POSITION's");
            extras.tangents.reserve(4 * corners.size());
            for (uint32_t v : corners) {
                extras.tangents.insert(extras.tangents.end(), per_vertex.begin() + 4 * ptrdiff_t(v),
                                       per_vertex.begin() + 4 * ptrdiff_t(v) + 4);
            }
        } else if (normal_mapped && !uvs.empty() && !normals.empty()) {
            std::vector<double> flipped = uvs;  // in farmrt's (u, v): v up
            for (size_t i = 1; i < flipped.size(); i += 2) flipped[i] = 1.0 - flipped[i];
            extras.tangents = tangent_space(positions, normals, flipped, corners);
        } else if (normal_mapped) {
            warn("renders the normal map of " + pointer + " flat: it has no NORMAL or no TEXCOORD_0");
        }
        for (size_t i = 0; i < corners.size(); i += 3) {
            add_triangle(positions, normals, uvs, extras, {corners[i], corners[i + 1], corners[i + 2]}, i, material,
                         mesh);
        }
    }

    // COLOR_0 as linear RGB (alpha dropped): VEC3 or VEC4, floats or
    // normalised integers.
    std::vector<double> vertex_colors(int accessor) {
        const std::string at = "/accessors/" + std::to_string(accessor);
        if (size_t(accessor) >= gltf_.accessors.size()) fail(at, "does not exist");
        const bool rgba = gltf_.accessors[size_t(accessor)].type == TINYGLTF_TYPE_VEC4;
        const std::vector<double> read = accessors_.read_finite(accessor, rgba ? 4 : 3, rgba ? "VEC4" : "VEC3");
        std::vector<double> colors;
        colors.reserve(read.size());
        for (size_t i = 0; i < read.size(); ++i) {
            if (rgba && i % 4 == 3) continue;
            if (!(read[i] >= 0 && read[i] <= 1)) fail(at, "a COLOR_0 value lies outside [0, 1]");
            colors.push_back(read[i]);
        }
        return colors;
    }

    // Vertex data beyond positions, normals and (u, v), empty where absent:
    // colours (3 per vertex) and tangents (4 per corner: xyz and handedness).
    struct VertexExtras {
        std::vector<double> colors, tangents;
    };

    static void add_triangle(const std::vector<double>& positions, const std::vector<double>& normals,
                             const std::vector<double>& uvs, const VertexExtras& extras, const uint32_t (&corner)[3],
                             size_t first_corner, uint32_t material, ModelMesh& mesh) {
        Triangle t{};
        Vec3* vertices[3] = {&t.vertex0, &t.vertex1, &t.vertex2};
        Vec3* shading[3] = {&t.normal0, &t.normal1, &t.normal2};
        for (int c = 0; c < 3; ++c) {
            const size_t v = corner[c];
            *vertices[c] = Vec3(float(positions[3 * v]), float(positions[3 * v + 1]), float(positions[3 * v + 2]));
        }
        if (!(length_squared(cross(t.vertex1 - t.vertex0, t.vertex2 - t.vertex0)) > 0)) return;  // degenerate
        bool smooth = !normals.empty();
        for (int c = 0; smooth && c < 3; ++c) {
            const size_t v = corner[c];
            const Vec3 n{float(normals[3 * v]), float(normals[3 * v + 1]), float(normals[3 * v + 2])};
            if (!(length_squared(n) > 0))
                smooth = false;
            else
                *shading[c] = unit_vector(n);
        }
        if (!smooth) t.normal0 = t.normal1 = t.normal2 = Vec3(0.0f);
        for (int c = 0; c < 3; ++c) {
            const size_t v = corner[c];
            // glTF's v runs down from the top of the image, farmrt's up from the bottom.
            t.uv[2 * c] = uvs.empty() ? kDefaultTriangleUvs[2 * c] : float(uvs[2 * v]);
            t.uv[2 * c + 1] = uvs.empty() ? kDefaultTriangleUvs[2 * c + 1] : float(1.0 - uvs[2 * v + 1]);
        }
        t.material = material;
        if (!extras.colors.empty() || !extras.tangents.empty()) {
            TriangleAttributes a;
            for (int c = 0; c < 3; ++c) {
                const size_t v = corner[c];
                if (!extras.colors.empty()) {
                    a.color[c] = Color(float(extras.colors[3 * v]), float(extras.colors[3 * v + 1]),
                                       float(extras.colors[3 * v + 2]));
                }
                if (!extras.tangents.empty()) {
                    // Unit in double, so that a huge finite one cannot overflow in shading; a zero one stays zero.
                    const double* tangent = &extras.tangents[4 * (first_corner + size_t(c))];
                    const double x = tangent[0], y = tangent[1], z = tangent[2];
                    const double length = std::sqrt(x * x + y * y + z * z);
                    if (length > 0 && std::isfinite(length))
                        a.tangent[c] = Vec3(float(x / length), float(y / length), float(z / length));
                }
            }
            if (!extras.tangents.empty()) a.handedness = extras.tangents[4 * first_corner + 3] < 0 ? -1.0f : 1.0f;
            t.attributes = uint32_t(mesh.attributes.size());
            mesh.attributes.push_back(a);
        }
        mesh.triangles.push_back(t);
    }

    void check_triangle_budget(size_t triangles, const std::string& pointer) {
        triangles_made_ += triangles;
        if (triangles_made_ > triangle_budget_) {
            fail(pointer, "makes more than " + std::to_string(triangle_budget_) +
                              " triangles, more than the file's buffers hold (accessors shared by many primitives?)");
        }
    }

    uint32_t mesh_for(int gltf_mesh) {
        if (mesh_of_gltf_mesh_[size_t(gltf_mesh)] < 0) {
            ModelMesh mesh;
            const tinygltf::Mesh& m = gltf_.meshes[size_t(gltf_mesh)];
            for (size_t p = 0; p < m.primitives.size(); ++p) read_primitive(gltf_mesh, int(p), mesh);
            model_.meshes.push_back(std::move(mesh));
            mesh_of_gltf_mesh_[size_t(gltf_mesh)] = int(model_.meshes.size() - 1);
        }
        return uint32_t(mesh_of_gltf_mesh_[size_t(gltf_mesh)]);
    }

    // ---- nodes ---------------------------------------------------------------------------------------

    Transform local_transform(const tinygltf::Node& node, const std::string& pointer) const {
        Transform t;
        if (node.matrix.size() == 16) {
            for (int row = 0; row < 3; ++row) {
                for (int column = 0; column < 4; ++column) t.m[row][column] = node.matrix[size_t(column * 4 + row)];
            }
        } else {
            double s[3] = {1, 1, 1}, q[4] = {0, 0, 0, 1}, d[3] = {0, 0, 0};
            for (size_t i = 0; i < 3 && i < node.scale.size(); ++i) s[i] = node.scale[i];
            for (size_t i = 0; i < 4 && i < node.rotation.size(); ++i) q[i] = node.rotation[i];
            for (size_t i = 0; i < 3 && i < node.translation.size(); ++i) d[i] = node.translation[i];
            const double x = q[0], y = q[1], z = q[2], w = q[3];
            const double r[3][3] = {{1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)},
                                    {2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)},
                                    {2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)}};
            for (int row = 0; row < 3; ++row) {
                for (int column = 0; column < 3; ++column) t.m[row][column] = r[row][column] * s[column];
                t.m[row][3] = d[row];
            }
        }
        for (const auto& row : t.m) {
            for (double v : row) {
                if (!std::isfinite(v)) fail(pointer, "has a transform that is not finite");
            }
        }
        return t;
    }

    void read_nodes() {
        std::vector<int> roots;
        if (!gltf_.scenes.empty()) {
            const int scene = gltf_.defaultScene >= 0 ? gltf_.defaultScene : 0;
            if (size_t(scene) >= gltf_.scenes.size()) fail("/scene", "refers to a missing scene");
            roots = gltf_.scenes[size_t(scene)].nodes;
        } else {
            std::vector<bool> child(gltf_.nodes.size(), false);
            for (const tinygltf::Node& node : gltf_.nodes) {
                for (int c : node.children) {
                    if (c >= 0 && size_t(c) < child.size()) child[size_t(c)] = true;
                }
            }
            for (size_t i = 0; i < gltf_.nodes.size(); ++i) {
                if (!child[i]) roots.push_back(int(i));
            }
            if (roots.empty() && !gltf_.nodes.empty())
                fail("/nodes", "every node is a child: the node hierarchy has a cycle");
        }
        // The node instances the graph expands to, counted once per node
        // before the walk (nodes may share children: paths, not nodes, multiply).
        std::vector<int> state(gltf_.nodes.size(), 0);  // 0 unseen, 1 on the path, 2 counted
        std::vector<uint64_t> placements(gltf_.nodes.size(), 0);
        uint64_t total = 0;
        for (int root : roots)
            total = std::min(kMaxPlacements + 1, total + count_placements(root, state, placements, 0));
        if (total > kMaxPlacements) {
            fail("/nodes", "the node graph expands to more than " + std::to_string(kMaxPlacements) +
                               " node instances (nodes that share children multiply)");
        }
        std::vector<bool> on_path(gltf_.nodes.size(), false);
        for (int root : roots) visit(root, Transform::identity(), on_path, 0);
    }

    // Node instances under node `index` (itself included), saturated above
    // kMaxPlacements; cycles, missing nodes and depth are reported here.
    uint64_t count_placements(int index, std::vector<int>& state, std::vector<uint64_t>& placements, int depth) {
        const std::string pointer = "/nodes/" + std::to_string(index);
        if (index < 0 || size_t(index) >= gltf_.nodes.size()) fail(pointer, "does not exist");
        if (state[size_t(index)] == 1) fail(pointer, "is its own ancestor (the node hierarchy has a cycle)");
        if (state[size_t(index)] == 2) return placements[size_t(index)];
        if (depth > 1000) fail(pointer, "lies more than 1000 levels deep");
        state[size_t(index)] = 1;
        const tinygltf::Node& node = gltf_.nodes[size_t(index)];
        uint64_t count = 1;
        for (int c : node.children)
            count = std::min(kMaxPlacements + 1, count + count_placements(c, state, placements, depth + 1));
        state[size_t(index)] = 2;
        placements[size_t(index)] = count;
        return count;
    }

    void visit(int index, const Transform& parent, std::vector<bool>& on_path, int depth) {
        const std::string pointer = "/nodes/" + std::to_string(index);
        if (index < 0 || size_t(index) >= gltf_.nodes.size()) fail(pointer, "does not exist");
        if (on_path[size_t(index)]) fail(pointer, "is its own ancestor (the node hierarchy has a cycle)");
        if (depth > 1000) fail(pointer, "lies more than 1000 levels deep");
        on_path[size_t(index)] = true;
        if (++nodes_visited_ % 4096 == 0) stop_if_requested("loading a glTF model");
        const tinygltf::Node& node = gltf_.nodes[size_t(index)];
        const Transform world = local_transform(node, pointer).then(parent);
        if (node.mesh >= 0) {
            if (size_t(node.mesh) >= gltf_.meshes.size()) fail(pointer + "/mesh", "refers to a missing mesh");
            if (node.skin >= 0) warn("renders skinned meshes in their bind pose");
            model_.placements.push_back(ModelPlacement{mesh_for(node.mesh), world});
        }
        if (node.camera >= 0 && !model_.camera) read_camera(node.camera, world);
        const auto lights = node.extensions.find("KHR_lights_punctual");
        if (lights != node.extensions.end() && lights->second.IsObject() && lights->second.Has("light")) {
            const double light = gltf_number(lights->second, "light", -1);
            read_light(light >= 0 && light < 2147483647.0 ? int(light) : -1, world, pointer);
        }
        for (int c : node.children) visit(c, world, on_path, depth + 1);
        on_path[size_t(index)] = false;
    }

    void read_camera(int index, const Transform& world) {
        if (size_t(index) >= gltf_.cameras.size()) fail("/cameras/" + std::to_string(index), "does not exist");
        const tinygltf::Camera& camera = gltf_.cameras[size_t(index)];
        const std::string pointer = "/cameras/" + std::to_string(index);
        ModelCamera result;
        if (camera.type == "orthographic") {
            // xmag and ymag: half the view's width and height.
            const double xmag = camera.orthographic.xmag, ymag = camera.orthographic.ymag;
            if (!(ymag > 0 && std::isfinite(ymag))) fail(pointer + "/orthographic/ymag", "must be positive");
            if (!(xmag > 0 && std::isfinite(xmag))) fail(pointer + "/orthographic/xmag", "must be positive");
            result.settings.projection = Projection::Orthographic;
            result.settings.ortho_height = 2 * ymag;
            result.aspect_ratio = xmag / ymag;
        } else {
            const double yfov = camera.perspective.yfov;
            if (!(yfov > 0 && yfov < M_PI)) fail(pointer + "/perspective/yfov", "must lie in (0, pi)");
            result.settings.vfov = yfov * 180.0 / M_PI;
            result.aspect_ratio = camera.perspective.aspectRatio > 0 ? camera.perspective.aspectRatio : 0.0;
        }
        result.settings.lookfrom = world.point(Vec3(0, 0, 0));
        result.settings.lookat = world.point(Vec3(0, 0, -1));
        result.settings.vup = world.vector(Vec3(0, 1, 0));
        if (!(length_squared(result.settings.lookat - result.settings.lookfrom) > 0) ||
            !(length_squared(cross(result.settings.lookat - result.settings.lookfrom, result.settings.vup)) > 0)) {
            warn("ignores a camera whose node transform is degenerate");
            return;
        }
        model_.camera = result;
    }

    void read_light(int index, const Transform& world, const std::string& node_pointer) {
        if (index < 0 || size_t(index) >= gltf_.lights.size())
            fail(node_pointer + "/extensions/KHR_lights_punctual", "refers to a missing light");
        const tinygltf::Light& l = gltf_.lights[size_t(index)];
        const std::string pointer = "/extensions/KHR_lights_punctual/lights/" + std::to_string(index);
        Color color(1.0f);
        for (int c = 0; c < 3 && size_t(c) < l.color.size(); ++c) color[c] = float(l.color[size_t(c)]);
        if (!(l.intensity >= 0 && std::isfinite(l.intensity)) || !(color.x >= 0 && color.y >= 0 && color.z >= 0)) {
            fail(pointer, "intensity and color must be finite and not negative");
        }
        Light light;
        light.intensity = color * float(l.intensity / kLumensPerWatt);
        light.position = world.point(Vec3(0, 0, 0));
        const Vec3 direction = world.vector(Vec3(0, 0, -1));
        if (!(length_squared(direction) > 0)) return;
        light.direction = unit_vector(direction);
        if (l.type == "point") {
            light.type = LightType::Point;
        } else if (l.type == "spot") {
            light.type = LightType::Spot;
            const double inner = l.spot.innerConeAngle, outer = l.spot.outerConeAngle;
            if (!(inner >= 0 && inner < outer && outer <= M_PI / 2))
                fail(pointer + "/spot", "needs 0 <= innerConeAngle < outerConeAngle <= pi/2");
            light.cos_inner = float(std::cos(inner));
            light.cos_outer = float(std::cos(outer));
        } else if (l.type == "directional") {
            light.type = LightType::Directional;
        } else {
            fail(pointer + "/type", "unknown light type '" + l.type + "'");
        }
        model_.lights.push_back(light);
    }

    const tinygltf::Model& gltf_;
    const std::string& file_;
    ModelData& model_;
    GltfAccessorReader accessors_;
    std::vector<int> mesh_of_gltf_mesh_;
    int default_material_ = -1;
    bool skipped_points_or_lines_ = false;
    uint64_t triangle_budget_ = kMinTriangleBudget, triangles_made_ = 0, nodes_visited_ = 0;
    std::set<std::string> warned_;
};

}  // namespace

ModelData load_gltf_model(const std::string& path, const std::string& display_path) {
    const std::string bytes = read_regular_file(path, display_path, "glTF file");
    if (bytes.size() > 0xFFFFFFFFu) throw InputError(display_path + ": larger than glTF's 4 GiB limit");
    tinygltf::TinyGLTF loader;
    loader.SetFsCallbacks(
        tinygltf::FsCallbacks{&file_exists, &expand_path, &read_whole_file, &write_whole_file, nullptr});
    tinygltf::Model gltf;
    std::string error, warning;
    const std::filesystem::path parent = std::filesystem::path(path).parent_path();
    const std::string base_directory = parent.empty() ? "." : parent.string();
    const bool binary = bytes.size() >= 4 && bytes.compare(0, 4, "glTF") == 0;
    const std::string_view json = gltf_json(bytes, binary);
    check_json_depth(json.data(), json.size(), display_path);
    check_gltf_kind(bytes, binary, json, display_path);
    bool loaded = false;
    try {
        loaded = binary ? loader.LoadBinaryFromMemory(&gltf, &error, &warning,
                                                      reinterpret_cast<const unsigned char*>(bytes.data()),
                                                      unsigned(bytes.size()), base_directory)
                        : loader.LoadASCIIFromString(&gltf, &error, &warning, bytes.data(), unsigned(bytes.size()),
                                                     base_directory);
    } catch (const std::exception& e) {
        throw InputError(display_path + ": malformed glTF: " + joined_lines(e.what()));
    }
    if (!loaded) {
        // tinygltf names the Draco-compressed accessors it cannot read (they
        // have no buffer view); the cause is the compression.
        if (json.find("KHR_draco_mesh_compression") != std::string_view::npos &&
            error.find("accessor") != std::string::npos) {
            throw InputError(display_path + ": /extensionsRequired: " + kDracoAdvice);
        }
        throw InputError(display_path +
                         ": malformed glTF: " + joined_lines(error.empty() ? "tinygltf could not read it" : error));
    }
    ModelData model;
    GltfReader(gltf, display_path, model).read();
    return model;
}

}  // namespace farmrt
