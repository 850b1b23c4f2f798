// PLY meshes (the format of scanned models): ASCII and binary of either byte
// order; vertex positions, normals and texture coordinates; faces as lists
// of vertex indices, fanned into triangles; other elements skipped. No
// packaged library reads PLY with checks a hostile file needs, so this one
// checks everything against the file before it allocates or reads: a header
// whose counts promise more data than the file holds is refused up front.
#include <array>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <sstream>

#include "core/errors.h"
#include "io/file_reader.h"
#include "io/model_formats.h"
#include "io/texture_loader.h"

namespace farmrt {
namespace {

enum class Format { Ascii, BinaryLittle, BinaryBig };

struct Property {
    std::string name;
    int size = 0;  // bytes of the value (binary), 0 for an unknown type
    bool is_float = false;
    bool is_signed = false;
    bool list = false;
    int count_size = 0;  // list: bytes of its count
    bool count_signed = false;
};

struct Element {
    std::string name;
    uint64_t count = 0;
    std::vector<Property> properties;
};

bool scalar_type(const std::string& type, int& size, bool& is_float, bool& is_signed) {
    static const struct {
        const char* name;
        int size;
        bool is_float, is_signed;
    } kTypes[] = {
        {"char", 1, false, true},  {"int8", 1, false, true},   {"uchar", 1, false, false},  {"uint8", 1, false, false},
        {"short", 2, false, true}, {"int16", 2, false, true},  {"ushort", 2, false, false}, {"uint16", 2, false, false},
        {"int", 4, false, true},   {"int32", 4, false, true},  {"uint", 4, false, false},   {"uint32", 4, false, false},
        {"float", 4, true, true},  {"float32", 4, true, true}, {"double", 8, true, true},   {"float64", 8, true, true}};
    for (const auto& t : kTypes) {
        if (type == t.name) {
            size = t.size;
            is_float = t.is_float;
            is_signed = t.is_signed;
            return true;
        }
    }
    return false;
}

// Which value is being read, formatted only for an error message.
struct Where {
    const std::string& element;
    uint64_t index;
    const char* part = "";  // "", " count"
    std::string text() const { return element + " " + std::to_string(index) + part; }
};

class PlyReader {
public:
    PlyReader(const std::string& bytes, const std::string& display_path) : bytes_(bytes), file_(display_path) {}

    ModelData read() {
        read_header();
        ModelData model;
        Material grey = default_model_material(model, Color(0.8f), 0.0f, 1.0f);
        grey.ior = 1.0f;  // a scan's surface: diffuse
        model.materials.push_back(grey);
        ModelMesh mesh;
        for (const Element& element : elements_) {
            if (element.name == "vertex")
                read_vertices(element);
            else if (element.name == "face")
                read_faces(element, mesh);
            else
                skip(element);
        }
        if (mesh.triangles.empty()) fail("no faces with area (a point cloud is not a surface farmrt renders)");
        model.meshes.push_back(std::move(mesh));
        model.placements.push_back(ModelPlacement{0, Transform::identity()});
        return model;
    }

private:
    [[noreturn]] void fail(const std::string& problem) const { throw InputError(file_ + ": " + problem); }

    std::string header_line(size_t& line_number) {
        const size_t end = bytes_.find('\n', position_);
        if (end == std::string::npos) fail("the header has no end_header line");
        std::string line = bytes_.substr(position_, end - position_);
        if (!line.empty() && line.back() == '\r') line.pop_back();
        position_ = end + 1;
        ++line_number;
        return line;
    }

    void read_header() {
        size_t line_number = 0;
        if (header_line(line_number) != "ply") fail("not a PLY file (it must start with 'ply')");
        bool have_format = false;
        for (;;) {
            const std::string line = header_line(line_number);
            std::istringstream words(line);
            std::string keyword;
            words >> keyword;
            const std::string where = "header line " + std::to_string(line_number) + ": ";
            if (keyword == "end_header") break;
            if (keyword.empty() || keyword == "comment" || keyword == "obj_info") continue;
            if (keyword == "format") {
                std::string format, version;
                words >> format >> version;
                if (format == "ascii")
                    format_ = Format::Ascii;
                else if (format == "binary_little_endian")
                    format_ = Format::BinaryLittle;
                else if (format == "binary_big_endian")
                    format_ = Format::BinaryBig;
                else
                    fail(where + "unknown format '" + format + "'");
                have_format = true;
            } else if (keyword == "element") {
                Element element;
                std::string count;
                words >> element.name >> count;
                char* end = nullptr;
                errno = 0;
                element.count = std::strtoull(count.c_str(), &end, 10);
                if (count.empty() || *end != '\0' || count[0] == '-' || errno == ERANGE ||
                    element.count > (uint64_t(1) << 32)) {
                    fail(where + "element count '" + count + "' is not a count below 2^32");
                }
                elements_.push_back(element);
            } else if (keyword == "property") {
                if (elements_.empty()) fail(where + "a property before any element");
                Property p;
                std::string type;
                words >> type;
                if (type == "list") {
                    std::string count_type, item_type;
                    words >> count_type >> item_type >> p.name;
                    bool count_float = false;
                    if (!scalar_type(count_type, p.count_size, count_float, p.count_signed) || count_float) {
                        fail(where + "list count type '" + count_type + "' is not an integer type");
                    }
                    if (!scalar_type(item_type, p.size, p.is_float, p.is_signed))
                        fail(where + "unknown type '" + item_type + "'");
                    p.list = true;
                } else {
                    words >> p.name;
                    if (!scalar_type(type, p.size, p.is_float, p.is_signed))
                        fail(where + "unknown type '" + type + "'");
                }
                elements_.back().properties.push_back(p);
            }
            // Any other line is taken as a comment, as other readers do (some
            // exporters write a free-text line there).
        }
        if (!have_format) fail("the header has no format line");
        // The least each element needs, against what the file holds: a lying
        // header is refused before anything is allocated for it.
        unsigned long long least = 0;
        for (const Element& e : elements_) {
            unsigned long long per = 0;
            for (const Property& p : e.properties) per += p.list ? p.count_size : p.size;
            if (format_ == Format::Ascii) per = 2 * e.properties.size();  // a digit and a separator at least
            if (per != 0 && e.count > (bytes_.size() - position_) / per + 1) {
                fail("the header promises " + std::to_string(e.count) + " " + e.name +
                     " elements, more than the file's " + std::to_string(bytes_.size() - position_) +
                     " bytes of data can hold");
            }
            least += per * e.count;
        }
        if (format_ != Format::Ascii && least > bytes_.size() - position_) {
            fail("the header promises at least " + std::to_string(least) + " bytes of data; the file has " +
                 std::to_string(bytes_.size() - position_));
        }
    }

    // ---- values --------------------------------------------------------------------------

    double binary_value(int size, bool is_float, bool is_signed, const Where& where) {
        if (bytes_.size() - position_ < size_t(size))
            fail("the data ends inside " + where.text() + " (truncated file)");
        unsigned char raw[8];
        std::memcpy(raw, bytes_.data() + position_, size_t(size));
        position_ += size_t(size);
        if (format_ == Format::BinaryBig) {
            for (int i = 0; i < size / 2; ++i) std::swap(raw[i], raw[size - 1 - i]);
        }
        if (is_float) {
            if (size == 4) {
                float f;
                std::memcpy(&f, raw, 4);
                return f;
            }
            double d;
            std::memcpy(&d, raw, 8);
            return d;
        }
        uint64_t bits = 0;
        for (int i = size - 1; i >= 0; --i) bits = (bits << 8) | raw[i];
        if (is_signed && (raw[size - 1] & 0x80)) return double(int64_t(bits | (~uint64_t(0) << (8 * size))));
        return double(bits);
    }

    double ascii_value(const Where& where) {
        while (position_ < bytes_.size() && std::isspace(static_cast<unsigned char>(bytes_[position_]))) ++position_;
        if (position_ >= bytes_.size()) fail("the data ends inside " + where.text() + " (truncated file)");
        const char* start = bytes_.c_str() + position_;
        char* end = nullptr;
        const double value = std::strtod(start, &end);
        if (end == start) fail(where.text() + ": '" + bytes_.substr(position_, 16) + "' is not a number");
        position_ += size_t(end - start);
        return value;
    }

    double value(int size, bool is_float, bool is_signed, const Where& where) {
        return format_ == Format::Ascii ? ascii_value(where) : binary_value(size, is_float, is_signed, where);
    }

    uint64_t list_count(const Property& p, const Where& where) {
        const double count = value(p.count_size, false, p.count_signed, Where{where.element, where.index, " count"});
        if (!(count >= 0 && count <= 1e6) || count != std::floor(count)) {
            fail(where.text() + ": list count " + std::to_string(count) + " is out of range");
        }
        return uint64_t(count);
    }

    void skip(const Element& e) {
        if (e.properties.empty()) return;  // nothing to read, however many
        for (uint64_t i = 0; i < e.count; ++i) {
            for (const Property& p : e.properties) {
                const Where what{e.name, i};
                const uint64_t n = p.list ? list_count(p, what) : 1;
                for (uint64_t k = 0; k < n; ++k) value(p.size, p.is_float, p.is_signed, what);
            }
        }
    }

    void read_vertices(const Element& e) {
        int x = -1, y = -1, z = -1, nx = -1, ny = -1, nz = -1, u = -1, v = -1, red = -1, green = -1, blue = -1;
        for (size_t i = 0; i < e.properties.size(); ++i) {
            const std::string& n = e.properties[i].name;
            int* slot = n == "x"                                                         ? &x
                        : n == "y"                                                       ? &y
                        : n == "z"                                                       ? &z
                        : n == "nx"                                                      ? &nx
                        : n == "ny"                                                      ? &ny
                        : n == "nz"                                                      ? &nz
                        : (n == "u" || n == "s" || n == "texture_u" || n == "texture_s") ? &u
                        : (n == "v" || n == "t" || n == "texture_v" || n == "texture_t") ? &v
                        : (n == "red" || n == "diffuse_red" || n == "r")                 ? &red
                        : (n == "green" || n == "diffuse_green" || n == "g")             ? &green
                        : (n == "blue" || n == "diffuse_blue" || n == "b")               ? &blue
                                                                                         : nullptr;
            if (slot && !e.properties[i].list) *slot = int(i);
        }
        if (x < 0 || y < 0 || z < 0) fail("the vertex element has no x, y and z");
        positions_.reserve(size_t(e.count));
        std::vector<double> values(e.properties.size());
        for (uint64_t i = 0; i < e.count; ++i) {
            const Where what{e.name, i};
            for (size_t k = 0; k < e.properties.size(); ++k) {
                const Property& p = e.properties[k];
                if (p.list) {
                    const uint64_t n = list_count(p, what);
                    for (uint64_t j = 0; j < n; ++j) value(p.size, p.is_float, p.is_signed, what);
                    continue;
                }
                values[k] = value(p.size, p.is_float, p.is_signed, what);
            }
            for (int k : {x, y, z, nx, ny, nz, u, v, red, green, blue}) {
                if (k >= 0 && (!std::isfinite(values[size_t(k)]) || std::fabs(values[size_t(k)]) > 1e30)) {
                    fail(what.text() + ": " + e.properties[size_t(k)].name + " is not a finite number");
                }
            }
            positions_.push_back(Vec3(float(values[size_t(x)]), float(values[size_t(y)]), float(values[size_t(z)])));
            if (nx >= 0 && ny >= 0 && nz >= 0) {
                normals_.push_back(
                    Vec3(float(values[size_t(nx)]), float(values[size_t(ny)]), float(values[size_t(nz)])));
            }
            if (u >= 0 && v >= 0) uvs_.push_back({float(values[size_t(u)]), float(values[size_t(v)])});
            if (red >= 0 && green >= 0 && blue >= 0) {
                Color color;
                const int channels[3] = {red, green, blue};
                for (int c = 0; c < 3; ++c)
                    color[c] =
                        vertex_color_channel(e.properties[size_t(channels[c])], values[size_t(channels[c])], what);
                colors_.push_back(color);
            }
        }
    }

    void read_faces(const Element& e, ModelMesh& mesh) {
        int indices = -1;
        for (size_t i = 0; i < e.properties.size(); ++i) {
            const Property& p = e.properties[i];
            if (p.list && (p.name == "vertex_indices" || p.name == "vertex_index")) indices = int(i);
        }
        if (indices < 0) fail("the face element has no vertex_indices list");
        if (e.properties[size_t(indices)].is_float) fail("vertex_indices must be integers");
        std::vector<uint64_t> corners;
        // At least one triangle per face; e.count is bounded by the file's size (read_header).
        mesh.triangles.reserve(mesh.triangles.size() + size_t(e.count));
        for (uint64_t i = 0; i < e.count; ++i) {
            const Where what{e.name, i};
            for (size_t k = 0; k < e.properties.size(); ++k) {
                const Property& p = e.properties[k];
                const uint64_t n = p.list ? list_count(p, what) : 1;
                corners.clear();
                for (uint64_t j = 0; j < n; ++j) {
                    const double index = value(p.size, p.is_float, p.is_signed, what);
                    if (int(k) != indices) continue;
                    if (!(index >= 0 && index < double(positions_.size())) || index != std::floor(index)) {
                        char text[32];
                        std::snprintf(text, sizeof text, "%.17g", index);  // any double, never converted to an integer
                        fail(what.text() + ": vertex index " + text + " is out of range (" +
                             std::to_string(positions_.size()) + " vertices)");
                    }
                    corners.push_back(uint64_t(index));
                }
                if (int(k) != indices) continue;
                if (n < 3) fail(what.text() + ": a face needs at least 3 vertices, has " + std::to_string(n));
                for (size_t j = 1; j + 1 < corners.size(); ++j)
                    add_triangle(corners[0], corners[j], corners[j + 1], mesh);
            }
        }
    }

    void add_triangle(uint64_t a, uint64_t b, uint64_t c, ModelMesh& mesh) const {
        Triangle t{};
        t.vertex0 = positions_[a];
        t.vertex1 = positions_[b];
        t.vertex2 = positions_[c];
        if (!(length_squared(cross(t.vertex1 - t.vertex0, t.vertex2 - t.vertex0)) > 0)) return;
        if (normals_.size() == positions_.size()) {
            const Vec3 n[3] = {normals_[a], normals_[b], normals_[c]};
            if (length_squared(n[0]) > 0 && length_squared(n[1]) > 0 && length_squared(n[2]) > 0) {
                t.normal0 = unit_vector(n[0]);
                t.normal1 = unit_vector(n[1]);
                t.normal2 = unit_vector(n[2]);
            }
        }
        const uint64_t corner[3] = {a, b, c};
        for (int k = 0; k < 3; ++k) {
            const bool textured = uvs_.size() == positions_.size();
            t.uv[2 * k] = textured ? uvs_[corner[k]][0] : kDefaultTriangleUvs[2 * k];
            t.uv[2 * k + 1] = textured ? uvs_[corner[k]][1] : kDefaultTriangleUvs[2 * k + 1];
        }
        t.material = 0;
        if (colors_.size() == positions_.size() && !colors_.empty()) {
            TriangleAttributes a;
            for (int k = 0; k < 3; ++k) a.color[k] = colors_[corner[k]];
            t.attributes = uint32_t(mesh.attributes.size());
            mesh.attributes.push_back(a);
        }
        mesh.triangles.push_back(t);
    }

    // A vertex colour channel in linear RGB: integers are 8- or 16-bit
    // display colours (sRGB-encoded, as Blender and MeshLab write them),
    // floats linear values in [0, 1].
    float vertex_color_channel(const Property& p, double value, const Where& what) const {
        if (p.is_float) {
            if (!(value >= 0 && value <= 1)) fail(what.text() + ": " + p.name + " lies outside [0, 1]");
            return float(value);
        }
        const double largest = p.size == 1 ? 255.0 : p.size == 2 ? 65535.0 : 4294967295.0;
        if (!(value >= 0 && value <= largest)) fail(what.text() + ": " + p.name + " is negative");
        return srgb_to_linear(float(value / largest));
    }

    const std::string& bytes_;
    const std::string& file_;
    size_t position_ = 0;
    Format format_ = Format::Ascii;
    std::vector<Element> elements_;
    std::vector<Vec3> positions_, normals_;
    std::vector<std::array<float, 2>> uvs_;
    std::vector<Color> colors_;
};

}  // namespace

ModelData load_ply_model(const std::string& path, const std::string& display_path) {
    const std::string bytes = read_regular_file(path, display_path, "PLY file");
    return PlyReader(bytes, display_path).read();
}

}  // namespace farmrt
