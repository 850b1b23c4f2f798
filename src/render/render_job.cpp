#include "render/render_job.h"

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "core/errors.h"
#include "core/version.h"
#include "io/aov_output.h"
#include "io/image_output.h"
#include "render/band_renderer.h"
#include "render/frame_log.h"
#include "render/progress.h"

namespace farmrt {
namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Whether two output names lead to one file (the same spelling, or the same
// place through "..", "." or symbolic links).
bool same_file(const std::string& a, const std::string& b) {
    if (a == b) return true;
    std::error_code error_a, error_b;
    const std::filesystem::path canonical_a =
        std::filesystem::weakly_canonical(std::filesystem::absolute(a, error_a), error_a);
    const std::filesystem::path canonical_b =
        std::filesystem::weakly_canonical(std::filesystem::absolute(b, error_b), error_b);
    return !error_a && !error_b && canonical_a == canonical_b;
}

void check_report_file(const char* option, const std::string& path, const std::string& output) {
    if (same_file(path, output)) {
        throw InputError(std::string(option) + ": " + one_line(path) + " is the output image itself");
    }
    try {
        check_output_writable(path);
    } catch (const InputError& error) {
        throw InputError(std::string(option) + ": " + error.what());
    }
}

// The preview, the run report and the frame log fail before anything
// renders, not when the first frame is done; none may name the image.
void check_reporting_files(const CommandLine& command_line, const std::string& output) {
    const std::string& preview = command_line.preview_file;
    if (!preview.empty()) {
        const std::string format = unsupported_format_reason(preview);
        if (!format.empty()) throw InputError("--preview: " + one_line(preview) + ": " + format);
        check_report_file("--preview", preview, output);
    }
    if (!command_line.stats_file.empty()) check_report_file("--stats", command_line.stats_file, output);
    if (!command_line.frame_log.empty()) {
        if (same_file(command_line.frame_log, output)) {
            throw InputError("--frame-log: " + one_line(command_line.frame_log) + " is the output image itself");
        }
        if (!command_line.stats_file.empty() && same_file(command_line.frame_log, command_line.stats_file)) {
            throw InputError("--frame-log: " + one_line(command_line.frame_log) + " is also the --stats file");
        }
        check_appendable("--frame-log", command_line.frame_log);
    }
}

// Bytes the frame needs while it renders and is written: the per-pixel
// records on rank 0 (and one more copy for a band's starting sums), the
// float image, its conversion for the output format, and the AOVs (values
// and the layered copy an EXR write makes).
uint64_t frame_bytes(const RenderSettings& settings) {
    const uint64_t pixels = uint64_t(settings.width) * settings.height;
    uint64_t aov_floats = 0;
    for (Aov aov : settings.aovs) aov_floats += aov_channels(aov).size();
    // (Measured on a 16384x4096 frame: 29 B a pixel for a PNG, 39 for an EXR, 86 with the albedo AOV.)
    const uint64_t floats_per_pixel =
        2 * uint64_t(pixel_record_floats(settings)) + 3 + 3 + 4 * aov_floats + (aov_floats ? 3 : 0);
    return pixels * floats_per_pixel * sizeof(float);
}

std::string gibibytes(uint64_t bytes) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1f GiB", double(bytes) / double(uint64_t(1) << 30));
    return text;
}

// A job larger than the memory this machine has free is refused before
// rendering, not after it (the write would fail with the render lost). The
// scene itself is already resident, so it is not counted again.
void check_job_fits(const SceneDescription& description) {
    const RenderSettings& settings = description.settings;
    const uint64_t frame = frame_bytes(settings), acceleration = acceleration_bytes(description.scene);
    const uint64_t available = available_memory_bytes();
    if (available == 0 || frame + acceleration <= available) return;
    const std::string more_than = ", more than the " + gibibytes(available) + " this machine has available";
    if (frame > available || frame >= acceleration) {
        throw InputError("image.width x image.height: a " + std::to_string(settings.width) + "x" +
                         std::to_string(settings.height) + " frame" + (settings.aovs.empty() ? "" : " with its AOVs") +
                         " needs about " + gibibytes(frame) + " while it renders and is written" +
                         (frame > available ? "" : ", and the scene's BVH about " + gibibytes(acceleration)) +
                         more_than);
    }
    throw InputError("objects: the scene's " + std::to_string(acceleration_references(description.scene)) +
                     " primitives need about " + gibibytes(acceleration) + " for their BVH, and the frame about " +
                     gibibytes(frame) + more_than);
}

}  // namespace

uint64_t available_memory_bytes() {
    std::ifstream meminfo("/proc/meminfo");
    for (std::string line; std::getline(meminfo, line);) {
        if (line.rfind("MemAvailable:", 0) == 0) return uint64_t(std::atoll(line.c_str() + 13)) << 10;
    }
    const long pages = sysconf(_SC_AVPHYS_PAGES), page_size = sysconf(_SC_PAGE_SIZE);
    return pages > 0 && page_size > 0 ? uint64_t(pages) * uint64_t(page_size) : 0;
}

uint64_t acceleration_references(const Scene& scene) {
    // Every sphere, quad and triangle once (an instanced mesh's own BVH holds
    // it), and each placement once in the top level.
    return uint64_t(scene.spheres.size()) + scene.quads.size() + scene.triangles.size() + scene.instance_count();
}

uint64_t acceleration_bytes(const Scene& scene) {
    // Measured as the peak resident memory of building the BVH and the SIMD
    // backend's wide BVH over that of the loaded scene, with the pages loading
    // freed handed back first: 16 MB for 30,000 triangles, 45-49 MB for
    // 100,000, 145-151 MB for 300,000, 170 MB for 500,000 and 416 MB for
    // 1,000,000 (the vectors' doublings make it uneven). This bounds them all
    // (tests/render/test_job_memory.cpp checks it against the measurement).
    constexpr uint64_t kFixedBytes = uint64_t(16) << 20, kBytesPerReference = 500;
    const uint64_t references = acceleration_references(scene);
    return references == 0 ? 0 : kFixedBytes + references * kBytesPerReference;
}

SceneDescription load_job_scene(const CommandLine& command_line, PhaseTimes& phases) {
    const auto start = std::chrono::steady_clock::now();
    SceneDescription description = load_scene_file(command_line.scene_file, command_line.overrides);
    // What an imported model asked for that farmrt leaves out: said once, on
    // the rank that read the scene, even under --quiet (the image differs
    // from what the file describes).
    for (const std::string& warning : description.warnings)
        std::fprintf(stderr, "farmrt: warning: %s\n", warning.c_str());
    check_output_writable(description.settings.output);
    check_job_fits(description);
    check_reporting_files(command_line, description.settings.output);
    phases.parse = seconds_since(start);
    return description;
}

RendererOptions make_renderer_options(const CommandLine& command_line) {
    RendererOptions options;
    options.threads = command_line.threads;
    options.tile_size = command_line.tile_size;
    options.simd = command_line.simd;
    options.backend = command_line.backend;
    options.gpu_math = command_line.gpu_math;
    options.gpus = command_line.gpus;
    options.gpus_given = command_line.gpus_given;
    options.tuning = command_line.tuning;
    return options;
}

PreparedJob prepare_job(SceneDescription description, const CommandLine& command_line, PhaseTimes phases) {
    const auto start = std::chrono::steady_clock::now();
    if (command_line.linear_list) {
        if (description.scene.primitive_count() > 0xFFFF) {
            throw InputError("--linear-list: supports at most 65535 primitives");
        }
        description.scene.build_linear_list();
    } else {
        description.scene.build_acceleration();
    }
    phases.bvh_build = seconds_since(start);
    description.scene.set_sample_clamp(description.settings.clamp_direct, description.settings.clamp_indirect);
    description.scene.set_light_tree(description.settings.light_tree);
    description.scene.set_transparent_background(description.settings.alpha);
    PreparedJob job{std::move(description), {}, phases};
    job.frame = frame_settings_for(job.description, 0);
    return job;
}

std::vector<float> resolve_pixels(const std::vector<float>& sums, uint32_t spp) {
    std::vector<float> pixels(sums.size());
    const float count = float(spp);
    for (size_t i = 0; i < sums.size(); ++i) pixels[i] = sums[i] / count;
    return pixels;
}

}  // namespace farmrt
