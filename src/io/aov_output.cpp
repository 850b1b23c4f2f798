#include "io/aov_output.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "core/errors.h"
#include "io/image_output.h"
#include "io/temporary_name.h"

namespace farmrt {
namespace {

constexpr Aov kAllAovs[] = {Aov::Albedo, Aov::Normal, Aov::Depth, Aov::Samples, Aov::Variance};

}  // namespace

void write_pfm(const std::string& path, uint32_t width, uint32_t height, const std::vector<float>& values,
               size_t channels) {
    if (values.size() != size_t(width) * height * channels) throw RenderError(path + ": buffer has the wrong size");
    const std::string temporary = temporary_path_for(path, ".pfm");
    try {
        std::ofstream out(temporary, std::ios::binary);
        if (!out) throw RenderError(path + ": cannot open for writing: " + std::strerror(errno));
        // PFM rows run bottom to top; a negative scale means little-endian.
        out << (channels == 3 ? "PF" : "Pf") << "\n" << width << " " << height << "\n-1.0\n";
        for (uint32_t row = height; row-- > 0;) {
            out.write(reinterpret_cast<const char*>(&values[size_t(row) * width * channels]),
                      std::streamsize(size_t(width) * channels * sizeof(float)));
        }
        out.flush();
        if (!out) throw RenderError(path + ": write failed: " + std::strerror(errno));
        out.close();
        if (std::rename(temporary.c_str(), path.c_str()) != 0) {
            throw RenderError(path + ": cannot move the finished image into place: " + std::strerror(errno));
        }
    } catch (...) {
        std::remove(temporary.c_str());
        throw;
    }
}

const char* aov_name(Aov aov) {
    switch (aov) {
    case Aov::Albedo: return "albedo";
    case Aov::Normal: return "normal";
    case Aov::Depth: return "depth";
    case Aov::Samples: return "samples";
    case Aov::Variance: return "variance";
    }
    return "?";
}

bool parse_aov(const std::string& name, Aov& aov) {
    for (Aov candidate : kAllAovs) {
        if (name == aov_name(candidate)) {
            aov = candidate;
            return true;
        }
    }
    return false;
}

std::string aov_names() { return "albedo, normal, depth, samples or variance"; }

std::vector<std::string> aov_channels(Aov aov) {
    switch (aov) {
    case Aov::Albedo: return {"albedo.R", "albedo.G", "albedo.B"};
    case Aov::Normal: return {"N.X", "N.Y", "N.Z"};
    case Aov::Depth: return {"Z"};
    case Aov::Samples: return {"samples"};
    case Aov::Variance: return {"variance"};
    }
    return {};
}

std::string aov_side_path(const std::string& image_path, Aov aov) {
    std::filesystem::path path(image_path);
    path.replace_extension(std::string(".") + aov_name(aov) + ".pfm");
    return path.string();
}

bool stores_aovs_as_channels(const std::string& image_path) { return file_extension(image_path) == ".exr"; }

void write_aov_files(const std::string& image_path, uint32_t width, uint32_t height,
                     const std::vector<AovImage>& aovs) {
    for (const AovImage& image : aovs) {
        write_pfm(aov_side_path(image_path, image.aov), width, height, image.values, aov_channels(image.aov).size());
    }
}

}  // namespace farmrt
