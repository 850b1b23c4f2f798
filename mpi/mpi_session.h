// The process's MPI life: initialisation (MPI_THREAD_FUNNELED: only the main
// thread calls MPI; render threads never do), who we are, and the few helpers
// every part of the farm uses: error checks and waits that sleep instead of spin.
#pragma once

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <string>

#include "core/errors.h"
#include "render/item_worker.h"

namespace farmrt {

class MpiSession {
public:
    // Starts MPI (MPI_Init_thread): under a launcher (mpirun, srun).
    MpiSession(int* argc, char*** argv);
    ~MpiSession();  // MPI_Finalize
    MpiSession(const MpiSession&) = delete;
    MpiSession& operator=(const MpiSession&) = delete;

    int rank() const { return rank_; }
    int size() const { return size_; }
    const std::string& host() const { return host_; }
    // Ranks of this job on this node (sharing its memory and cores).
    int ranks_on_node() const { return ranks_on_node_; }
    // "rank 3 (node17)" for messages; empty in a one-rank job.
    std::string who() const;

private:
    int rank_ = 0, size_ = 1, ranks_on_node_ = 1;
    bool started_mpi_ = false;
    std::string host_;
};

// Whether a launcher started this process as an MPI rank (mpirun, mpiexec,
// srun with PMI or PMIx): its environment says so.
bool started_by_launcher();

// A failed MPI call. Often the echo of another rank's failure: when a rank
// calls MPI_Abort, the others may see their pending operations fail before
// the launcher stops them.
struct MpiCallError : RenderError {
    using RenderError::RenderError;
};

// Throws MpiCallError("what: <MPI error text>") unless `code` is MPI_SUCCESS.
void check_mpi(int code, const char* what);

// Accumulates the seconds spent inside MPI calls (a rank's "communicating").
class MpiClock {
public:
    class Scope {
    public:
        explicit Scope(MpiClock& clock) : clock_(clock), start_(std::chrono::steady_clock::now()) {}
        ~Scope() { clock_.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count(); }

    private:
        MpiClock& clock_;
        std::chrono::steady_clock::time_point start_;
    };
    double seconds = 0;
};

// Waits for `request` by testing it and sleeping between tests (50 us growing
// to 2 ms): a rank that waits for others must not spin on a core that a
// busier rank could use (oversubscribed nodes, rank 0's parse, the job's tail).
// With a timeout (seconds; 0 = none), throws RenderError when it passes.
void wait_sleeping(MPI_Request& request, MpiClock& clock, const char* what, double timeout_seconds = 0);

}  // namespace farmrt
