#include "mpi/job_message.h"

#include <cstring>
#include <type_traits>

#include "core/errors.h"
#include "core/version.h"

namespace farmrt {
namespace {

// Tripwires: a member added to Scene or RenderSettings must be added to the
// message below too, or ranks would render a different scene than rank 0.
struct SceneLayout {
    std::vector<Sphere> spheres;
    std::vector<Quad> quads;
    std::vector<Triangle> triangles;
    std::vector<TriangleAttributes> triangle_attributes;
    std::vector<Material> materials;
    std::vector<Texture> textures;
    std::vector<float> texture_pixels;
    Background background;
    std::vector<Light> punctual_lights;
    std::vector<PrimitiveRef> instance_geometry_refs;
    std::vector<uint32_t> instance_geometry_begin;
    std::vector<Scene::InstancePlacement> instance_placements;
    std::vector<BvhNode> nodes;
    std::vector<PrimitiveRef> primitive_refs;
    std::vector<Instance> instances;
    std::vector<BvhNode> instance_nodes;
    std::vector<PrimitiveRef> instance_primitives;
    // Built by each rank (build_acceleration), never sent:
    std::vector<Light> lights;
    std::vector<AliasEntry> light_alias;
    std::vector<float> environment_distribution;
    float inverse_light_power, environment_power, scene_radius, direct_clamp, indirect_clamp;
    std::vector<LightTreeNode> light_tree;
    std::vector<LightTrail> light_trails;
    std::vector<EmitterKey> emitter_keys;
    std::vector<InfiniteLight> infinite_lights;
    float tree_probability;
    bool use_light_tree, transparent_background;
};
static_assert(sizeof(Scene) == sizeof(SceneLayout), "Scene changed: update mpi/job_message.cpp");

struct SettingsLayout {
    uint32_t width, height, film_width, film_height, region_x, region_y;
    std::string output;
    Encoding encoding;
    PixelDataType data_type;
    float exposure;
    ViewTransform view_transform;
    bool alpha;
    uint32_t spp;
    int max_depth;
    Integrator integrator;
    uint64_t seed;
    SamplerType sampler;
    FilterType filter;
    float filter_width, clamp_direct, clamp_indirect;
    bool light_tree;
    float noise_threshold;
    uint32_t min_spp;
    std::vector<Aov> aovs;
    CameraSettings camera;
    std::string scene_file, scene_directory;
};
static_assert(sizeof(RenderSettings) == sizeof(SettingsLayout), "RenderSettings changed: update mpi/job_message.cpp");

constexpr uint32_t kMagic = 0x666d7274;  // "fmrt"

class Writer {
public:
    template <typename T>
    void value(const T& v) {
        static_assert(std::is_trivially_copyable_v<T>);
        const char* p = reinterpret_cast<const char*>(&v);
        bytes_.insert(bytes_.end(), p, p + sizeof(T));
    }
    void text(const std::string& s) {
        value(uint64_t(s.size()));
        bytes_.insert(bytes_.end(), s.begin(), s.end());
    }
    template <typename T>
    void array(const std::vector<T>& items) {
        static_assert(std::is_trivially_copyable_v<T>);
        value(uint64_t(items.size()));
        const char* p = reinterpret_cast<const char*>(items.data());
        bytes_.insert(bytes_.end(), p, p + items.size() * sizeof(T));
    }
    std::vector<char> take() { return std::move(bytes_); }

private:
    std::vector<char> bytes_;
};

class Reader {
public:
    explicit Reader(const std::vector<char>& bytes) : bytes_(bytes) {}
    template <typename T>
    void value(T& v) {
        static_assert(std::is_trivially_copyable_v<T>);
        std::memcpy(&v, take(sizeof(T)), sizeof(T));
    }
    void text(std::string& s) {
        uint64_t size = 0;
        value(size);
        const char* p = take(size);
        s.assign(p, p + size);
    }
    template <typename T>
    void array(std::vector<T>& items) {
        uint64_t count = 0;
        value(count);
        if (count > (bytes_.size() - position_) / sizeof(T)) fail();
        items.resize(size_t(count));
        // An empty vector's data() may be null, which memcpy must not get.
        if (count > 0) std::memcpy(items.data(), take(size_t(count) * sizeof(T)), size_t(count) * sizeof(T));
    }
    bool at_end() const { return position_ == bytes_.size(); }

private:
    [[noreturn]] static void fail() { throw RenderError("the job message from rank 0 is truncated or corrupt"); }
    const char* take(uint64_t size) {
        if (size > bytes_.size() - position_) fail();
        const char* p = bytes_.data() + position_;
        position_ += size_t(size);
        return p;
    }
    const std::vector<char>& bytes_;
    size_t position_ = 0;
};

// One function lists every field, for writing and for reading alike.
template <typename Stream, typename Job>
void visit_job(Stream& s, Job& job) {
    auto& settings = job.description.settings;
    s.value(settings.width);
    s.value(settings.height);
    s.value(settings.film_width);
    s.value(settings.film_height);
    s.value(settings.region_x);
    s.value(settings.region_y);
    s.text(settings.output);
    s.value(settings.encoding);
    s.value(settings.data_type);
    s.value(settings.exposure);
    s.value(settings.view_transform);
    s.value(settings.alpha);
    s.value(settings.spp);
    s.value(settings.max_depth);
    s.value(settings.integrator);
    s.value(settings.seed);
    s.value(settings.sampler);
    s.value(settings.filter);
    s.value(settings.filter_width);
    s.value(settings.clamp_direct);
    s.value(settings.clamp_indirect);
    s.value(settings.light_tree);
    s.value(settings.noise_threshold);
    s.value(settings.min_spp);
    s.array(settings.aovs);
    s.value(settings.camera);
    s.text(settings.scene_file);
    s.text(settings.scene_directory);
    auto& scene = job.description.scene;
    s.array(scene.spheres);
    s.array(scene.quads);
    s.array(scene.triangles);
    s.array(scene.triangle_attributes);
    s.array(scene.materials);
    s.array(scene.textures);
    s.array(scene.texture_pixels);
    s.value(scene.background);
    s.array(scene.punctual_lights);
    s.array(scene.instance_geometry_refs);
    s.array(scene.instance_geometry_begin);
    s.array(scene.instance_placements);
    // Animation: ranks compute each frame's camera themselves (farm operations, frame_job.h).
    auto& animation = job.description.animation;
    s.value(animation.present);
    s.array(animation.frames);
    s.array(animation.keyframes);
    s.text(job.options.schedule);
    s.value(job.options.band_rows);
    s.value(job.options.linear_list);
}

}  // namespace

std::vector<char> serialize_job(const JobMessage& job) {
    Writer writer;
    writer.value(kMagic);
    writer.text(kVersion);
    visit_job(writer, job);
    return writer.take();
}

JobMessage deserialize_job(const std::vector<char>& bytes) {
    Reader reader(bytes);
    uint32_t magic = 0;
    reader.value(magic);
    std::string version;
    if (magic == kMagic) reader.text(version);
    if (magic != kMagic || version != kVersion) {
        throw RenderError("rank 0 runs a different farmrt (" + (magic == kMagic ? version : std::string("?")) +
                          ") than this rank (" + kVersion + ")");
    }
    JobMessage job;
    visit_job(reader, job);
    if (!reader.at_end()) throw RenderError("the job message from rank 0 has trailing bytes");
    return job;
}

}  // namespace farmrt
