// What identifies the pixels of one frame, so that a checkpoint is only ever
// continued by a render that would produce the same sums.
//
// The identity is readable text, one "key=value" per line: the frame number,
// image size, spp, max_depth, seed, the frame's camera (hex floats, after
// animation), and a hash of the canonical scene text. The canonical text is
// the scene's YAML after --set overrides, with keys sorted, minus what does not
// change the linear sums (image.output, image.encoding, image.data_type) and
// minus camera/animation (covered by the frame's camera). So a checkpoint made
// with 2 ranks resumes with 5, or with another output format, but never with
// another scene, size, seed or sample count.
#pragma once

#include <cstdint>
#include <string>

namespace YAML {
class Node;
}

namespace farmrt {

struct SceneDescription;

std::string canonical_scene_text(const YAML::Node& root);
std::string frame_identity(const SceneDescription& description, uint32_t frame);
// frame_identity() as 16 hex digits: what images record of it (farmrt:identity).
std::string frame_digest(const SceneDescription& description, uint32_t frame);

// 64-bit FNV-1a; `state` continues a running hash.
constexpr uint64_t kFnvOffsetBasis = 0xcbf29ce484222325ull;
uint64_t fnv1a64(const void* data, size_t size, uint64_t state = kFnvOffsetBasis);

}  // namespace farmrt
