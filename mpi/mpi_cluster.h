// The ranks of an MPI launch (mpirun, srun) as the farm's Cluster: the
// collectives of a job's set-up and end (MPI_COMM_WORLD), rank 0's
// conversation with the other ranks (mpi/rank_workers.h) and theirs with it
// (mpi/farm_worker.h). Only the main thread of a rank calls MPI.
#pragma once

#include "mpi/mpi_session.h"
#include "render/cluster.h"

namespace farmrt {

class MpiCluster : public Cluster {
public:
    // Starts MPI (MPI_Init_thread).
    MpiCluster(int* argc, char*** argv);

    int rank() const override { return session_.rank(); }
    int size() const override { return session_.size(); }
    int processes_on_node() const override { return session_.ranks_on_node(); }
    const std::string& host() const override { return session_.host(); }
    std::string who() const override { return session_.who(); }
    void agree_on_failure(std::exception_ptr local_error) override;
    [[noreturn]] void end_job_after_failure(std::exception_ptr error) override;
    void ready_job(const JobMessage& job) override;
    uint64_t share_job(JobMessage& job) override;
    void barrier(double timeout_seconds) override;
    std::vector<RankReport> gather_reports(const RankReport& mine, double timeout_seconds) override;
    double communicating_seconds() const override { return clock_.seconds; }
    std::unique_ptr<WorkerSet> other_processes(RankReport& report, double timeout_seconds, int first_worker) override;
    void serve(const RenderContext& context, const SceneDescription& description, RankReport& report,
               double timeout_seconds, TimePoint& first_start, TimePoint& last_end) override;

private:
    MpiSession session_;
    MpiClock clock_;
    std::vector<char> job_bytes_;  // rank 0: the job, from ready_job to share_job
};

}  // namespace farmrt
