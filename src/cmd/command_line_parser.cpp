#include "cmd/command_line_parser.h"

#include <cerrno>
#include <cstdlib>

#include "core/errors.h"
#include "io/frame_list.h"

namespace farmrt {
namespace {

long parse_integer_option(const std::string& option, const std::string& text, long lo, long hi) {
    char* end = nullptr;
    errno = 0;
    const long value = std::strtol(text.c_str(), &end, 10);
    if (text.empty() || end != text.c_str() + text.size() || errno == ERANGE || value < lo || value > hi) {
        throw InputError(option + ": expected an integer between " + std::to_string(lo) + " and " +
                         std::to_string(hi) + ", got '" + text + "'");
    }
    return value;
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
        const std::string band = text.substr(first + 1, second == std::string::npos ? std::string::npos : second - first - 1);
        injection.band = uint32_t(parse_integer_option(option, band, 1, 1 << 30));
    } catch (const InputError&) {
        throw problem();
    }
    if (second != std::string::npos) injection.kind = text.substr(second + 1);
    if (injection.kind != "throw" && injection.kind != "kill" && injection.kind != "segv") throw problem();
    return injection;
}

double parse_seconds_option(const std::string& option, const std::string& text) {
    char* end = nullptr;
    const double value = std::strtod(text.c_str(), &end);
    if (text.empty() || end != text.c_str() + text.size() || !(value >= 0 && value <= 1e7)) {
        throw InputError(option + ": expected seconds between 0 and 10000000, got '" + text + "'");
    }
    return value;
}

}  // namespace

std::string usage_text() {
    return R"(usage: farmrt SCENE.yaml [options]

Renders a path-traced image of a YAML scene (see docs/scene-format.md).

Scene overrides (take precedence over the file):
  -o, --output FILE      output image; the extension picks the format
  --width W, --height H  image size in pixels
  --spp N                samples per pixel
  --max-depth D          path segments per sample
  --seed S               random seed
  --set KEY.PATH=VALUE   any scene value, e.g. --set camera.vfov=30,
                         --set objects[2].radius=0.5 (VALUE is YAML)
Execution:
  --threads N            CPU threads (default: all)
  --tile N               tile edge in pixels for the thread scheduler (default 16)
  --simd LEVEL           CPU instruction set: off (scalar), auto (default: the
                         widest this CPU has), sse4.2, avx2, avx512
  --backend B            cpu, cuda or auto (default: auto, the GPU of this
                         node-local rank if it has one, else the CPU)
  --gpu-math M           exact (default: GPU images bit-identical to CPU
                         images) or fast (fused multiply-add)
  --linear-list          no BVH: test every primitive (benchmark baseline)
MPI farm (mpirun -n N farmrt SCENE.yaml; without mpirun farmrt is one rank):
  --schedule S           how rank 0 deals bands of rows to ranks: dynamic
                         (default: ranks ask for the next band), static (one
                         block per rank) or cyclic (round robin)
  --band ROWS            rows per band (default: automatic; dynamic bands
                         shrink as the image fills)
  --threads N            is per rank; by default the ranks on a node share its
                         cores (or each uses the cores it is bound to)
  --rank-timeout S       a rank holding work that answers nothing for S seconds
                         (a stopped or hung node) ends the job with exit 1, and
                         after a stop signal rank 0 waits at most S seconds for
                         the ranks' items (default 30)
Sequences and checkpoints:
  --frames LIST          frames to render: 1-120, 1-120:5 (every 5th), 3,7,10-12;
                         the output name takes a frame pattern: out_####.png
  --resume               skip frames whose image is complete; continue a frame
                         from its checkpoint (OUTPUT.checkpoint)
  --checkpoint-interval S  also write a checkpoint every S seconds (default:
                         only on SIGTERM or SIGUSR1, which write one and exit 75)
  --pass-samples N       samples per progressive pass (default: adaptive)
Reporting:
  --stats FILE.json      write a run report (phases, samples per second)
  --quiet                no progress or summary on stderr
  --help, --version
Testing:
  --inject-failure RANK:BAND[:throw|kill|segv]
                         rank RANK fails as it starts its BAND-th band
)";
}

CommandLine parse_command_line(const std::vector<std::string>& arguments) {
    CommandLine cl;
    auto value_of = [&](size_t& i, const std::string& option) -> std::string {
        if (i + 1 >= arguments.size()) throw InputError(option + ": missing value");
        return arguments[++i];
    };
    auto add_override = [&](const std::string& option, const std::string& key, const std::string& value) {
        cl.overrides.push_back(SceneOverride{key + "=" + value, option + " " + value});
    };
    for (size_t i = 0; i < arguments.size(); ++i) {
        const std::string& a = arguments[i];
        if (a == "--help" || a == "-h") {
            cl.show_help = true;
        } else if (a == "--version") {
            cl.show_version = true;
        } else if (a == "-o" || a == "--output") {
            add_override(a, "image.output", value_of(i, a));
        } else if (a == "--width") {
            add_override(a, "image.width", value_of(i, a));
        } else if (a == "--height") {
            add_override(a, "image.height", value_of(i, a));
        } else if (a == "--spp") {
            add_override(a, "sampling.spp", value_of(i, a));
        } else if (a == "--max-depth") {
            add_override(a, "sampling.max_depth", value_of(i, a));
        } else if (a == "--seed") {
            add_override(a, "sampling.seed", value_of(i, a));
        } else if (a == "--set") {
            const std::string assignment = value_of(i, a);
            cl.overrides.push_back(SceneOverride{assignment, "--set " + assignment});
        } else if (a == "--threads") {
            cl.threads = int(parse_integer_option(a, value_of(i, a), 1, 4096));
        } else if (a == "--tile") {
            cl.tile_size = int(parse_integer_option(a, value_of(i, a), 1, 4096));
        } else if (a == "--simd") {
            cl.simd = value_of(i, a);
            // Checked here so that a typo fails before the scene loads; whether
            // the CPU has the level is checked where the renderer is made.
            const std::string& level = cl.simd;
            if (level != "off" && level != "auto" && level != "sse4.2" && level != "avx2" && level != "avx512") {
                throw InputError("--simd: unknown level '" + cl.simd + "' (expected off, auto, sse4.2, avx2 or avx512)");
            }
        } else if (a == "--backend") {
            cl.backend = value_of(i, a);
            if (cl.backend != "cpu" && cl.backend != "cuda" && cl.backend != "auto") {
                throw InputError("--backend: expected cpu, cuda or auto, got '" + cl.backend + "'");
            }
        } else if (a == "--gpu-math") {
            cl.gpu_math = value_of(i, a);
            if (cl.gpu_math != "exact" && cl.gpu_math != "fast") {
                throw InputError("--gpu-math: expected exact or fast, got '" + cl.gpu_math + "'");
            }
        } else if (a == "--stats") {
            cl.stats_file = value_of(i, a);
        } else if (a == "--quiet" || a == "-q") {
            cl.quiet = true;
        } else if (a == "--linear-list") {
            cl.linear_list = true;
        } else if (a == "--schedule") {
            cl.schedule = value_of(i, a);
            if (cl.schedule != "static" && cl.schedule != "cyclic" && cl.schedule != "dynamic") {
                throw InputError(a + ": expected static, cyclic or dynamic, got '" + cl.schedule + "'");
            }
        } else if (a == "--band") {
            cl.band_rows = int(parse_integer_option(a, value_of(i, a), 1, int(kMaxImageSide)));
        } else if (a == "--rank-timeout") {
            cl.rank_timeout = parse_seconds_option(a, value_of(i, a));
            if (cl.rank_timeout < 1) throw InputError(a + ": expected at least 1 second");
        } else if (a == "--inject-failure") {
            cl.inject_failure = parse_failure_injection(a, value_of(i, a));
        } else if (a == "--frames") {
            std::string problem;
            if (!parse_frame_list(value_of(i, a), cl.frames, problem)) throw InputError(a + ": " + problem);
        } else if (a == "--resume") {
            cl.resume = true;
        } else if (a == "--checkpoint-interval") {
            cl.checkpoint_interval = parse_seconds_option(a, value_of(i, a));
        } else if (a == "--pass-samples") {
            cl.pass_samples = uint32_t(parse_integer_option(a, value_of(i, a), 1, 1 << 24));
        } else if (a == "--test-signal-after-items") {
            cl.test_signal_after_items = int(parse_integer_option(a, value_of(i, a), 1, 1 << 30));
        } else if (!a.empty() && a[0] == '-') {
            throw InputError(a + ": unknown option (see farmrt --help)");
        } else if (cl.scene_file.empty()) {
            cl.scene_file = a;
        } else {
            throw InputError(a + ": only one scene file may be given (already have '" + cl.scene_file + "')");
        }
    }
    if (cl.scene_file.empty() && !cl.show_help && !cl.show_version) {
        throw InputError("no scene file given (usage: farmrt SCENE.yaml [options]; see farmrt --help)");
    }
    return cl;
}

}  // namespace farmrt
