// Frame lists (--frames, animation.frames) and output frame patterns.
#include <gtest/gtest.h>

#include "io/frame_list.h"

namespace farmrt {
namespace {

std::vector<uint32_t> frames_of(const std::string& text) {
    std::vector<uint32_t> frames;
    std::string problem;
    EXPECT_TRUE(parse_frame_list(text, frames, problem)) << text << ": " << problem;
    return frames;
}

std::string problem_of(const std::string& text) {
    std::vector<uint32_t> frames;
    std::string problem;
    EXPECT_FALSE(parse_frame_list(text, frames, problem)) << text << " should be rejected";
    return problem;
}

TEST(FrameList, RangesStepsAndLists) {
    EXPECT_EQ(frames_of("7"), (std::vector<uint32_t>{7}));
    EXPECT_EQ(frames_of("1-5"), (std::vector<uint32_t>{1, 2, 3, 4, 5}));
    EXPECT_EQ(frames_of("1-12:5"), (std::vector<uint32_t>{1, 6, 11}));
    EXPECT_EQ(frames_of("3,7,10-12"), (std::vector<uint32_t>{3, 7, 10, 11, 12}));
    EXPECT_EQ(frames_of(" 0 - 2 , 1 "), (std::vector<uint32_t>{0, 1, 2}));  // sorted, duplicates dropped
    EXPECT_EQ(frames_of("1-120").size(), 120u);
    EXPECT_EQ(frames_of("1-120:5").back(), 116u);
}

TEST(FrameList, RejectsBadInputWithAReason) {
    EXPECT_NE(problem_of("").find("empty frame list"), std::string::npos);
    EXPECT_NE(problem_of("1,,3").find("empty item"), std::string::npos);
    EXPECT_NE(problem_of("5-1").find("runs backwards"), std::string::npos);
    EXPECT_NE(problem_of("1-10:0").find("step must be an integer >= 1"), std::string::npos);
    EXPECT_NE(problem_of("4:2").find("a step needs a range"), std::string::npos);
    EXPECT_NE(problem_of("-3").find("'-3'"), std::string::npos);
    EXPECT_NE(problem_of("a-b").find("'a-b'"), std::string::npos);
    EXPECT_NE(problem_of("1.5").find("integers"), std::string::npos);
    EXPECT_NE(problem_of("99999999").find("9999999"), std::string::npos);
    EXPECT_NE(problem_of("0-9999999,0-9999999:3").find("more than"), std::string::npos);
}

TEST(FrameList, FormatReadsBack) {
    for (const char* text : {"1-5,9", "0", "3,7,10-12", "1-120:5"}) {
        const std::vector<uint32_t> frames = frames_of(text);
        EXPECT_EQ(frames_of(format_frame_list(frames)), frames) << text;
    }
    EXPECT_EQ(format_frame_list(frames_of("3,7,10-12")), "3,7,10-12");
    // Stepped runs stay ranges: 611,495 frames in 11 characters, not 4 MB
    // (the fuzzer's reproducer took 10 s to write out and read back).
    EXPECT_EQ(format_frame_list(frames_of("1-1222990:2,311")), "1-1222989:2");
    EXPECT_EQ(format_frame_list(frames_of("0-100:10,5,7")), "0,5,7,10-100:10");
}

TEST(FramePattern, ZeroPaddedFrameNumbers) {
    EXPECT_EQ(frame_output_path("out_####.png", 7), "out_0007.png");
    EXPECT_EQ(frame_output_path("out_####.png", 123456), "out_123456.png");
    EXPECT_EQ(frame_output_path("renders/shot#.exr", 12), "renders/shot12.exr");
    EXPECT_EQ(frame_output_path("still.png", 3), "still.png");
    // '#' in a directory name is literal.
    EXPECT_EQ(frame_output_path("take#2/f_###.ppm", 5), "take#2/f_005.ppm");
    EXPECT_FALSE(has_frame_pattern("take#2/still.ppm"));
    EXPECT_TRUE(has_frame_pattern("f_###.ppm"));
    EXPECT_EQ(frame_pattern_problem("out_####.png"), "");
    EXPECT_NE(frame_pattern_problem("a_##_##.png").find("more than one run"), std::string::npos);
}

}  // namespace
}  // namespace farmrt
