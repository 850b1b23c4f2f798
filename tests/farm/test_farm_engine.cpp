// The farm engine (render/farm_engine.h) with workers it does not know: other
// "processes" simulated inside this one, reached through the WorkerSet
// interface as mpi/'s ranks are (render threads over CPU renderers of their
// own, numbered after this process's devices). No MPI anywhere: the whole
// job runs through run_farm_job with a Cluster of the test's making.
// Whatever the workers, the image is the bytes of a one-process job; a
// sequence of frames too; a worker that falls silent ends the job with the
// finished work checkpointed, and --resume then gives the same bytes.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "cmd/backends.h"
#include "cmd/command_line_parser.h"
#include "core/errors.h"
#include "core/stop_flag.h"
#include "io/scene_loader.h"
#include "render/cluster.h"
#include "render/device_group.h"
#include "render/farm_job.h"
#include "render/farm_workers.h"
#include "test_helpers.h"

namespace farmrt {
namespace {

std::string read_bytes(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// Simulated processes: each a one-thread CPU renderer with a render thread
// of its own, dealt to as the other ranks of a launch are.
class SimulatedProcesses : public WorkerSet {
public:
    // `bands` receives how many items they rendered, when the set ends.
    SimulatedProcesses(const Scene& scene, int count, int first_worker, uint64_t* bands) : bands_(bands) {
        std::vector<std::unique_ptr<BandRenderer>> renderers;
        for (int i = 0; i < count; ++i) {
            RendererOptions options;
            options.backend = "cpu";
            options.threads = 1;
            renderers.push_back(make_band_renderer(scene, options));
        }
        group_ = std::make_unique<DeviceGroup>(std::move(renderers));
        workers_ = std::make_unique<LocalWorkers>(*group_, FailureInjection{}, nullptr, wake_, first_worker);
    }
    ~SimulatedProcesses() override {
        for (const ItemWorker* worker : workers_->workers()) *bands_ += worker->bands_done();
    }
    bool collect(Dealer& dealer) override { return workers_->collect(dealer); }
    void deal(Dealer& dealer, bool activity) override { workers_->deal(dealer, activity); }
    void stop() override {}
    bool finished() const override { return workers_->finished(); }

private:
    uint64_t* bands_;
    WakeSignal wake_;
    std::unique_ptr<DeviceGroup> group_;  // only its members are used
    std::unique_ptr<LocalWorkers> workers_;
};

// A process that takes one item and never answers again.
class SilentProcess : public WorkerSet {
public:
    explicit SilentProcess(int worker) : worker_(worker) {}
    bool collect(Dealer&) override { return false; }
    void deal(Dealer& dealer, bool) override {
        if (holding_) return;
        RankAbility ability;
        ability.threads = ability.slots = 1;
        ability.thread_equivalents = 1;
        dealer.describe(worker_, ability, 0);
        WorkItem item;
        uint64_t tag = 0;
        if (dealer.next(worker_, 0, item, tag) != DealAnswer::Work) return;
        holding_ = true;
        since_ = std::chrono::steady_clock::now();
    }
    void stop() override {}
    void watch(Dealer& dealer) override {
        if (holding_ && std::chrono::steady_clock::now() - since_ > std::chrono::milliseconds(300)) {
            dealer.lost("process " + std::to_string(worker_) + " has not answered");
        }
    }
    bool finished() const override { return false; }

private:
    int worker_;
    bool holding_ = false;
    std::chrono::steady_clock::time_point since_;
};

// Process 0 of a job whose other processes are simulated; failures while
// rendering come back to the test as exceptions.
class SimulatedCluster : public Cluster {
public:
    SimulatedCluster(const std::string& scene_file, int processes, bool silent_last)
        : processes_(processes), silent_last_(silent_last) {
        description_ = load_scene_file(scene_file, {});
        description_.scene.build_acceleration();
    }
    int rank() const override { return 0; }
    int size() const override { return 1 + processes_ + (silent_last_ ? 1 : 0); }
    int processes_on_node() const override { return 1; }
    const std::string& host() const override { return host_; }
    std::string who() const override { return ""; }
    void agree_on_failure(std::exception_ptr error) override {
        if (error) std::rethrow_exception(error);
    }
    [[noreturn]] void end_job_after_failure(std::exception_ptr error) override { std::rethrow_exception(error); }
    void ready_job(const JobMessage&) override {}
    uint64_t share_job(JobMessage&) override { return 0; }
    void barrier(double) override {}
    std::vector<RankReport> gather_reports(const RankReport& mine, double) override {
        std::vector<RankReport> reports(size_t(size()), mine);
        for (int rank = 1; rank < size(); ++rank) reports[size_t(rank)].rank = rank;
        return reports;
    }
    double communicating_seconds() const override { return 0; }

    // The simulated processes, and the silent one after them.
    class Others : public WorkerSet {
    public:
        std::vector<std::unique_ptr<WorkerSet>> sets;
        bool collect(Dealer& dealer) override {
            bool activity = false;
            for (auto& set : sets) activity = set->collect(dealer) || activity;
            return activity;
        }
        void deal(Dealer& dealer, bool activity) override {
            for (auto& set : sets) set->deal(dealer, activity);
        }
        void stop() override {}
        void watch(Dealer& dealer) override {
            for (auto& set : sets) set->watch(dealer);
        }
        bool finished() const override {
            for (const auto& set : sets) {
                if (!set->finished()) return false;
            }
            return true;
        }
    };

    std::unique_ptr<WorkerSet> other_processes(RankReport&, double, int first_worker) override {
        auto others = std::make_unique<Others>();
        others->sets.push_back(
            std::make_unique<SimulatedProcesses>(description_.scene, processes_, first_worker, &bands));
        if (silent_last_) others->sets.push_back(std::make_unique<SilentProcess>(first_worker + processes_));
        return others;
    }
    void serve(const RenderContext&, const SceneDescription&, RankReport&, double, TimePoint&, TimePoint&) override {
        FAIL() << "process 0 serves no one";
    }

    uint64_t bands = 0;  // items the simulated processes rendered

private:
    int processes_;
    bool silent_last_;
    std::string host_ = "test";
    SceneDescription description_;
};

class FarmEngine : public ::testing::Test {
protected:
    void SetUp() override {
        withdraw_stop_request();
        directory_ = std::filesystem::temp_directory_path() /
                     ("farmrt_engine_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
        std::filesystem::remove_all(directory_);
        std::filesystem::create_directories(directory_);
    }
    void TearDown() override { std::filesystem::remove_all(directory_); }

    // Renders `scene` to `output` (in the test's folder) with `cluster`.
    int render(Cluster& cluster, const std::string& output, std::vector<std::string> extra = {},
               const Backends& backends = available_backends()) {
        std::vector<std::string> arguments = {testing::source_path("configs/tiny.yaml"),
                                              "-q",
                                              "--width",
                                              "64",
                                              "--height",
                                              "40",
                                              "--spp",
                                              "24",
                                              "--threads",
                                              "1",
                                              "--pass-samples",
                                              "4",
                                              "-o",
                                              (directory_ / output).string()};
        arguments.insert(arguments.end(), extra.begin(), extra.end());
        const CommandLine command_line = parse_command_line(arguments);
        return run_farm_job(command_line, backends, cluster);
    }

    std::filesystem::path directory_;
};

TEST_F(FarmEngine, WorkersOfOtherProcessesGiveTheBytesOfOneProcess) {
    OneProcess alone;
    ASSERT_EQ(render(alone, "alone.pfm"), 0);
    const std::string expected = read_bytes(directory_ / "alone.pfm");
    ASSERT_GT(expected.size(), size_t(64 * 40 * 12));
    for (int processes : {1, 3}) {
        SimulatedCluster cluster(testing::source_path("configs/tiny.yaml"), processes, false);
        const std::string name = "with_" + std::to_string(processes) + ".pfm";
        ASSERT_EQ(render(cluster, name), 0);
        EXPECT_EQ(read_bytes(directory_ / name), expected) << processes << " simulated processes";
        EXPECT_GT(cluster.bands, uint64_t(processes)) << "the other processes were dealt too little to matter";
    }
}

// The GPU driver starts once, before the renderer is made, where the backend
// may use a GPU; never for --backend cpu. The image does not depend on it.
TEST_F(FarmEngine, TheGpuDriverStartsBeforeTheRendererOnlyWhereAGpuMayRender) {
    OneProcess plain;
    ASSERT_EQ(render(plain, "plain.pfm", {"--backend", "cpu"}), 0);
    const std::string expected = read_bytes(directory_ / "plain.pfm");
    ASSERT_FALSE(expected.empty());
    for (const char* backend : {"cpu", "auto"}) {
        std::vector<std::string> events;  // in the order they happened
        std::mutex mutex;
        Backends backends = available_backends();
        const auto make_renderer = backends.make_renderer;
        backends.make_renderer = [&](const Scene& scene, const RendererOptions& options) {
            {
                std::lock_guard<std::mutex> lock(mutex);
                events.push_back("renderer");
            }
            return make_renderer(scene, options);
        };
        backends.start_gpu_driver = [&](const std::string& asked) {
            std::lock_guard<std::mutex> lock(mutex);
            events.push_back("driver " + asked);
        };
        OneProcess alone;
        const std::string name = std::string("with_") + backend + ".pfm";
        // (With a GPU, auto renders there: exact math gives the CPU's bytes.)
        ASSERT_EQ(render(alone, name, {"--backend", backend}, backends), 0);
        EXPECT_EQ(read_bytes(directory_ / name), expected) << backend;
        const std::vector<std::string> wanted = std::string(backend) == "cpu"
                                                    ? std::vector<std::string>{"renderer"}
                                                    : std::vector<std::string>{"driver auto", "renderer"};
        EXPECT_EQ(events, wanted) << backend;
    }
}

TEST_F(FarmEngine, ASequenceDealtToOtherProcessesGivesTheSameFrames) {
    OneProcess alone;
    ASSERT_EQ(render(alone, "alone_####.pfm", {"--frames", "1-3"}), 0);
    SimulatedCluster cluster(testing::source_path("configs/tiny.yaml"), 2, false);
    ASSERT_EQ(render(cluster, "dealt_####.pfm", {"--frames", "1-3"}), 0);
    EXPECT_GT(cluster.bands, uint64_t(3));
    for (const char* frame : {"0001", "0002", "0003"}) {
        const std::string expected = read_bytes(directory_ / ("alone_" + std::string(frame) + ".pfm"));
        ASSERT_FALSE(expected.empty()) << frame;
        EXPECT_EQ(read_bytes(directory_ / ("dealt_" + std::string(frame) + ".pfm")), expected) << frame;
    }
}

TEST_F(FarmEngine, ASilentProcessEndsTheJobWithTheFinishedWorkCheckpointed) {
    SimulatedCluster cluster(testing::source_path("configs/tiny.yaml"), 1, true);
    try {
        render(cluster, "lost.pfm");
        FAIL() << "the job ended without its lost process";
    } catch (const RenderError& error) {
        const std::string what = error.what();
        EXPECT_NE(what.find("has not answered"), std::string::npos) << what;
        EXPECT_NE(what.find("checkpointed"), std::string::npos) << what;
    }
    EXPECT_FALSE(std::filesystem::exists(directory_ / "lost.pfm")) << "an image of a frame not finished";
    bool checkpoint = false;
    for (const auto& entry : std::filesystem::directory_iterator(directory_)) {
        if (entry.path().filename().string().find("lost.pfm") == 0 && entry.path() != directory_ / "lost.pfm")
            checkpoint = true;
    }
    ASSERT_TRUE(checkpoint) << "no checkpoint beside lost.pfm";

    // Resumed in one process: the bytes of an uninterrupted render.
    withdraw_stop_request();  // the failed job stopped its render threads
    OneProcess alone;
    ASSERT_EQ(render(alone, "lost.pfm", {"--resume"}), 0);
    ASSERT_EQ(render(alone, "whole.pfm"), 0);
    EXPECT_EQ(read_bytes(directory_ / "lost.pfm"), read_bytes(directory_ / "whole.pfm"));
}

}  // namespace
}  // namespace farmrt
