#include "io/openimageio_loader.h"

#include <dlfcn.h>
#include <unistd.h>

#include <mutex>
#include <thread>

namespace farmrt {
namespace {

#if FARMRT_HAVE_OPENIMAGEIO
// Next to the executable (a build folder), in ../lib/farmrt beside it (an
// installed farmrt: scripts/setup.sh), then where the build put it (test
// programs live in another folder).
std::vector<std::string> module_candidates() {
    std::vector<std::string> paths;
    char self[4096] = {};
    const ssize_t length = readlink("/proc/self/exe", self, sizeof self - 1);
    if (length > 0) {
        std::string directory(self, size_t(length));
        directory = directory.substr(0, directory.rfind('/') + 1);
        paths.push_back(directory + FARMRT_OPENIMAGEIO_MODULE_NAME);
        paths.push_back(directory + "../lib/farmrt/" + FARMRT_OPENIMAGEIO_MODULE_NAME);
    }
    paths.push_back(FARMRT_OPENIMAGEIO_MODULE_PATH);
    return paths;
}
#endif

class ModuleLoader {
public:
    ~ModuleLoader() {
        // A background load still running at exit is waited for: the
        // dynamic loader must not be inside dlopen while the process ends.
        std::lock_guard<std::mutex> lock(thread_mutex_);
        if (preloader_.joinable()) preloader_.join();
    }

    const OiioFunctions* functions() {
        std::call_once(once_, [this] { load(); });
        return functions_;
    }
    const std::string& problem() {
        functions();
        return problem_;
    }
    void preload() {
        std::lock_guard<std::mutex> lock(thread_mutex_);
        if (preloader_.joinable()) return;
        preloader_ = std::thread([this] { functions(); });
    }

private:
    void load() {
#if FARMRT_HAVE_OPENIMAGEIO
        for (const std::string& path : module_candidates()) {
            void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
            if (!handle) {
                const char* error = dlerror();
                if (problem_.empty() && error) problem_ = error;
                continue;
            }
            using Entry = const OiioFunctions* (*)();
            const auto entry = reinterpret_cast<Entry>(dlsym(handle, "farmrt_openimageio_functions"));
            if (entry) {
                functions_ = entry();
                problem_.clear();
                return;
            }
            problem_ = path + ": not farmrt's OpenImageIO module";
        }
        problem_ = "cannot load farmrt's OpenImageIO module (" + problem_ + ")";
#else
        problem_ = "built without OpenImageIO";
#endif
    }

    std::once_flag once_;
    const OiioFunctions* functions_ = nullptr;
    std::string problem_;
    std::mutex thread_mutex_;
    std::thread preloader_;
};

ModuleLoader& loader() {
    static ModuleLoader instance;
    return instance;
}

}  // namespace

const OiioFunctions* openimageio() { return loader().functions(); }
std::string openimageio_problem() { return loader().problem(); }
void preload_openimageio() { loader().preload(); }

}  // namespace farmrt
