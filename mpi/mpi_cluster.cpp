#include "mpi/mpi_cluster.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <thread>

#include "mpi/farm_worker.h"
#include "mpi/job_message.h"
#include "mpi/rank_workers.h"
#include "render/farm_failure.h"

namespace farmrt {

MpiCluster::MpiCluster(int* argc, char*** argv) : session_(argc, argv) {}

void MpiCluster::agree_on_failure(std::exception_ptr local_error) {
    if (size() == 1) {
        if (local_error) std::rethrow_exception(local_error);
        return;
    }
    // MINLOC over (failing rank or size, exit code): the lowest failing rank and its code.
    struct {
        int value, index;
    } mine{local_error ? rank() : size(), local_error ? exit_code_for(local_error) : 0}, first{0, 0};
    MPI_Request request;
    {
        MpiClock::Scope scope(clock_);
        check_mpi(MPI_Iallreduce(&mine, &first, 1, MPI_2INT, MPI_MINLOC, MPI_COMM_WORLD, &request), "MPI_Iallreduce");
    }
    wait_sleeping(request, clock_, "MPI_Iallreduce");
    if (first.value == size()) return;
    if (first.value == rank()) std::rethrow_exception(local_error);
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

void MpiCluster::end_job_after_failure(std::exception_ptr error) {
    if (size() > 1 && is_mpi_call_error(error)) {
        // A failed MPI call is most often the echo of a rank that has just
        // called MPI_Abort with its own message; the launcher stops this rank
        // within milliseconds, and the job's one error line stays the cause.
        // Only when nothing stops it is this rank's failure the news.
        std::this_thread::sleep_for(std::chrono::seconds(3));
    }
    print_error(who(), error);
    const int code = exit_code_for(error);
    if (size() > 1) MPI_Abort(MPI_COMM_WORLD, code);
    std::_Exit(code);
}

void MpiCluster::ready_job(const JobMessage& job) {
    if (size() > 1) job_bytes_ = serialize_job(job);
}

uint64_t MpiCluster::share_job(JobMessage& job) {
    if (size() == 1) return 0;
    std::vector<char>& bytes = job_bytes_;
    uint64_t count = bytes.size();
    MPI_Request request;
    {
        MpiClock::Scope scope(clock_);
        check_mpi(MPI_Ibcast(&count, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD, &request), "MPI_Ibcast (job size)");
    }
    wait_sleeping(request, clock_, "MPI_Ibcast (job size)");
    bytes.resize(size_t(count));
    // In pieces: MPI counts are int.
    constexpr size_t kPiece = size_t(1) << 30;
    for (size_t offset = 0; offset < bytes.size(); offset += kPiece) {
        const int piece = int(std::min(kPiece, bytes.size() - offset));
        {
            MpiClock::Scope scope(clock_);
            check_mpi(MPI_Ibcast(bytes.data() + offset, piece, MPI_BYTE, 0, MPI_COMM_WORLD, &request),
                      "MPI_Ibcast (job)");
        }
        wait_sleeping(request, clock_, "MPI_Ibcast (job)");
    }
    const uint64_t sent = rank() == 0 ? bytes.size() : 0;
    if (rank() != 0) job = deserialize_job(bytes);
    std::vector<char>().swap(bytes);
    return sent;
}

void MpiCluster::barrier(double timeout_seconds) {
    if (size() == 1) return;
    MPI_Request request;
    {
        MpiClock::Scope scope(clock_);
        check_mpi(MPI_Ibarrier(MPI_COMM_WORLD, &request), "MPI_Ibarrier");
    }
    wait_sleeping(request, clock_, "MPI_Ibarrier", timeout_seconds);
}

std::vector<RankReport> MpiCluster::gather_reports(const RankReport& mine, double timeout_seconds) {
    std::vector<RankReport> reports(rank() == 0 ? size_t(size()) : 0);
    if (size() == 1) {
        reports[0] = mine;
        return reports;
    }
    MPI_Request request;
    {
        MpiClock::Scope scope(clock_);
        check_mpi(MPI_Igather(&mine, int(sizeof(RankReport)), MPI_BYTE, reports.data(), int(sizeof(RankReport)),
                              MPI_BYTE, 0, MPI_COMM_WORLD, &request),
                  "MPI_Igather");
    }
    wait_sleeping(request, clock_, "MPI_Igather", timeout_seconds);
    return reports;
}

std::unique_ptr<WorkerSet> MpiCluster::other_processes(RankReport& report, double timeout_seconds, int first_worker) {
    if (size() == 1) return nullptr;
    return std::make_unique<RankWorkers>(session_, clock_, report, timeout_seconds, first_worker);
}

void MpiCluster::serve(const RenderContext& context, const SceneDescription& description, RankReport& report,
                       double timeout_seconds, TimePoint& first_start, TimePoint& last_end) {
    render_frames_as_worker(clock_, context, description, report, timeout_seconds, first_start, last_end);
}

}  // namespace farmrt
