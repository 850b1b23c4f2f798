// Checkpoints of a frame in progress: the linear per-pixel sums and how many
// samples each pixel has, with the identity of the scene and settings that
// made them (scene_identity.h) and a checksum.
//
// Because every backend adds samples to the sums in sample order
// (integrator.h: accumulate_pixel), continuing pixel p from its count c with
// samples [c, spp) gives exactly the floats an uninterrupted render gives:
// a render interrupted and resumed any number of times, by any number of
// ranks, is byte-identical to one that never stopped.
//
// File layout (little-endian), version 1:
//   "FARMRTCK"  u32 version  u32 0  u64 identity_length  identity text
//   u32 width  u32 height  u32 spp  u32 record_floats (0 is read as 3)
//   u32 sample_count[width*height]     sample position per pixel (its row's), row-major
//   f32 sums[width*height*F]           per pixel, F = record_floats: the RGB sum,
//                                      with statistics also the luminance's squared
//                                      deviations and the samples taken, with image.alpha
//                                      last the alpha sum (core/pixel_record.h)
//   u64 checksum                       FNV-1a 64 of every byte before it
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace farmrt {

struct Checkpoint {
    std::string identity;  // frame_identity() of the render that wrote it
    uint32_t width = 0, height = 0, spp = 0;
    uint32_t record_floats = 3;           // 3 to 6 (core/pixel_record.h record_floats_of)
    std::vector<uint32_t> sample_counts;  // width * height
    std::vector<float> sums;              // width * height * record_floats

    // Samples done by every pixel of row y (rows finish as a whole), or
    // kMixedRow when the row's pixels differ.
    static constexpr uint32_t kMixedRow = 0xFFFFFFFFu;
    uint32_t row_sample_count(uint32_t y) const;
    uint64_t samples_done() const;
};

// "out_0007.png" -> "out_0007.png.checkpoint"
std::string checkpoint_path_for(const std::string& output);

// Writes atomically (temporary file in the same directory, flushed to disk,
// then renamed): a crash while writing leaves the previous checkpoint intact.
// Throws RenderError on I/O failure.
void write_checkpoint(const std::string& path, const Checkpoint& checkpoint);

// Throws InputError naming the file and the problem when it is not a complete,
// uncorrupted farmrt checkpoint.
Checkpoint read_checkpoint(const std::string& path);

// Throws InputError when `checkpoint` was written for other scene or settings
// than `identity`, naming the first difference ("spp: 64 in the checkpoint, 32 now").
void require_matching_identity(const std::string& path, const Checkpoint& checkpoint, const std::string& identity);

}  // namespace farmrt
