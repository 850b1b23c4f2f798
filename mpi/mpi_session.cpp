#include "mpi/mpi_session.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <thread>

#include "core/errors.h"

namespace farmrt {

void check_mpi(int code, const char* what) {
    if (code == MPI_SUCCESS) return;
    char text[MPI_MAX_ERROR_STRING];
    int length = 0;
    MPI_Error_string(code, text, &length);
    throw MpiCallError(std::string(what) + ": " + std::string(text, size_t(std::max(length, 0))));
}

MpiSession::MpiSession(int* argc, char*** argv) {
    int provided = 0;
    if (MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
        throw RenderError("MPI_Init_thread failed");
    }
    started_mpi_ = true;
    // Errors come back as codes and become exceptions, so that the failing
    // rank prints one line naming itself before the job is taken down.
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (provided < MPI_THREAD_FUNNELED)
        throw RenderError("the MPI library does not support threads (MPI_THREAD_FUNNELED)");
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
    char name[MPI_MAX_PROCESSOR_NAME] = {};
    int length = 0;
    MPI_Get_processor_name(name, &length);
    host_.assign(name, size_t(std::max(length, 0)));
    MPI_Comm node;
    check_mpi(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &node),
              "MPI_Comm_split_type");
    MPI_Comm_size(node, &ranks_on_node_);
    MPI_Comm_free(&node);
}

MpiSession::~MpiSession() {
    if (started_mpi_) MPI_Finalize();
}

bool started_by_launcher() {
    for (const char* variable :
         {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE", "MPI_LOCALNRANKS", "MV2_COMM_WORLD_SIZE"}) {
        if (std::getenv(variable)) return true;
    }
    return false;
}

std::string MpiSession::who() const {
    if (size_ == 1) return "";
    return "rank " + std::to_string(rank_) + " (" + host_ + ")";
}

void wait_sleeping(MPI_Request& request, MpiClock& clock, const char* what, double timeout_seconds) {
    PollBackoff backoff;
    const auto start = std::chrono::steady_clock::now();
    for (;;) {
        int done = 0;
        {
            MpiClock::Scope scope(clock);
            check_mpi(MPI_Test(&request, &done, MPI_STATUS_IGNORE), what);
        }
        if (done) return;
        if (timeout_seconds > 0 &&
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() > timeout_seconds) {
            throw RenderError(std::string(what) + ": a rank did not answer within " +
                              std::to_string(int(timeout_seconds)) + " s (stopped, hung or unreachable)");
        }
        std::this_thread::sleep_for(backoff.next());
    }
}

}  // namespace farmrt
