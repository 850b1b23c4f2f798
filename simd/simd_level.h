// Instruction-set levels of the SIMD CPU tracer and their run-time selection.
// One binary, compiled for the portable baseline, carries a kernel per level
// (each in its own translation unit built with that level's -m flags) and
// picks one at start-up from what the CPU and the operating system support.
#pragma once

#include <string>
#include <vector>

namespace farmrt {

enum class SimdLevel { Off, Sse42, Avx2, Avx512 };

// "off", "sse4.2", "avx2", "avx512": the names --simd accepts (besides "auto").
const char* simd_level_name(SimdLevel level);
// Whether this binary carries the level's kernel (FARMRT_WITH_SIMD, x86-64).
bool simd_level_compiled(SimdLevel level);
// Whether this CPU (and OS) can run the level's kernel; Off is always supported.
bool simd_level_supported(SimdLevel level);
// Every level this process can run, Off first.
std::vector<SimdLevel> supported_simd_levels();
// The widest supported level, or Off when the binary has no SIMD kernels.
SimdLevel best_simd_level();

// Resolves a --simd value: "auto" -> the best level; a named level must be
// supported. Throws InputError naming --simd otherwise.
SimdLevel resolve_simd_level(const std::string& name);
// The same against an explicit set of supported levels (for tests).
SimdLevel resolve_simd_level(const std::string& name, const std::vector<SimdLevel>& supported);
// Whether `name` is one of off|auto|sse4.2|avx2|avx512 (the command line checks early).
bool is_simd_level_name(const std::string& name);

}  // namespace farmrt
