#include "render/tuning.h"

#include <cstdlib>
#include <initializer_list>

#include "core/errors.h"

namespace farmrt {
namespace {

class Reader {
public:
    explicit Reader(const EnvironmentLookup& lookup) : lookup_(lookup) {}

    // The index of the variable's value among `choices`, or -1 when unset.
    int choice(const char* name, std::initializer_list<const char*> choices) const {
        const char* value = lookup_(name);
        if (!value) return -1;
        int index = 0;
        std::string expected;
        for (const char* option : choices) {
            if (std::string(value) == option) return index;
            expected += (index == 0 ? "" : index + 1 == int(choices.size()) ? " or " : ", ") + std::string(option);
            ++index;
        }
        throw InputError(std::string(name) + ": expected " + expected + ", got '" + value + "'");
    }

    std::optional<double> number(const char* name, double lowest, double highest) const {
        const char* value = lookup_(name);
        if (!value) return std::nullopt;
        char* end = nullptr;
        const double number = std::strtod(value, &end);
        if (end == value || *end != '\0' || !(number >= lowest && number <= highest)) {
            throw InputError(std::string(name) + ": expected a number from " + format(lowest) + " to " +
                             format(highest) + ", got '" + value + "'");
        }
        return number;
    }

    std::optional<int> integer(const char* name, int lowest, int highest) const {
        const std::optional<double> value = number(name, lowest, highest);
        if (!value) return std::nullopt;
        if (double(int(*value)) != *value) {
            throw InputError(std::string(name) + ": expected an integer, got '" + lookup_(name) + "'");
        }
        return int(*value);
    }

    std::optional<bool> flag(const char* name, const char* off, const char* on) const {
        const int index = choice(name, {off, on});
        if (index < 0) return std::nullopt;
        return index == 1;
    }

private:
    static std::string format(double x) {
        std::string text = std::to_string(x);
        text.erase(text.find_last_not_of('0') + 1);
        if (!text.empty() && text.back() == '.') text.pop_back();
        return text;
    }
    const EnvironmentLookup& lookup_;
};

}  // namespace

Tuning read_tuning(const EnvironmentLookup& lookup) {
    const Reader reader(lookup);
    Tuning tuning;
    const int traversal = reader.choice("FARMRT_SIMD_TRAVERSAL", {"auto", "wide", "scalar"});
    if (traversal == 1) tuning.cpu.traversal = CpuTuning::Traversal::Wide;
    if (traversal == 2) tuning.cpu.traversal = CpuTuning::Traversal::Scalar;
    tuning.cpu.largest_area_collapse = reader.choice("FARMRT_SIMD_COLLAPSE", {"sah", "largest_area"}) == 1;
    tuning.cpu.tail_split = reader.choice("FARMRT_CPU_TAIL_SPLIT", {"0", "1"}) != 0;

    tuning.gpu.sample_items = reader.flag("FARMRT_CUDA_ITEMS", "pixels", "samples");
    tuning.gpu.chunk_samples = reader.integer("FARMRT_CUDA_CHUNK_SAMPLES", 1, 1024);
    tuning.gpu.adaptive_lookahead = reader.integer("FARMRT_CUDA_LOOKAHEAD", 0, 400);
    tuning.gpu.adaptive_fill = reader.integer("FARMRT_CUDA_ADAPTIVE_FILL", 0, 1000);
    tuning.gpu.exact_wide_bvh = reader.flag("FARMRT_CUDA_EXACT_WIDE", "0", "1");
    tuning.gpu.exact_gpu_leaves = reader.flag("FARMRT_CUDA_EXACT_LEAVES", "0", "1");
    tuning.gpu.triangle_corners = reader.flag("FARMRT_CUDA_TRIANGLE_CORNERS", "0", "1");
    tuning.gpu.gpu_leaf_size = reader.integer("FARMRT_CUDA_LEAF_SIZE", 0, 16);
    tuning.gpu.split_leaves = reader.flag("FARMRT_CUDA_GPU_BVH", "rebuild", "split");
    tuning.gpu.warp_fetch = reader.flag("FARMRT_CUDA_WARP_FETCH", "0", "1");
    if (const std::optional<int> mib = reader.integer("FARMRT_CUDA_SAMPLE_BUFFER_MIB", 1, 65536)) {
        tuning.gpu.sample_buffer_bytes = size_t(*mib) << 20;
    }
    const int integrator = reader.choice("FARMRT_CUDA_INTEGRATOR", {"auto", "megakernel", "split"});
    if (integrator == 1) tuning.gpu.integrator = GpuTuning::Integrator::Megakernel;
    if (integrator == 2) tuning.gpu.integrator = GpuTuning::Integrator::Split;
    tuning.gpu.split_paths = reader.integer("FARMRT_CUDA_PATHS", 1024, 1 << 26);
    tuning.gpu.split_band_pools = reader.integer("FARMRT_CUDA_SPLIT_BAND_POOLS", 0, 64);
    tuning.gpu.queue_fetch = reader.integer("FARMRT_CUDA_QUEUE_FETCH", 0, 64);
    tuning.gpu.split_streams = reader.integer("FARMRT_CUDA_SPLIT_STREAMS", 1, 8);
    const int shading = reader.choice("FARMRT_CUDA_SHADING", {"auto", "all", "scene", "sorted"});
    if (shading > 0) tuning.gpu.shading = GpuTuning::Shading(shading);
    tuning.gpu.bands_in_flight = reader.integer("FARMRT_CUDA_BANDS", 1, 8);
    tuning.gpu.block_size = reader.integer("FARMRT_CUDA_BLOCK", 32, 1024);
    tuning.gpu.grid_divisor = reader.integer("FARMRT_CUDA_GRID_DIVISOR", 1, 8);
    if (tuning.gpu.block_size && *tuning.gpu.block_size % 32 != 0) {
        throw InputError("FARMRT_CUDA_BLOCK: expected a multiple of 32 (a warp), got '" +
                         std::to_string(*tuning.gpu.block_size) + "'");
    }

    tuning.dealer.measured_weights = reader.flag("FARMRT_FARM_WEIGHTS", "pooled", "measured");
    tuning.dealer.tail_samples = reader.integer("FARMRT_FARM_TAIL", 0, 1 << 24);
    tuning.dealer.band_divisor = reader.number("FARMRT_FARM_BAND_DIVISOR", 1, 1e6);
    if (const std::optional<double> ms = reader.number("FARMRT_FARM_MIN_BAND_MS", 0, 10000)) {
        tuning.dealer.min_band_seconds = *ms / 1000;
    }
    tuning.dealer.endgame_every_round = reader.flag("FARMRT_FARM_ENDGAME", "last", "every");
    return tuning;
}

Tuning read_tuning() {
    return read_tuning([](const char* name) -> const char* { return std::getenv(name); });
}

}  // namespace farmrt
