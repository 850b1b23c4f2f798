#include "simd/simd_level.h"

#include "core/errors.h"

#if FARMRT_HAVE_SIMD
#include <xsimd/xsimd.hpp>
#endif

namespace farmrt {
namespace {

struct LevelName {
    SimdLevel level;
    const char* name;
    const char* description;  // for error messages
};

constexpr LevelName kLevelNames[] = {
    {SimdLevel::Off, "off", "the scalar path"},
    {SimdLevel::Sse42, "sse4.2", "SSE4.2"},
    {SimdLevel::Avx2, "avx2", "AVX2"},
    {SimdLevel::Avx512, "avx512", "AVX-512 (F, CD, DQ, BW, VL)"},
};

#if FARMRT_HAVE_SIMD
// xsimd reads the CPUID feature bits; GCC's __builtin_cpu_supports also checks
// that the operating system saves the wide registers (XGETBV), which xsimd 8.1
// does not, and covers AVX-512VL that xsimd does not track. Both must agree.
bool cpu_runs(SimdLevel level) {
    const auto available = xsimd::available_architectures();
    __builtin_cpu_init();
    switch (level) {
    case SimdLevel::Off: return true;
    case SimdLevel::Sse42:
        return available.sse4_2 && __builtin_cpu_supports("sse4.2") && __builtin_cpu_supports("popcnt");
    case SimdLevel::Avx2: return available.avx2 && __builtin_cpu_supports("avx2");
    case SimdLevel::Avx512:
        return available.avx512f && available.avx512cd && available.avx512dq && available.avx512bw &&
               __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512cd") &&
               __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512bw") &&
               __builtin_cpu_supports("avx512vl");
    }
    return false;
}
#endif

}  // namespace

const char* simd_level_name(SimdLevel level) {
    for (const LevelName& entry : kLevelNames) {
        if (entry.level == level) return entry.name;
    }
    return "unknown";
}

bool simd_level_compiled(SimdLevel level) {
#if FARMRT_HAVE_SIMD
    (void)level;
    return true;
#else
    return level == SimdLevel::Off;
#endif
}

bool simd_level_supported(SimdLevel level) {
    if (level == SimdLevel::Off) return true;
#if FARMRT_HAVE_SIMD
    static const bool supported[] = {true, cpu_runs(SimdLevel::Sse42), cpu_runs(SimdLevel::Avx2),
                                     cpu_runs(SimdLevel::Avx512)};
    return supported[static_cast<int>(level)];
#else
    return false;
#endif
}

std::vector<SimdLevel> supported_simd_levels() {
    std::vector<SimdLevel> levels;
    for (const LevelName& entry : kLevelNames) {
        if (simd_level_supported(entry.level)) levels.push_back(entry.level);
    }
    return levels;
}

SimdLevel best_simd_level() { return supported_simd_levels().back(); }

bool is_simd_level_name(const std::string& name) {
    if (name == "auto") return true;
    for (const LevelName& entry : kLevelNames) {
        if (name == entry.name) return true;
    }
    return false;
}

SimdLevel resolve_simd_level(const std::string& name, const std::vector<SimdLevel>& supported) {
    if (name == "auto") return supported.empty() ? SimdLevel::Off : supported.back();
    for (const LevelName& entry : kLevelNames) {
        if (name != entry.name) continue;
        for (SimdLevel level : supported) {
            if (level == entry.level) return level;
        }
        std::string available;
        for (SimdLevel level : supported)
            available += std::string(available.empty() ? "" : ", ") + simd_level_name(level);
        const std::string reason =
            simd_level_compiled(entry.level) ? "this CPU does not support " : "this build has no kernel for ";
        throw InputError("--simd " + name + ": " + reason + entry.description + " (available here: " + available + ")");
    }
    throw InputError("--simd: unknown level '" + name + "' (expected off, auto, sse4.2, avx2 or avx512)");
}

SimdLevel resolve_simd_level(const std::string& name) { return resolve_simd_level(name, supported_simd_levels()); }

}  // namespace farmrt
