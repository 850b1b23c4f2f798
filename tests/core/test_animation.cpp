// Camera keyframes: interpolation properties and loader errors.
#include <gtest/gtest.h>

#include <cmath>

#include "core/animation.h"
#include "core/errors.h"
#include "io/scene_loader.h"
#include "render/frame_job.h"

namespace farmrt {
namespace {

Animation three_keys() {
    Animation a;
    a.present = true;
    CameraSettings base;
    base.vup = Vec3(0, 1, 0);
    const Vec3 from[3] = {Vec3(10, 2, 0), Vec3(0, 4, 10), Vec3(-10, 2, 0)};
    const double vfov[3] = {20, 60, 30};
    const uint32_t frame[3] = {1, 40, 120};
    for (int i = 0; i < 3; ++i) {
        CameraKeyframe k;
        k.frame = frame[i];
        k.camera = base;
        k.camera.lookfrom = from[i];
        k.camera.lookat = Vec3(0, 0, 0);
        k.camera.vfov = vfov[i];
        k.camera.focus_dist = 10 + i;
        a.keyframes.push_back(k);
    }
    for (uint32_t f = 1; f <= 120; ++f) a.frames.push_back(f);
    return a;
}

TEST(Animation, PassesThroughKeysAndClampsAtTheEnds) {
    const Animation a = three_keys();
    const CameraSettings base;
    for (const CameraKeyframe& k : a.keyframes) {
        const CameraSettings c = camera_at_frame(base, a, k.frame);
        EXPECT_EQ(c.lookfrom.x, k.camera.lookfrom.x);
        EXPECT_EQ(c.lookfrom.z, k.camera.lookfrom.z);
        EXPECT_EQ(c.vfov, k.camera.vfov);
    }
    EXPECT_EQ(camera_at_frame(base, a, 0).lookfrom.x, 10.0f);
    EXPECT_EQ(camera_at_frame(base, a, 500).lookfrom.x, -10.0f);
    EXPECT_EQ(camera_at_frame(base, a, 500).vfov, 30.0);
}

TEST(Animation, SmoothAcrossKeyframes) {
    // C1: the one-frame differences just before and after an interior key agree
    // to first order (they differ by O(h^2) for a smooth curve, not O(1)).
    const Animation a = three_keys();
    const CameraSettings base;
    auto x = [&](double f) {
        // evaluate at integer frames only: compare slopes over one frame
        return double(camera_at_frame(base, a, uint32_t(f)).lookfrom.x);
    };
    const double before = x(40) - x(39), after = x(41) - x(40);
    EXPECT_NEAR(before, after, 0.05 * std::max(std::fabs(before), 0.1));
    // Not piecewise linear: the curve bends between the keys.
    const double mid = x(20), chord = 10.0 + (0.0 - 10.0) * (20 - 1) / 39.0;
    EXPECT_GT(std::fabs(mid - chord), 1e-3);
}

TEST(Animation, ScalarsNeverOvershoot) {
    const Animation a = three_keys();
    const CameraSettings base;
    for (uint32_t f = 1; f <= 40; ++f) {
        const double v = camera_at_frame(base, a, f).vfov;
        EXPECT_GE(v, 20.0);
        EXPECT_LE(v, 60.0);
    }
    for (uint32_t f = 40; f <= 120; ++f) {
        const double v = camera_at_frame(base, a, f).vfov;
        EXPECT_GE(v, 30.0);
        EXPECT_LE(v, 60.0);
        EXPECT_EQ(camera_problem(camera_at_frame(base, a, f)), "");
    }
}

const char* kScene = R"(image: {width: 8, height: 6, output: out_###.ppm}
sampling: {spp: 2, max_depth: 4}
camera: {lookfrom: [0, 1, 5], lookat: [0, 0, 0], vfov: 40}
animation:
  frames: 1-10
  camera:
    keyframes:
      - {frame: 1, lookfrom: [0, 1, 5]}
      - {frame: 10, lookfrom: [5, 1, 0], vfov: 50}
objects:
  - {type: sphere, center: [0, 0, 0], radius: 1, material: {type: lambertian, albedo: [0.5, 0.5, 0.5]}}
)";

std::string load_error(const std::string& text, const std::vector<SceneOverride>& overrides = {}) {
    try {
        load_scene_text(text, "anim.yaml", ".", overrides);
    } catch (const InputError& e) {
        return e.what();
    }
    ADD_FAILURE() << "expected an InputError";
    return "";
}

TEST(AnimationLoader, ReadsFramesAndKeyframes) {
    const SceneDescription d = load_scene_text(kScene, "anim.yaml", ".");
    ASSERT_TRUE(d.animation.present);
    EXPECT_EQ(d.animation.frames.size(), 10u);
    ASSERT_EQ(d.animation.keyframes.size(), 2u);
    EXPECT_EQ(d.animation.keyframes[0].camera.vfov, 40.0);  // omitted: the scene camera's
    EXPECT_EQ(d.animation.keyframes[1].camera.vfov, 50.0);
    const std::vector<PlannedFrame> tasks = plan_frames(d, {});
    ASSERT_EQ(tasks.size(), 10u);
    EXPECT_EQ(tasks[2].output, "out_003.ppm");
    EXPECT_EQ(tasks[2].checkpoint, "out_003.ppm.checkpoint");
    // The frame number is part of the sampler key; the camera follows the keys.
    EXPECT_EQ(frame_settings_for(d, 7).key.frame, 7u);
    EXPECT_NE(frame_settings_for(d, 2).camera.center.x, frame_settings_for(d, 9).camera.center.x);
    // --frames picks a subset of the animation, and nothing outside it.
    EXPECT_EQ(plan_frames(d, {2, 4}).size(), 2u);
    EXPECT_THROW(plan_frames(d, {11}), InputError);
}

TEST(AnimationLoader, ErrorsNameLineColumnAndKey) {
    std::string text = kScene;
    text.replace(text.find("frame: 10"), 9, "frame: 0");
    EXPECT_NE(load_error(text).find(
                  "anim.yaml:9:17: animation.camera.keyframes[1].frame: keyframes must be in increasing frame order"),
              std::string::npos)
        << load_error(text);
    text = kScene;
    text.replace(text.find("lookfrom: [5, 1, 0]"), 19, "lookfrom: [5, 1, 0], lookfrm: [1, 1, 1]");
    EXPECT_NE(load_error(text).find("animation.camera.keyframes[1].lookfrm: unknown key"), std::string::npos);
    text = kScene;
    text.replace(text.find("vfov: 50"), 8, "vfov: -5");
    EXPECT_NE(load_error(text).find("anim.yaml:9:48: animation.camera.keyframes[1].vfov: must be in (0, 180)"),
              std::string::npos)
        << load_error(text);
    text = kScene;
    text.replace(text.find("frames: 1-10"), 12, "frames: 10-1");
    EXPECT_NE(load_error(text).find("anim.yaml:5:11: animation.frames: bad frame list item '10-1'"), std::string::npos)
        << load_error(text);
    EXPECT_NE(load_error(kScene, {SceneOverride{"animation.frames=1-x", ""}})
                  .find("--set animation.frames=1-x: animation.frames"),
              std::string::npos);
    // A keyframe whose camera looks at itself.
    text = kScene;
    text.replace(text.find("lookfrom: [5, 1, 0]"), 19, "lookfrom: [0, 0, 0]");
    EXPECT_NE(load_error(text).find("animation.camera.keyframes[1]: lookfrom equals lookat"), std::string::npos)
        << load_error(text);
    // Several frames need a frame pattern in the output name.
    text = kScene;
    text.replace(text.find("out_###.ppm"), 11, "out.ppm");
    const SceneDescription d = load_scene_text(text, "anim.yaml", ".");
    try {
        plan_frames(d, {});
        ADD_FAILURE();
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("image.output: 'out.ppm' has no frame pattern"), std::string::npos);
    }
}

}  // namespace
}  // namespace farmrt
