// The frame farm's work queue, without MPI: simulated ranks take items in a
// random order, finish them out of order, stop and resume; every pixel must
// end with exactly the floats of adding its samples in order, each sample once.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <random>

#include "render/frame_queue.h"

namespace farmrt {
namespace {

constexpr uint32_t kWidth = 7, kHeight = 23, kSpp = 13;

// A sample's value: order-sensitive in float (adding in another order changes bits).
float sample_value(uint32_t frame, uint32_t pixel, uint32_t sample, int channel) {
    return float(std::sin(double(frame * 7919 + pixel * 104729 + sample * 31 + channel * 17))) * 1e3f +
           0.1f * float(sample);
}

std::vector<float> reference_sums(uint32_t frame, uint32_t samples = kSpp) {
    std::vector<float> sums(size_t(kWidth) * kHeight * 3, 0.0f);
    for (uint32_t pixel = 0; pixel < kWidth * kHeight; ++pixel) {
        for (uint32_t s = 0; s < samples; ++s) {
            for (int c = 0; c < 3; ++c) sums[pixel * 3 + c] += sample_value(frame, pixel, s, c);
        }
    }
    return sums;
}

struct Simulation {
    std::map<uint32_t, std::vector<float>> written;                      // frame -> sums at completion
    std::map<uint32_t, Checkpoint> checkpoints;                          // frame -> state when stopped
    std::map<uint32_t, uint32_t> written_spp;                            // frame -> the samples it ended with
    std::map<std::pair<uint32_t, uint32_t>, uint32_t> samples_rendered;  // (frame, row) -> samples added here
    int items = 0;
};

// Runs a queue with `ranks` simulated ranks until it finishes (or `stop_after` items, then stops).
void simulate(FrameQueue& queue, int ranks, std::mt19937& random, Simulation& simulation, int stop_after = -1) {
    struct Out {
        WorkItem item;
        std::vector<float> sums;
    };
    std::vector<std::vector<Out>> out{size_t(ranks)};
    std::vector<bool> done(size_t(ranks), false);
    std::vector<int> row_out(kHeight * 64, 0);
    for (int guard = 0; guard < 1000000; ++guard) {
        // Frames complete: "write" them.
        for (uint32_t slot : queue.take_completed()) {
            simulation.written[queue.task(slot).frame] = queue.accumulator(slot).sums();
            simulation.written_spp[queue.task(slot).frame] = queue.accumulator(slot).target();
            queue.close(slot);
        }
        if (queue.finished() && std::all_of(out.begin(), out.end(), [](const auto& o) { return o.empty(); })) break;
        const int rank = int(random() % uint32_t(ranks));
        auto& mine = out[size_t(rank)];
        const bool finish = !mine.empty() && (mine.size() >= 2 || done[size_t(rank)] || random() % 2 == 0);
        if (finish) {
            // Finish one of this rank's items (not always the oldest: ranks differ).
            const size_t which = random() % mine.size();
            Out o = std::move(mine[which]);
            mine.erase(mine.begin() + ptrdiff_t(which));
            // After a stop an item may come back cut short: its first rows
            // whole (the CPU), the others with their first samples (a GPU's
            // passes), or both.
            uint32_t rows_done = o.item.rows.count(), samples_done = 0;
            if (queue.stopped()) {
                rows_done = uint32_t(random() % (o.item.rows.count() + 1));
                if (random() % 2 == 0) samples_done = uint32_t(random() % (o.item.samples.count() + 1));
            }
            for (uint32_t row = o.item.rows.begin; row < o.item.rows.end; ++row) {
                const uint32_t samples = row - o.item.rows.begin < rows_done ? o.item.samples.count() : samples_done;
                for (uint32_t x = 0; x < kWidth; ++x) {
                    const uint32_t pixel = row * kWidth + x;
                    float* sum = &o.sums[size_t((row - o.item.rows.begin) * kWidth + x) * 3];
                    for (uint32_t s = o.item.samples.begin; s < o.item.samples.begin + samples; ++s) {
                        for (int c = 0; c < 3; ++c) sum[c] += sample_value(o.item.frame, pixel, s, c);
                    }
                }
                simulation.samples_rendered[{o.item.frame, row}] += samples;
                --row_out[o.item.frame * kHeight + row];
            }
            if (rows_done == o.item.rows.count())
                queue.complete(o.item, o.sums.data());
            else
                queue.complete_part(o.item, rows_done, samples_done, o.sums.data());
            if (++simulation.items == stop_after) queue.stop();
            continue;
        }
        if (done[size_t(rank)]) continue;
        WorkItem item;
        const DealAnswer answer = queue.next(rank, int(mine.size()), item);
        if (answer == DealAnswer::Done) done[size_t(rank)] = true;
        if (answer != DealAnswer::Work) continue;
        ASSERT_LT(item.rows.begin, item.rows.end);
        ASSERT_LE(item.rows.end, kHeight);
        ASSERT_LT(item.samples.begin, item.samples.end);
        ASSERT_LE(item.samples.end, kSpp);
        for (uint32_t row = item.rows.begin; row < item.rows.end; ++row) {
            ASSERT_EQ(row_out[item.frame * kHeight + row]++, 0)
                << "two items out for frame " << item.frame << " row " << row;
        }
        Out o{item, {}};
        const float* from = queue.starting_sums(item);
        o.sums.assign(from, from + size_t(item.rows.count()) * kWidth * 3);
        if (item.samples.begin == 0) {
            for (float v : o.sums) ASSERT_EQ(v, 0.0f);
        }
        mine.push_back(std::move(o));
    }
    for (uint32_t slot : queue.open_slots())
        simulation.checkpoints[queue.task(slot).frame] = queue.accumulator(slot).checkpoint();
}

std::vector<PlannedFrame> tasks_for(const std::vector<uint32_t>& frames) {
    std::vector<PlannedFrame> tasks;
    for (uint32_t f : frames)
        tasks.push_back(PlannedFrame{f, "f" + std::to_string(f), "f" + std::to_string(f) + ".checkpoint"});
    return tasks;
}

FrameQueueOptions options_for(int ranks, uint32_t band_rows, uint32_t pass_samples, size_t max_open) {
    FrameQueueOptions options;
    options.width = kWidth;
    options.height = kHeight;
    options.spp = kSpp;
    options.ranks = ranks;
    options.band_rows = band_rows;
    options.pass_samples = pass_samples;
    options.max_open_frames = max_open;
    return options;
}

TEST(FrameQueue, EveryPixelGetsItsSamplesInOrderOnce) {
    const std::vector<uint32_t> frames = {2, 5, 9, 10};
    std::mt19937 random(7);
    for (int ranks : {1, 2, 5}) {
        for (uint32_t band_rows : {0u, 1u, 4u}) {
            for (uint32_t pass : {1u, 4u, 13u}) {
                for (size_t open : {size_t(1), size_t(3)}) {
                    FrameQueue queue(options_for(ranks, band_rows, pass, open), tasks_for(frames),
                                     [](const PlannedFrame& t) {
                                         return std::make_unique<FrameAccumulator>(kWidth, kHeight, kSpp,
                                                                                   "id" + std::to_string(t.frame));
                                     });
                    Simulation simulation;
                    simulate(queue, ranks, random, simulation);
                    ASSERT_EQ(simulation.written.size(), frames.size());
                    for (uint32_t f : frames) {
                        const std::vector<float> expected = reference_sums(f);
                        ASSERT_EQ(0, std::memcmp(expected.data(), simulation.written[f].data(), expected.size() * 4))
                            << "frame " << f << " ranks " << ranks << " band " << band_rows << " pass " << pass;
                        for (uint32_t row = 0; row < kHeight; ++row) {
                            ASSERT_EQ((simulation.samples_rendered[{f, row}]), kSpp);
                        }
                    }
                }
            }
        }
    }
}

TEST(FrameQueue, StoppedAndResumedWithOtherRankCountsIsBitIdentical) {
    const std::vector<uint32_t> frames = {1, 2, 3};
    const std::filesystem::path directory =
        std::filesystem::temp_directory_path() / ("farmrt_queue_" + std::to_string(getpid()));
    std::filesystem::create_directories(directory);
    std::mt19937 random(11);
    for (int trial = 0; trial < 6; ++trial) {
        std::map<uint32_t, std::vector<float>> written;
        std::map<uint32_t, Checkpoint> checkpoints;
        std::map<std::pair<uint32_t, uint32_t>, uint32_t> rendered;  // (frame, row) -> samples, over the runs
        std::vector<uint32_t> remaining = frames;
        for (int run = 0; !remaining.empty(); ++run) {
            ASSERT_LT(run, 200);
            const int ranks = 1 + int(random() % 4);
            FrameQueue queue(options_for(ranks, random() % 3, random() % 5, 1 + random() % 3), tasks_for(remaining),
                             [&](const PlannedFrame& t) {
                                 auto accumulator = std::make_unique<FrameAccumulator>(kWidth, kHeight, kSpp,
                                                                                       "id" + std::to_string(t.frame));
                                 auto found = checkpoints.find(t.frame);
                                 if (found != checkpoints.end()) {
                                     const std::string path = (directory / ("f" + std::to_string(t.frame))).string();
                                     write_checkpoint(path, found->second);
                                     accumulator->resume_from(path);
                                 }
                                 return accumulator;
                             });
            Simulation simulation;
            simulate(queue, ranks, random, simulation, 1 + int(random() % 12));
            for (auto& [frame, sums] : simulation.written) {
                written[frame] = sums;
                checkpoints.erase(frame);
            }
            for (auto& [frame, checkpoint] : simulation.checkpoints) checkpoints[frame] = checkpoint;
            // Nothing handed back is lost: each row of a checkpoint holds
            // every sample rendered for it in this run and the runs before.
            for (const auto& [key, samples] : simulation.samples_rendered) rendered[key] += samples;
            for (const auto& [frame, checkpoint] : checkpoints) {
                for (uint32_t row = 0; row < kHeight; ++row) {
                    ASSERT_EQ(checkpoint.sample_counts[size_t(row) * kWidth], (rendered[{frame, row}]))
                        << "trial " << trial << " frame " << frame << " row " << row;
                }
            }
            remaining.clear();
            for (uint32_t f : frames) {
                if (!written.count(f)) remaining.push_back(f);
            }
        }
        for (uint32_t f : frames) {
            const std::vector<float> expected = reference_sums(f);
            ASSERT_EQ(0, std::memcmp(expected.data(), written[f].data(), expected.size() * 4)) << "trial " << trial;
        }
    }
    std::filesystem::remove_all(directory);
}

// A frame past its time limit starts no new pass: with a limit that has
// always passed, each frame ends after its first pass, every row at that
// pass's count, its sums those of the first samples in order.
TEST(FrameQueue, TimeLimitEndsEachFrameAtAPassBoundary) {
    const std::vector<uint32_t> frames = {3, 4, 8};
    std::mt19937 random(5);
    for (int ranks : {1, 3}) {
        for (uint32_t pass : {4u, 13u}) {
            FrameQueueOptions options = options_for(ranks, 0, pass, 2);
            options.time_limit_seconds = 1e-9;
            FrameQueue queue(options, tasks_for(frames), [](const PlannedFrame& t) {
                return std::make_unique<FrameAccumulator>(kWidth, kHeight, kSpp, "id" + std::to_string(t.frame));
            });
            Simulation simulation;
            simulate(queue, ranks, random, simulation);
            ASSERT_EQ(simulation.written.size(), frames.size());
            for (uint32_t f : frames) {
                EXPECT_EQ(simulation.written_spp[f], pass) << "frame " << f;
                const std::vector<float> expected = reference_sums(f, pass);
                ASSERT_EQ(0, std::memcmp(expected.data(), simulation.written[f].data(), expected.size() * 4))
                    << "frame " << f << " ranks " << ranks << " pass " << pass;
                for (uint32_t row = 0; row < kHeight; ++row) ASSERT_EQ((simulation.samples_rendered[{f, row}]), pass);
            }
        }
    }
}

// A frame resumed with its rows at several counts (a stopped pass) is first
// brought up to the highest: a time limit never leaves rows uneven.
TEST(FrameQueue, TimeLimitEvensOutAResumedFrame) {
    const std::filesystem::path directory =
        std::filesystem::temp_directory_path() / ("farmrt_limit_" + std::to_string(getpid()));
    std::filesystem::create_directories(directory);
    FrameAccumulator partial(kWidth, kHeight, kSpp, "id1");
    const std::vector<float> first = reference_sums(1, 3), second = reference_sums(1, 5);
    for (uint32_t row = 0; row < kHeight; ++row) {
        const uint32_t samples = row < 10 ? 5 : 3;
        const std::vector<float>& from = samples == 5 ? second : first;
        std::memcpy(partial.row_sums(row), from.data() + size_t(row) * kWidth * 3, kWidth * 3 * sizeof(float));
        partial.complete(Band{RowRange{row, row + 1}, SampleRange{0, samples}});
    }
    const std::string path = (directory / "f1").string();
    write_checkpoint(path, partial.checkpoint());
    FrameQueueOptions options = options_for(2, 0, 4, 1);
    options.time_limit_seconds = 1e-9;
    FrameQueue queue(options, tasks_for({1}), [&](const PlannedFrame&) {
        auto accumulator = std::make_unique<FrameAccumulator>(kWidth, kHeight, kSpp, "id1");
        accumulator->resume_from(path);
        return accumulator;
    });
    std::mt19937 random(3);
    Simulation simulation;
    simulate(queue, 2, random, simulation);
    ASSERT_EQ(simulation.written_spp[1], 5u);
    const std::vector<float> expected = reference_sums(1, 5);
    ASSERT_EQ(0, std::memcmp(expected.data(), simulation.written[1].data(), expected.size() * 4));
    std::filesystem::remove_all(directory);
}

// Frames kept open: about 1 GiB of sums for a small job; 16 MiB a worker
// for a large one, within a quarter of the memory free; never fewer than two,
// nor more than one a worker and one.
TEST(FrameQueue, OpenFramesGrowWithTheWorkersWithinTheMemoryFree) {
    const size_t frame = size_t(3840) * 2160 * 3 * sizeof(float);  // 95 MiB
    const uint64_t plenty = uint64_t(256) << 30, gib = uint64_t(1) << 30;
    EXPECT_EQ(open_frame_limit(frame, 16, plenty), size_t(gib / frame));
    EXPECT_EQ(open_frame_limit(frame, 4, plenty), 5u);
    EXPECT_EQ(open_frame_limit(size_t(64) * 64 * 12, 8, plenty), 9u);
    EXPECT_EQ(open_frame_limit(frame * 4, 1, plenty), 2u);
    const size_t thousand = open_frame_limit(frame, 1000, plenty);
    EXPECT_EQ(thousand, size_t(uint64_t(1000) * (16 << 20) / frame));
    // Little memory free: the budget stays at 1 GiB, never a quarter of nothing.
    EXPECT_EQ(open_frame_limit(frame, 1000, uint64_t(8) << 30), size_t(2 * gib / frame));
    EXPECT_EQ(open_frame_limit(frame, 1000, 0), size_t(gib / frame));
}

}  // namespace
}  // namespace farmrt
