#include "cmd/command_line_parser.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <iterator>
#include <map>
#include <memory>

#include "core/errors.h"
#include "io/frame_list.h"
#include "io/image_output.h"
#include "io/model_loader.h"

namespace farmrt {
namespace {

long parse_integer_option(const std::string& option, const std::string& text, long lo, long hi) {
    char* end = nullptr;
    errno = 0;
    const long value = std::strtol(text.c_str(), &end, 10);
    if (text.empty() || end != text.c_str() + text.size() || errno == ERANGE || value < lo || value > hi) {
        throw InputError(option + ": expected an integer between " + std::to_string(lo) + " and " + std::to_string(hi) +
                         ", got '" + text + "'");
    }
    return value;
}

// "0,2" or "all" (every visible GPU): indices among the devices this
// process sees (CUDA_VISIBLE_DEVICES applies), each once.
std::vector<int> parse_gpu_list(const std::string& option, const std::string& text) {
    if (text == "all") return {};
    std::vector<int> gpus;
    size_t start = 0;
    for (;;) {
        const size_t comma = text.find(',', start);
        const std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        int gpu = 0;
        try {
            gpu = int(parse_integer_option(option, item, 0, 1023));
        } catch (const InputError&) {
            throw InputError(option + ": expected all or GPU numbers such as 0,2, got '" + one_line(text) + "'");
        }
        if (std::find(gpus.begin(), gpus.end(), gpu) != gpus.end()) {
            throw InputError(option + ": GPU " + std::to_string(gpu) + " is named twice");
        }
        gpus.push_back(gpu);
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    return gpus;
}

FailureInjection parse_failure_injection(const std::string& option, const std::string& text) {
    const auto problem = [&]() {
        return InputError(option + ": expected RANK:BAND[:throw|kill|segv] (BAND counts from 1), got '" + text + "'");
    };
    const size_t first = text.find(':');
    if (first == std::string::npos) throw problem();
    const size_t second = text.find(':', first + 1);
    FailureInjection injection;
    try {
        injection.rank = int(parse_integer_option(option, text.substr(0, first), 0, 1 << 24));
        const std::string band =
            text.substr(first + 1, second == std::string::npos ? std::string::npos : second - first - 1);
        injection.band = uint32_t(parse_integer_option(option, band, 1, 1 << 30));
    } catch (const InputError&) {
        throw problem();
    }
    if (second != std::string::npos) injection.kind = text.substr(second + 1);
    if (injection.kind != "throw" && injection.kind != "kill" && injection.kind != "segv") throw problem();
    return injection;
}

// Seconds from `lowest` (or, `above_lowest`, above it: a limit or an
// interval of 0 would be a typo) up to 10000000.
double parse_seconds_option(const std::string& option, const std::string& text, int lowest = 0,
                            bool above_lowest = false) {
    char* end = nullptr;
    const double value = std::strtod(text.c_str(), &end);
    const bool low_ok = above_lowest ? value > lowest : value >= lowest;
    if (text.empty() || end != text.c_str() + text.size() || !(low_ok && value <= 1e7)) {
        const std::string range = above_lowest ? "above " + std::to_string(lowest) + " and at most"
                                               : "between " + std::to_string(lowest) + " and";
        throw InputError(option + ": expected seconds " + range + " 10000000, got '" + text + "'");
    }
    return value;
}

// One occurrence of an option with its value ("" for a flag): `name` is its
// long name, `a` the spelling given (-o or --output), which errors repeat.
void apply_option(CommandLine& cl, const std::string& name, const std::string& a, const std::string& value) {
    const auto add_override = [&](const std::string& key) {
        cl.overrides.push_back(SceneOverride{key + "=" + value, a + " " + value});
    };
    if (name == "--help") {
        cl.show_help = true;
    } else if (name == "--version") {
        cl.show_version = true;
    } else if (name == "--output") {
        add_override("image.output");
    } else if (name == "--width") {
        add_override("image.width");
    } else if (name == "--height") {
        add_override("image.height");
    } else if (name == "--spp") {
        add_override("sampling.spp");
    } else if (name == "--max-depth") {
        add_override("sampling.max_depth");
    } else if (name == "--seed") {
        add_override("sampling.seed");
    } else if (name == "--integrator") {
        add_override("sampling.integrator");
    } else if (name == "--noise-threshold") {
        add_override("sampling.noise_threshold");
    } else if (name == "--min-spp") {
        add_override("sampling.min_spp");
    } else if (name == "--crop") {
        cl.overrides.push_back(SceneOverride{"image.region=[" + value + "]", a + " " + value});
    } else if (name == "--alpha") {
        cl.overrides.push_back(SceneOverride{"image.alpha=true", a});
    } else if (name == "--aov") {
        cl.overrides.push_back(SceneOverride{"image.aovs=[" + value + "]", a + " " + value});
    } else if (name == "--set") {
        cl.overrides.push_back(SceneOverride{value, "--set " + value});
    } else if (name == "--threads") {
        cl.threads = int(parse_integer_option(a, value, 1, 4096));
    } else if (name == "--tile") {
        cl.tile_size = int(parse_integer_option(a, value, 1, 4096));
    } else if (name == "--simd") {
        // Checked here so that a typo fails before the scene loads; whether
        // the CPU has the level is checked where the renderer is made.
        if (value != "off" && value != "auto" && value != "sse4.2" && value != "avx2" && value != "avx512") {
            throw InputError("--simd: unknown level '" + value + "' (expected off, auto, sse4.2, avx2 or avx512)");
        }
        cl.simd = value;
    } else if (name == "--backend") {
        if (value != "cpu" && value != "cuda" && value != "auto") {
            throw InputError("--backend: expected cpu, cuda or auto, got '" + value + "'");
        }
        cl.backend = value;
    } else if (name == "--gpus") {
        cl.gpus = parse_gpu_list(name, value);
        cl.gpus_given = true;
    } else if (name == "--gpu-math") {
        if (value != "exact" && value != "fast")
            throw InputError("--gpu-math: expected exact or fast, got '" + value + "'");
        cl.gpu_math = value;
    } else if (name == "--stats") {
        cl.stats_file = value;
    } else if (name == "--quiet") {
        cl.quiet = true;
    } else if (name == "--linear-list") {
        cl.linear_list = true;
    } else if (name == "--schedule") {
        if (value != "static" && value != "cyclic" && value != "dynamic") {
            throw InputError(a + ": expected static, cyclic or dynamic, got '" + value + "'");
        }
        cl.schedule = value;
    } else if (name == "--band") {
        cl.band_rows = int(parse_integer_option(a, value, 1, int(kMaxImageSide)));
    } else if (name == "--rank-timeout") {
        cl.rank_timeout = parse_seconds_option(a, value, 1);
    } else if (name == "--inject-failure") {
        cl.inject_failure = parse_failure_injection(a, value);
    } else if (name == "--frames") {
        std::string problem;
        if (!parse_frame_list(value, cl.frames, problem)) throw InputError(a + ": " + problem);
    } else if (name == "--resume") {
        cl.resume = true;
    } else if (name == "--checkpoint-interval") {
        cl.checkpoint_interval = parse_seconds_option(a, value);
    } else if (name == "--pass-samples") {
        cl.pass_samples = uint32_t(parse_integer_option(a, value, 1, 1 << 24));
    } else if (name == "--time-limit") {
        cl.time_limit = parse_seconds_option(a, value, 0, true);
    } else if (name == "--frame-log") {
        cl.frame_log = value;
    } else if (name == "--preview") {
        cl.preview_file = value;
    } else if (name == "--preview-interval") {
        cl.preview_interval = parse_seconds_option(a, value, 0, true);
    } else if (name == "--test-signal-after-items") {
        cl.test_signal_after_items = int(parse_integer_option(a, value, 1, 1 << 30));
    }
}

// The options, their help and their groups, declared once: the parser and
// --help both come from this table (CLI11).
struct OptionSpec {
    const char* names;  // CLI11 form: "-o,--output"
    const char* value;  // the value's name in --help; null for a flag
    const char* group;
    const char* help;
};

const OptionSpec kOptions[] = {
    {"-o,--output", "FILE", "Scene overrides (take precedence over the file)",
     "output image; the extension picks the format"},
    {"--width", "W", "Scene overrides (take precedence over the file)", "image width in pixels"},
    {"--height", "H", "Scene overrides (take precedence over the file)", "image height in pixels"},
    {"--crop", "X0,X1,Y0,Y1", "Scene overrides (take precedence over the file)",
     "render and write only the frame's columns [X0, X1) and rows [Y0, Y1) (image.region), its pixels as in the "
     "whole frame"},
    {"--spp", "N", "Scene overrides (take precedence over the file)", "samples per pixel"},
    {"--max-depth", "D", "Scene overrides (take precedence over the file)", "path segments per sample"},
    {"--seed", "S", "Scene overrides (take precedence over the file)", "random seed"},
    {"--integrator", "nee|naive", "Scene overrides (take precedence over the file)",
     "next-event estimation with MIS (default), or the book's estimator"},
    {"--noise-threshold", "T", "Scene overrides (take precedence over the file)",
     "adaptive sampling: a pixel stops once its noise is below T (0 = off, 0.01 is fine, 0.1 coarse)"},
    {"--min-spp", "N", "Scene overrides (take precedence over the file)",
     "adaptive sampling: samples every pixel takes before it may stop (default 16)"},
    {"--aov", "LIST", "Scene overrides (take precedence over the file)",
     "auxiliary images: albedo,normal,depth,samples,variance (EXR channels, or NAME.albedo.pfm ... beside other "
     "formats)"},
    {"--alpha", nullptr, "Scene overrides (take precedence over the file)",
     "an alpha channel, the background transparent to camera rays (image.alpha: RGBA EXR/PNG/TIFF, NAME.alpha.pfm "
     "beside PFM/PPM)"},
    {"--set", "KEY.PATH=VALUE", "Scene overrides (take precedence over the file)",
     "any scene value, e.g. --set camera.vfov=30, --set objects[2].radius=0.5 (VALUE is YAML)"},
    {"--threads", "N", "Execution",
     "CPU threads (default: all; under MPI per rank, the ranks of a node sharing its cores, or each using the cores it "
     "is bound to)"},
    {"--tile", "N", "Execution", "tile edge in pixels for the thread scheduler (default 16)"},
    {"--simd", "LEVEL", "Execution",
     "CPU instruction set: off (scalar), auto (default: the widest this CPU has), sse4.2, avx2, avx512"},
    {"--backend", "B", "Execution",
     "cpu, cuda or auto (default: auto: a process alone on its node renders on every GPU of --gpus and the cores "
     "they leave; with several ranks a node, each takes the GPU of its node-local rank, else the CPU); cuda: GPUs "
     "only"},
    {"--gpus", "LIST", "Execution",
     "the GPUs to render on: all (default for a process alone on its node) or numbers such as 0,2 (of those "
     "CUDA_VISIBLE_DEVICES shows); given, every rank renders on them, however many ranks share the node"},
    {"--gpu-math", "M", "Execution",
     "exact (default: GPU images bit-identical to CPU images) or fast (fused multiply-add)"},
    {"--linear-list", nullptr, "Execution", "no BVH: test every primitive (benchmark baseline)"},
    {"--schedule", "S", "MPI farm (mpirun -n N farmrt SCENE.yaml; without a launcher farmrt is one rank)",
     "how rank 0 deals bands of rows: dynamic (default: ranks ask for the next band), static (one block per rank) or "
     "cyclic (round robin)"},
    {"--band", "ROWS", "MPI farm (mpirun -n N farmrt SCENE.yaml; without a launcher farmrt is one rank)",
     "rows per band (default: automatic; dynamic bands shrink as the image fills)"},
    {"--rank-timeout", "S", "MPI farm (mpirun -n N farmrt SCENE.yaml; without a launcher farmrt is one rank)",
     "a rank that answers nothing for S seconds (a stopped or hung node) ends the job with exit 1; after a stop signal "
     "rank 0 waits at most S seconds for the ranks' items (default 30)"},
    {"--frames", "LIST", "Sequences and checkpoints",
     "frames to render: 1-120, 1-120:5 (every 5th), 3,7,10-12; the output name takes a frame pattern: out_####.png"},
    {"--resume", nullptr, "Sequences and checkpoints",
     "skip frames whose image is complete; continue a frame from its checkpoint (OUTPUT.checkpoint)"},
    {"--checkpoint-interval", "S", "Sequences and checkpoints",
     "also write a checkpoint every S seconds (default: only on SIGTERM or SIGUSR1, which write one and exit 75)"},
    {"--pass-samples", "N", "Sequences and checkpoints", "samples per progressive pass (default: adaptive)"},
    {"--time-limit", "S", "Sequences and checkpoints",
     "a frame rendering for S seconds starts no new pass: it is written with the samples done (the image then depends "
     "on the machine's speed)"},
    {"--preview", "FILE", "Reporting",
     "write the frame in progress to FILE every --preview-interval seconds (rank 0, atomically; FILE may hold a frame "
     "pattern)"},
    {"--preview-interval", "S", "Reporting", "seconds between previews (default 10)"},
    {"--stats", "FILE.json", "Reporting", "write a run report (phases, samples per second)"},
    {"--frame-log", "FILE.jsonl", "Reporting",
     "append a JSON line per completed frame: spp, seconds per phase, samples/s, memory per rank, output"},
    {"-q,--quiet", nullptr, "Reporting", "no progress or summary on stderr"},
    {"-h,--help", nullptr, "Reporting", "this help"},
    {"--version", nullptr, "Reporting", "the version"},
    {"--inject-failure", "RANK:BAND[:throw|kill|segv]", "Testing", "rank RANK fails as it starts its BAND-th band"},
    {"--test-signal-after-items", "N", "", "rank 0 raises SIGTERM once N work items are back"},  // hidden
};

class HelpFormatter : public CLI::Formatter {
public:
    std::string make_usage(const CLI::App*, std::string) const override {
        return "usage: farmrt SCENE.yaml [options]\n       farmrt MODEL [options]\n\n"
               "Renders a path-traced image of a YAML scene (see docs/scene-format.md), or of a model file (" +
               model_extensions_text() + ") under a sky.\n";
    }
};

// The table of kOptions in CLI11's form, for --help and for looking up an
// argument's option; values are checked by farmrt itself (one-line errors
// naming the option) and overrides applied in command-line order.
struct Parser {
    CLI::App app{"", "farmrt"};
    std::vector<std::pair<const OptionSpec*, CLI::Option*>> options;
    std::vector<std::vector<std::string>> values;

    Parser() {
        app.set_help_flag();  // -h/--help is an option of the table, handled by the caller
        app.allow_extras();   // unknown options and extra scene files: farmrt's own messages
        app.formatter(std::make_shared<HelpFormatter>());
        app.get_formatter()->column_width(30);
        values.resize(std::size(kOptions));
        for (size_t i = 0; i < std::size(kOptions); ++i) {
            const OptionSpec& spec = kOptions[i];
            CLI::Option* option = nullptr;
            if (spec.value) {
                option = app.add_option(spec.names, values[i], spec.help)
                             ->type_name(spec.value)
                             ->expected(1)
                             ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
            } else {
                option = app.add_flag(spec.names, spec.help)->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
            }
            option->group(spec.group);
            options.emplace_back(&spec, option);
        }
    }
    std::string long_name(const CLI::Option* option) const { return "--" + option->get_lnames().front(); }
};

}  // namespace

std::string usage_text() {
    Parser parser;
    return parser.app.help();
}

namespace {

// Options whose every occurrence adds to a list; any other option given
// twice is an error (a farm template with a stray duplicate must not render
// something else than it says), except flags, which say the same each time.
bool accumulates(const std::string& name) { return name == "--set" || name == "--aov"; }

// Scene file names that are another 3D format farmrt does not read, so that
// `farmrt part.stl` says so instead of reporting a YAML error.
bool is_unread_model_format(const std::string& path) {
    static const char* const kFormats[] = {".stl",  ".dae",  ".fbx",  ".3ds", ".blend",   ".usd", ".usda",
                                           ".usdc", ".usdz", ".abc",  ".x3d", ".off",     ".lwo", ".ase",
                                           ".ifc",  ".dxf",  ".step", ".stp", ".iges",    ".igs", ".3mf",
                                           ".amf",  ".x",    ".ms3d", ".md2", ".md5mesh", ".b3d"};
    const std::string extension = file_extension(path);
    for (const char* format : kFormats) {
        if (extension == format) return true;
    }
    return false;
}

}  // namespace

CommandLine parse_command_line(const std::vector<std::string>& arguments) {
    CommandLine cl;
    Parser parser;
    // The arguments read left to right: an option (--name VALUE, --name=VALUE,
    // -o VALUE, or a flag) or the scene file, in any order. CLI11 holds the
    // table (and --help); the reading is farmrt's own, so that a value
    // never swallows the next word and a stray word is never taken for one.
    struct Occurrence {
        const CLI::Option* option;
        std::string spelled, value;
    };
    std::vector<Occurrence> occurrences;
    std::map<const CLI::Option*, std::string> first_value;
    for (size_t i = 0; i < arguments.size(); ++i) {
        const std::string& argument = arguments[i];
        if (argument.size() >= 2 && argument[0] == '-') {
            const size_t equals = argument.find('=');
            const std::string spelled = argument.substr(0, equals);
            const CLI::Option* option = nullptr;
            bool takes_value = false;
            for (const auto& [spec, candidate] : parser.options) {
                if (!candidate->check_name(spelled)) continue;
                option = candidate;
                takes_value = spec->value != nullptr;
            }
            if (!option) throw InputError(one_line(spelled) + ": unknown option (see farmrt --help)");
            std::string value;
            if (takes_value) {
                if (equals != std::string::npos) {
                    value = argument.substr(equals + 1);
                } else if (i + 1 < arguments.size()) {
                    value = arguments[++i];
                } else {
                    throw InputError(spelled + ": missing value");
                }
            } else if (equals != std::string::npos) {
                throw InputError(spelled + ": takes no value, got '" + one_line(argument.substr(equals + 1)) + "'");
            }
            const std::string name = parser.long_name(option);
            const auto earlier = first_value.find(option);
            if (earlier != first_value.end() && takes_value && !accumulates(name)) {
                throw InputError(spelled + ": given twice ('" + one_line(earlier->second) + "' and '" +
                                 one_line(value) + "'); give it once");
            }
            first_value.emplace(option, value);
            occurrences.push_back(Occurrence{option, spelled, value});
            continue;
        }
        if (!cl.scene_file.empty()) {
            throw InputError(one_line(argument) + ": unexpected argument; the scene file is '" +
                             one_line(cl.scene_file) +
                             "' (an option takes one value: lists are comma-separated, --aov albedo,normal)");
        }
        if (is_unread_model_format(argument) && !is_model_file(argument)) {
            throw InputError(one_line(argument) +
                             ": not a format farmrt reads (scenes: .yaml; models: " + model_extensions_text() + ")");
        }
        cl.scene_file = argument;
    }
    // --aov given several times: one list, in the order given.
    std::string aovs;
    for (const Occurrence& occurrence : occurrences) {
        if (parser.long_name(occurrence.option) == "--aov") aovs += (aovs.empty() ? "" : ",") + occurrence.value;
    }
    bool aovs_applied = false;
    for (const Occurrence& occurrence : occurrences) {
        const std::string name = parser.long_name(occurrence.option);
        if (name == "--aov") {
            if (aovs_applied) continue;
            aovs_applied = true;
            apply_option(cl, name, occurrence.spelled, aovs);
            continue;
        }
        apply_option(cl, name, occurrence.spelled, occurrence.value);
    }
    if (cl.scene_file.empty() && !cl.show_help && !cl.show_version) {
        throw InputError("no scene file given (usage: farmrt SCENE.yaml [options]; see farmrt --help)");
    }
    return cl;
}

}  // namespace farmrt
