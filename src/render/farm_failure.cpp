#include "render/farm_failure.h"

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <new>
#include <string>
#include <system_error>

#include "core/errors.h"
#include "render/frame_log.h"
#include "render/interrupt.h"

namespace farmrt {
namespace {

// The process's peak resident memory and the machine's, for an out-of-memory line.
std::string describe_memory() {
    const uint64_t peak_bytes = peak_resident_bytes();
    const std::string peak = peak_bytes > 0 ? std::to_string(peak_bytes >> 20) + " MiB" : "?";
    const long pages = sysconf(_SC_PHYS_PAGES), page_size = sysconf(_SC_PAGE_SIZE);
    const std::string machine =
        pages > 0 && page_size > 0 ? std::to_string((uint64_t(pages) * uint64_t(page_size)) >> 20) + " MiB" : "?";
    return "peak resident " + peak + " of the machine's " + machine;
}

}  // namespace

int exit_code_for(std::exception_ptr error) {
    try {
        std::rethrow_exception(error);
    } catch (const InputError&) {
        return 2;
    } catch (const StoppedBeforeRendering&) {
        return kExitInterrupted;
    } catch (...) {
        return 1;
    }
}

void print_error(const std::string& who, std::exception_ptr error) {
    std::string what = "unknown failure";
    const char* prefix = "farmrt: error: ";
    try {
        std::rethrow_exception(error);
    } catch (const std::bad_alloc&) {
        // Named for what ran out, not as the library's "std::bad_alloc".
        what = "out of memory: this machine could not allocate what the job needs (" + describe_memory() + ")";
    } catch (const StoppedBeforeRendering& e) {
        prefix = "farmrt: ";  // a stop asked for, not a failure
        what = e.what();
    } catch (const std::system_error& e) {
        what = std::string("the system refused a resource (threads or files): ") + e.what();
    } catch (const std::exception& e) {
        what = e.what();
    } catch (...) {}
    std::fprintf(stderr, "%s%s%s\n", prefix, who.empty() ? "" : (who + ": ").c_str(), one_line(what).c_str());
    std::fflush(stderr);
}

}  // namespace farmrt
