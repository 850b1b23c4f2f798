// What rank 0 broadcasts is the whole scene: every array and setting survives
// the trip, and damaged messages are refused rather than rendered.
#include <gtest/gtest.h>

#include <cstring>

#include "core/errors.h"
#include "mpi/job_message.h"

namespace farmrt {
namespace {

template <typename T>
bool same_bytes(const std::vector<T>& a, const std::vector<T>& b) {
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
}

JobMessage tiny_job() {
    JobMessage job;
    job.description = load_scene_file(std::string(FARMRT_SOURCE_DIR) + "/configs/tiny.yaml",
                                      {SceneOverride{"image.region=[3, 17, 2, 11]", ""}});
    job.options.schedule = "cyclic";
    job.options.band_rows = 3;
    job.options.linear_list = true;
    return job;
}

TEST(JobMessage, RoundTripKeepsEveryArrayAndSetting) {
    const JobMessage job = tiny_job();
    ASSERT_FALSE(job.description.scene.spheres.empty());
    ASSERT_FALSE(job.description.scene.quads.empty());
    ASSERT_FALSE(job.description.scene.triangles.empty());
    const JobMessage copy = deserialize_job(serialize_job(job));
    const Scene& a = job.description.scene;
    const Scene& b = copy.description.scene;
    EXPECT_TRUE(same_bytes(a.spheres, b.spheres));
    EXPECT_TRUE(same_bytes(a.quads, b.quads));
    EXPECT_TRUE(same_bytes(a.triangles, b.triangles));
    EXPECT_TRUE(same_bytes(a.materials, b.materials));
    EXPECT_TRUE(same_bytes(a.textures, b.textures));
    EXPECT_EQ(std::memcmp(&a.background, &b.background, sizeof(Background)), 0);
    const RenderSettings& s = job.description.settings;
    const RenderSettings& t = copy.description.settings;
    EXPECT_EQ(s.width, t.width);
    EXPECT_EQ(s.height, t.height);
    EXPECT_EQ(t.width, 14u);  // the window, which the ranks render
    EXPECT_EQ(s.film_width, t.film_width);
    EXPECT_EQ(s.film_height, t.film_height);
    EXPECT_EQ(t.region_x, 3u);
    EXPECT_EQ(t.region_y, 2u);
    EXPECT_EQ(s.output, t.output);
    EXPECT_EQ(s.encoding, t.encoding);
    EXPECT_EQ(s.data_type, t.data_type);
    EXPECT_EQ(s.spp, t.spp);
    EXPECT_EQ(s.max_depth, t.max_depth);
    EXPECT_EQ(s.seed, t.seed);
    EXPECT_EQ(std::memcmp(&s.camera, &t.camera, sizeof(CameraSettings)), 0);
    EXPECT_EQ(s.scene_file, t.scene_file);
    EXPECT_EQ(s.scene_directory, t.scene_directory);
    EXPECT_EQ(copy.options.schedule, "cyclic");
    EXPECT_EQ(copy.options.band_rows, 3u);
    EXPECT_TRUE(copy.options.linear_list);
}

TEST(JobMessage, SameArraysBuildTheSameBvh) {
    JobMessage job = tiny_job();
    JobMessage copy = deserialize_job(serialize_job(job));
    job.description.scene.build_acceleration();
    copy.description.scene.build_acceleration();
    EXPECT_TRUE(same_bytes(job.description.scene.nodes(), copy.description.scene.nodes()));
    EXPECT_TRUE(same_bytes(job.description.scene.primitive_refs(), copy.description.scene.primitive_refs()));
}

TEST(JobMessage, DamagedMessagesAreRefused) {
    const std::vector<char> bytes = serialize_job(tiny_job());
    for (size_t keep : {size_t(0), size_t(3), bytes.size() / 2, bytes.size() - 1}) {
        EXPECT_THROW(deserialize_job(std::vector<char>(bytes.begin(), bytes.begin() + long(keep))), RenderError);
    }
    std::vector<char> longer = bytes;
    longer.push_back(0);
    EXPECT_THROW(deserialize_job(longer), RenderError);
    std::vector<char> other_version = bytes;
    other_version[12] ^= 0x5a;  // inside the version text after magic and length
    EXPECT_THROW(deserialize_job(other_version), RenderError);
}

}  // namespace
}  // namespace farmrt
