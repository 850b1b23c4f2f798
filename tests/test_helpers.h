// Small helpers shared by the test files: temporary directories, files, scenes.
#pragma once

#include <gtest/gtest.h>

#include <stdlib.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "core/scene.h"
#include "io/scene_loader.h"

namespace farmrt::testing {

// The mean of Monte Carlo samples and its standard error.
struct SampleMean {
    double sum = 0, sum_squares = 0;
    uint64_t count = 0;
    void add(double value) {
        sum += value;
        sum_squares += value * value;
        ++count;
    }
    double mean() const { return sum / double(count); }
    double standard_error() const {
        return std::sqrt(std::max(0.0, sum_squares / double(count) - mean() * mean()) / double(count));
    }
};

// A fresh directory under the system temporary directory, removed with its contents.
class TemporaryDirectory {
public:
    TemporaryDirectory() {
        std::string pattern = (std::filesystem::temp_directory_path() / "farmrt-test-XXXXXX").string();
        if (!mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed");
        path_ = pattern;
    }
    ~TemporaryDirectory() {
        std::error_code ignored;
        std::filesystem::remove_all(path_, ignored);
    }
    TemporaryDirectory(const TemporaryDirectory&) = delete;
    TemporaryDirectory& operator=(const TemporaryDirectory&) = delete;

    const std::filesystem::path& path() const { return path_; }
    std::string file(const std::string& name) const { return (path_ / name).string(); }
    // Every entry's name, hidden ones included, sorted.
    std::vector<std::string> entries() const {
        std::vector<std::string> names;
        for (const auto& entry : std::filesystem::directory_iterator(path_)) {
            names.push_back(entry.path().filename().string());
        }
        std::sort(names.begin(), names.end());
        return names;
    }

private:
    std::filesystem::path path_;
};

inline void write_text(const std::string& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary);
    out << text;
}

inline std::string read_text(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

// Pearson correlation of paired samples.
inline double correlation(const std::vector<double>& a, const std::vector<double>& b) {
    const size_t n = a.size();
    double ma = 0, mb = 0;
    for (size_t i = 0; i < n; ++i) {
        ma += a[i];
        mb += b[i];
    }
    ma /= double(n);
    mb /= double(n);
    double sab = 0, saa = 0, sbb = 0;
    for (size_t i = 0; i < n; ++i) {
        sab += (a[i] - ma) * (b[i] - mb);
        saa += (a[i] - ma) * (a[i] - ma);
        sbb += (b[i] - mb) * (b[i] - mb);
    }
    return sab / std::sqrt(saa * sbb);
}

inline std::string source_path(const std::string& relative) { return std::string(FARMRT_SOURCE_DIR) + "/" + relative; }

// A random scene of mixed spheres, quads and triangles in a cube of side `extent`.
inline Scene random_scene(std::mt19937& rng, size_t count, float extent) {
    std::uniform_real_distribution<float> position(-extent / 2, extent / 2);
    std::uniform_real_distribution<float> size(0.01f * extent, 0.2f * extent);
    std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
    std::uniform_int_distribution<int> kind(0, 2);
    auto random_vector = [&](float scale) { return Vec3(unit(rng), unit(rng), unit(rng)) * scale; };
    Scene scene;
    scene.materials.push_back(Material{});
    scene.textures.push_back(Texture{});
    for (size_t i = 0; i < count; ++i) {
        const Vec3 where(position(rng), position(rng), position(rng));
        switch (kind(rng)) {
        case 0: {
            Sphere s{};
            s.center = where;
            s.radius = size(rng) / 2;
            scene.spheres.push_back(s);
            break;
        }
        case 1: {
            Vec3 u = random_vector(size(rng)), v = random_vector(size(rng));
            // Some quads are axis-aligned (flat bounding boxes, zero direction components).
            if (i % 4 == 0) {
                u = Vec3(size(rng), 0, 0);
                v = Vec3(0, 0, size(rng));
            }
            if (length_squared(cross(u, v)) == 0.0f) v = Vec3(0, 1, 0);
            scene.quads.push_back(make_quad(where, u, v, 0));
            break;
        }
        default: {
            Triangle t{};
            t.vertex0 = where;
            t.vertex1 = where + random_vector(size(rng));
            t.vertex2 = where + random_vector(size(rng));
            if (i % 4 == 0) {  // axis-aligned: a zero-thickness bounding box
                t.vertex1 = where + Vec3(size(rng), 0, 0);
                t.vertex2 = where + Vec3(0, size(rng), 0);
            }
            scene.triangles.push_back(t);
            break;
        }
        }
    }
    return scene;
}

// A PFM's floats (top row first) and its channel count (3 for "PF", 1 for
// "Pf"); empty when the file is short.
inline std::vector<float> read_pfm(const std::string& path, int& channels) {
    std::ifstream in(path, std::ios::binary);
    std::string magic;
    uint32_t width = 0, height = 0;
    double scale = 0;
    in >> magic >> width >> height >> scale;
    in.get();
    channels = magic == "PF" ? 3 : 1;
    std::vector<float> values(size_t(width) * height * size_t(channels));
    for (uint32_t row = height; row-- > 0;) {
        in.read(reinterpret_cast<char*>(&values[size_t(row) * width * size_t(channels)]),
                std::streamsize(size_t(width) * size_t(channels) * 4));
    }
    return in ? values : std::vector<float>{};
}

}  // namespace farmrt::testing
