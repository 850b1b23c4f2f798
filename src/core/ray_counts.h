// Rays traced, by kind: the unit of work the literature quotes (rays per
// second), beside samples. A pure function of the paths, so every backend and
// every decomposition of a frame counts the same.
//   camera     one per sample: its first closest-hit query
//   extension  each further closest-hit query of a path (its bounces)
//   shadow     each any-hit query of a light sample (next-event estimation)
#pragma once

#include <cstdint>

namespace farmrt {

struct RayCounts {
    uint64_t camera = 0;
    uint64_t extension = 0;
    uint64_t shadow = 0;

    uint64_t total() const { return camera + extension + shadow; }
    RayCounts& operator+=(const RayCounts& other) {
        camera += other.camera;
        extension += other.extension;
        shadow += other.shadow;
        return *this;
    }
};

}  // namespace farmrt
