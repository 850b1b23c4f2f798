#include "mpi/farm_failure.h"

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <new>
#include <string>
#include <system_error>
#include <chrono>
#include <cstdlib>
#include <thread>

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

void print_error(const MpiSession& mpi, std::exception_ptr error) {
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
    const std::string who = mpi.who();
    std::fprintf(stderr, "%s%s%s\n", prefix, who.empty() ? "" : (who + ": ").c_str(), one_line(what).c_str());
    std::fflush(stderr);
}

void agree_on_failure(const MpiSession& mpi, MpiClock& clock, std::exception_ptr local_error) {
    if (mpi.size() == 1) {
        if (local_error) std::rethrow_exception(local_error);
        return;
    }
    // MINLOC over (failing rank or size, exit code): the lowest failing rank and its code.
    struct {
        int value, index;
    } mine{local_error ? mpi.rank() : mpi.size(), local_error ? exit_code_for(local_error) : 0}, first{0, 0};
    MPI_Request request;
    {
        MpiClock::Scope scope(clock);
        check_mpi(MPI_Iallreduce(&mine, &first, 1, MPI_2INT, MPI_MINLOC, MPI_COMM_WORLD, &request), "MPI_Iallreduce");
    }
    wait_sleeping(request, clock, "MPI_Iallreduce");
    if (first.value == mpi.size()) return;
    if (first.value == mpi.rank()) std::rethrow_exception(local_error);
    throw JobAbandoned{first.index};
}

namespace {

bool is_mpi_call_error(std::exception_ptr error) {
    try {
        std::rethrow_exception(error);
    } catch (const MpiCallError&) {
        return true;
    } catch (...) {
        return false;
    }
}

}  // namespace

void end_job_after_failure(const MpiSession& mpi, std::exception_ptr error) {
    if (mpi.size() > 1 && is_mpi_call_error(error)) {
        // A failed MPI call is most often the echo of a rank that has just
        // called MPI_Abort with its own message; the launcher stops this rank
        // within milliseconds, and the job's one error line stays the cause.
        // Only when nothing stops it is this rank's failure the news.
        std::this_thread::sleep_for(std::chrono::seconds(3));
    }
    print_error(mpi, error);
    const int code = exit_code_for(error);
    if (mpi.size() > 1) MPI_Abort(MPI_COMM_WORLD, code);
    std::_Exit(code);
}

}  // namespace farmrt
