#pragma once

namespace farmrt {
constexpr const char* kSoftwareName = "farmrt";
constexpr const char* kVersion = "0.1.0";
}  // namespace farmrt
