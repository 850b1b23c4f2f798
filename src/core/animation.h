// Camera animation: keyframes interpolated per frame.
//
//   animation:
//     frames: 1-120                 # the sequence (frame-list syntax, see frame_list.h)
//     camera:
//       keyframes:
//         - {frame: 1,   lookfrom: [13, 2, 3], lookat: [0, 0, 0], vfov: 20}
//         - {frame: 60,  lookfrom: [0, 4, 13]}
//         - {frame: 120, lookfrom: [-13, 2, 3], vfov: 30, focus_dist: 12}
//
// A key that a keyframe omits takes the scene camera's value (camera: ...).
// Positions (lookfrom, lookat) follow a Catmull-Rom spline through the
// keyframes (cubic Hermite with tangents from the neighbouring keys, scaled
// for uneven spacing), so the path is smooth (C1) and passes through every
// key. Scalars (vfov, focus_dist, defocus_angle) use monotone cubic Hermite
// (Fritsch-Carlson), which never overshoots: between two keys a value stays
// between them, so valid keys give valid frames. Before the first and after
// the last keyframe the camera holds still (clamped).
//
// Everything is computed in double from the parsed values, so every rank,
// process and resumed run gets the same camera for a frame.
#pragma once

#include <string>
#include <vector>

#include "core/camera.h"

namespace farmrt {

struct CameraKeyframe {
    uint32_t frame = 0;
    CameraSettings camera;  // complete: omitted keys already filled from the scene camera
};

struct Animation {
    bool present = false;                   // the scene has an animation section
    std::vector<uint32_t> frames;           // animation.frames, ascending
    std::vector<CameraKeyframe> keyframes;  // ascending by frame, distinct frames; may be empty
};

// The camera of `frame`: `base` when there are no keyframes.
CameraSettings camera_at_frame(const CameraSettings& base, const Animation& animation, uint32_t frame);

// Empty when the camera can be built, else one line (lookfrom equals lookat,
// vup parallel to the view direction, field of view out of range).
std::string camera_problem(const CameraSettings& camera);

}  // namespace farmrt
