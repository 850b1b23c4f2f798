#include "render_job.h"

#include <chrono>
#include <cstdio>
#include <fstream>

#include "band_renderer.h"
#include "errors.h"
#include "image_output.h"
#include "progress.h"
#include "version.h"

namespace farmrt {
namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

SceneDescription load_job_scene(const CommandLine& command_line, PhaseTimes& phases) {
    const auto start = std::chrono::steady_clock::now();
    SceneDescription description = load_scene_file(command_line.scene_file, command_line.overrides);
    check_output_writable(description.settings.output);
    if (!command_line.stats_file.empty()) check_output_writable(command_line.stats_file);
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
    return options;
}

FrameSettings make_frame_settings(const RenderSettings& settings, uint32_t frame_number) {
    FrameSettings frame;
    frame.camera = make_camera(settings.camera, settings.width, settings.height);
    frame.width = settings.width;
    frame.height = settings.height;
    frame.max_depth = settings.max_depth;
    frame.key = SamplerKey{settings.seed, frame_number};
    return frame;
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
    PreparedJob job{std::move(description), {}, phases};
    job.frame = make_frame_settings(job.description.settings, 0);
    return job;
}

std::vector<float> resolve_pixels(const std::vector<float>& sums, uint32_t spp) {
    std::vector<float> pixels(sums.size());
    const float count = float(spp);
    for (size_t i = 0; i < sums.size(); ++i) pixels[i] = sums[i] / count;
    return pixels;
}

int run_render_job(const CommandLine& command_line) {
    const auto job_start = std::chrono::steady_clock::now();
    PhaseTimes phases;
    PreparedJob job = prepare_job(load_job_scene(command_line, phases), command_line, phases);
    const RenderSettings& settings = job.description.settings;
    const std::unique_ptr<BandRenderer> renderer =
        make_band_renderer(job.description.scene, make_renderer_options(command_line));

    const uint64_t total_samples = uint64_t(settings.width) * settings.height * settings.spp;
    std::vector<float> sums(size_t(settings.width) * settings.height * 3, 0.0f);
    const auto render_start = std::chrono::steady_clock::now();
    {
        ProgressReporter progress(total_samples, command_line.quiet);
        renderer->render(job.frame, RowRange{0, settings.height}, SampleRange{0, settings.spp}, sums.data(),
                        &progress.counter());
    }
    job.phases.render = seconds_since(render_start);

    const auto write_start = std::chrono::steady_clock::now();
    ImageMetadata metadata;
    metadata.scene_file = settings.scene_file;
    metadata.spp = settings.spp;
    metadata.seed = settings.seed;
    metadata.render_seconds = job.phases.render;
    write_image(settings.output, settings.width, settings.height, resolve_pixels(sums, settings.spp),
                settings.encoding, settings.data_type, metadata);
    job.phases.write = seconds_since(write_start);
    job.phases.total = seconds_since(job_start);

    const double samples_per_second = double(total_samples) / job.phases.render;
    if (!command_line.quiet) {
        std::fprintf(stderr, "farmrt: wrote %s (%ux%u, %u spp) in %s, %.3g samples/s on %s (%d threads)\n",
                     settings.output.c_str(), settings.width, settings.height, settings.spp,
                     format_duration(job.phases.total).c_str(), samples_per_second,
                     renderer->description().c_str(), renderer->threads());
    }
    if (!command_line.stats_file.empty()) {
        JsonObject report;
        report.add("software", std::string(kSoftwareName) + " " + kVersion)
            .add("scene", settings.scene_file)
            .add_raw("settings", settings_json(settings))
            .add("backend", renderer->description())
            .add("threads", renderer->threads())
            .add("tile", command_line.tile_size)
            .add("primitives", uint64_t(job.description.scene.primitive_count()))
            .add("instances", uint64_t(job.description.scene.instance_count()))
            .add("rendered_primitives", job.description.scene.rendered_primitive_count())
            .add("bvh_nodes", uint64_t(job.description.scene.nodes().size()))
            .add_raw("seconds", phases_json(job.phases))
            .add("samples", total_samples)
            .add("samples_per_second", samples_per_second);
        write_text_file_atomically(command_line.stats_file, report.str() + "\n");
    }
    return 0;
}

}  // namespace farmrt
