// The processes of a job, as the farm sees them. A job is one process
// (OneProcess, below: no MPI, nothing to exchange) or the ranks of an MPI
// launch (mpi/mpi_cluster.h); the farm engine, the job's steps and the
// summary are the same for both and never speak MPI themselves. Process 0
// reads the scene and deals the work; the others receive the scene and
// render what it deals them.
#pragma once

#include <chrono>
#include <exception>
#include <memory>
#include <string>
#include <vector>

#include "render/farm_report.h"

namespace farmrt {

using Clock = std::chrono::steady_clock;
using TimePoint = Clock::time_point;

class WorkerSet;
struct JobMessage;
struct RenderContext;
struct SceneDescription;

class Cluster {
public:
    virtual ~Cluster() = default;

    virtual int rank() const = 0;  // this process; 0 deals
    virtual int size() const = 0;  // processes in the job
    virtual int processes_on_node() const = 0;
    virtual const std::string& host() const = 0;
    // "rank 3 (node17)" for messages; empty in a one-process job.
    virtual std::string who() const = 0;

    // Every process reports whether its step failed. Returns when none did;
    // otherwise the lowest failing process rethrows its error (the caller
    // prints it) and every other one throws JobAbandoned with its exit code.
    virtual void agree_on_failure(std::exception_ptr local_error) = 0;
    // Prints the error and ends the whole job at once. For failures while
    // other processes may be rendering.
    [[noreturn]] virtual void end_job_after_failure(std::exception_ptr error) = 0;

    // Process 0, after reading the scene: readies the job for the others
    // (its failure is agreed on with the step's). Then every process calls
    // share_job: process 0 sends what it readied, the others receive it into
    // `job`. Returns the bytes this process sent.
    virtual void ready_job(const JobMessage& job) = 0;
    virtual uint64_t share_job(JobMessage& job) = 0;
    // Waits for every process, at most `timeout_seconds` (0: no limit).
    virtual void barrier(double timeout_seconds) = 0;
    // Every process's report, on process 0 (empty elsewhere).
    virtual std::vector<RankReport> gather_reports(const RankReport& mine, double timeout_seconds) = 0;
    // Seconds this process has spent exchanging messages.
    virtual double communicating_seconds() const = 0;

    // Process 0: the other processes as workers of the dealer, numbered from
    // `first_worker`; null when there are none. One that does not answer
    // within `timeout_seconds` ends the job. What process 0 sends counts in `report`.
    virtual std::unique_ptr<WorkerSet> other_processes(RankReport& report, double timeout_seconds,
                                                       int first_worker) = 0;
    // A process other than 0: renders what process 0 deals it until told
    // there is no more.
    // `first_start` and `last_end`: when its first item started and its
    // last ended (epoch when none did).
    virtual void serve(const RenderContext& context, const SceneDescription& description, RankReport& report,
                       double timeout_seconds, TimePoint& first_start, TimePoint& last_end) = 0;
};

// A job of one process: nothing to agree on or exchange.
class OneProcess : public Cluster {
public:
    OneProcess();
    int rank() const override { return 0; }
    int size() const override { return 1; }
    int processes_on_node() const override { return 1; }
    const std::string& host() const override { return host_; }
    std::string who() const override { return ""; }
    void agree_on_failure(std::exception_ptr local_error) override;
    [[noreturn]] void end_job_after_failure(std::exception_ptr error) override;
    void ready_job(const JobMessage&) override {}
    uint64_t share_job(JobMessage&) override { return 0; }
    void barrier(double) override {}
    std::vector<RankReport> gather_reports(const RankReport& mine, double) override { return {mine}; }
    double communicating_seconds() const override { return 0; }
    std::unique_ptr<WorkerSet> other_processes(RankReport&, double, int) override;
    void serve(const RenderContext&, const SceneDescription&, RankReport&, double, TimePoint&, TimePoint&) override;

private:
    std::string host_;
};

}  // namespace farmrt
