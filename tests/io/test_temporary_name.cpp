// Temporary names for atomic writes (io/temporary_name.h): hidden, beside
// the target, short and unique, and --resume's clean-up of stale ones.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <set>
#include <string>

#include "io/temporary_name.h"
#include "test_helpers.h"

namespace farmrt {
namespace {

// Temporary names: hidden, beside the target, ending in the suffix, at most
// 255 bytes for any valid target name, and different on every call (two
// nodes with equal process ids writing one output must not share one).
TEST(TemporaryNames, HiddenShortAndUniqueForAnyTargetName) {
    for (const size_t length : {1, 20, 200, 251}) {
        const std::string name = std::string(length, 'a') + ".exr";
        std::set<std::string> seen;
        for (int i = 0; i < 100; ++i) {
            const std::filesystem::path temporary = temporary_path_for("/some/dir/" + name, ".exr");
            const std::string file = temporary.filename().string();
            EXPECT_EQ(temporary.parent_path(), "/some/dir");
            EXPECT_LE(file.size(), 255u) << name;
            EXPECT_EQ(file[0], '.');
            EXPECT_EQ(file.substr(file.size() - 4), ".exr");
            EXPECT_NE(file.find(kTemporaryMarker), std::string::npos);
            seen.insert(file);
        }
        EXPECT_EQ(seen.size(), 100u) << "temporary names repeat for " << name;
    }
}

// --resume's clean-up: the temporaries of this target that nobody has written
// for a minute go; a fresh one (a run still writing) and other files stay.
TEST(TemporaryNames, StaleTemporariesOfATargetAreRemoved) {
    testing::TemporaryDirectory directory;
    const std::string target = directory.file("frame_0001.exr");
    const std::string stale = temporary_path_for(target, ".exr");
    const std::string fresh = temporary_path_for(target, ".exr");
    const std::string other = temporary_path_for(directory.file("frame_0002.exr"), ".exr");
    for (const std::string& path : {stale, fresh, other, target}) testing::write_text(path, "x");
    for (const std::string& path : {stale, other}) {
        std::filesystem::last_write_time(path, std::filesystem::file_time_type::clock::now() - std::chrono::hours(2));
    }
    EXPECT_EQ(remove_stale_temporaries(target, ".exr"), 1);
    EXPECT_FALSE(std::filesystem::exists(stale));
    EXPECT_TRUE(std::filesystem::exists(fresh));
    EXPECT_TRUE(std::filesystem::exists(other));
    EXPECT_TRUE(std::filesystem::exists(target));
}

}  // namespace
}  // namespace farmrt
