// The farm's schedules cover every row exactly once, whatever the image,
// rank count and band size; the dynamic dealer's guided bands shrink, follow
// the ranks' speeds and hold back look-ahead only at the very end.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <numeric>
#include <random>
#include <vector>

#include "core/errors.h"
#include "render/band_schedule.h"

namespace farmrt {
namespace {

const uint32_t kHeights[] = {1, 7, 32, 675, 1001};
const int kRanks[] = {1, 2, 3, 4, 8, 16};
const uint32_t kBandRows[] = {1, 2, 5, 64, 5000};

void expect_each_row_once(const std::vector<RowRange>& bands, uint32_t height) {
    std::vector<int> covered(height, 0);
    for (const RowRange& band : bands) {
        ASSERT_LT(band.begin, band.end);
        ASSERT_LE(band.end, height);
        for (uint32_t row = band.begin; row < band.end; ++row) ++covered[row];
    }
    for (uint32_t row = 0; row < height; ++row) ASSERT_EQ(covered[row], 1) << "row " << row;
}

TEST(BandSchedule, StaticAndCyclicCoverEveryRowOnce) {
    for (Schedule schedule : {Schedule::Static, Schedule::Cyclic}) {
        for (uint32_t height : kHeights) {
            for (int ranks : kRanks) {
                for (uint32_t rows : kBandRows) {
                    std::vector<RowRange> all;
                    for (int rank = 0; rank < ranks; ++rank) {
                        for (RowRange band : predetermined_bands(schedule, height, ranks, rank, rows)) {
                            EXPECT_LE(band.count(), rows);
                            all.push_back(band);
                        }
                    }
                    SCOPED_TRACE(std::string(schedule_name(schedule)) + " height " + std::to_string(height) +
                                 " ranks " + std::to_string(ranks) + " band " + std::to_string(rows));
                    expect_each_row_once(all, height);
                }
            }
        }
    }
}

TEST(BandSchedule, StaticGivesEachRankOneContiguousBlockOfEqualSize) {
    for (uint32_t height : kHeights) {
        for (int ranks : kRanks) {
            uint32_t smallest = height, largest = 0;
            for (int rank = 0; rank < ranks; ++rank) {
                const auto bands = predetermined_bands(Schedule::Static, height, ranks, rank, 3);
                uint32_t rows = 0;
                for (size_t i = 1; i < bands.size(); ++i) EXPECT_EQ(bands[i].begin, bands[i - 1].end);
                for (const RowRange& band : bands) rows += band.count();
                smallest = std::min(smallest, rows);
                largest = std::max(largest, rows);
            }
            EXPECT_LE(largest - smallest, 1u) << "height " << height << " ranks " << ranks;
        }
    }
}

TEST(BandSchedule, CyclicDealsRoundRobin) {
    const auto bands = predetermined_bands(Schedule::Cyclic, 100, 4, 1, 5);
    ASSERT_EQ(bands.size(), 5u);
    for (size_t i = 0; i < bands.size(); ++i) {
        EXPECT_EQ(bands[i].begin, 5 + 20 * i);
        EXPECT_EQ(bands[i].end, 10 + 20 * i);
    }
}

TEST(BandSchedule, AutomaticAndMaximumBandSizes) {
    EXPECT_EQ(automatic_band_rows(1200, 675, 1), 64u);
    EXPECT_EQ(automatic_band_rows(1200, 675, 16), 6u);
    EXPECT_EQ(automatic_band_rows(1200, 1, 16), 1u);
    // A band's message stays within 16 MiB at any width.
    for (uint32_t width : {1u, 1200u, 65536u}) {
        EXPECT_LE(uint64_t(max_band_rows(width)) * width * 12, 16ull << 20);
        EXPECT_GE(max_band_rows(width), 1u);
        EXPECT_LE(automatic_band_rows(width, 65536, 1), max_band_rows(width));
    }
    EXPECT_EQ(parse_schedule("cyclic"), Schedule::Cyclic);
    EXPECT_THROW(parse_schedule("guided"), InputError);
}

// Simulates ranks that ask in a random order, sometimes while still busy.
std::vector<RowRange> simulate_dynamic(uint32_t height, int ranks, uint32_t fixed_rows, uint32_t seed) {
    DynamicScheduler scheduler(height, 1200, ranks, fixed_rows);
    std::mt19937 random(seed);
    std::vector<int> in_flight(size_t(ranks), 0);
    std::vector<bool> done(size_t(ranks), false);
    std::vector<RowRange> bands;
    int finished = 0;
    while (finished < ranks) {
        const int rank = int(random() % uint32_t(ranks));
        if (done[size_t(rank)]) continue;
        if (in_flight[size_t(rank)] > 0 && random() % 2) --in_flight[size_t(rank)];  // a band comes back
        RowRange band;
        switch (scheduler.next(rank, in_flight[size_t(rank)], band)) {
        case DealAnswer::Work:
            bands.push_back(band);
            ++in_flight[size_t(rank)];
            break;
        case DealAnswer::NotNow:
            EXPECT_GT(in_flight[size_t(rank)], 0);
            EXPECT_TRUE(scheduler.in_endgame());
            in_flight[size_t(rank)] = 0;  // it asks again once idle
            break;
        case DealAnswer::Done:
            done[size_t(rank)] = true;
            ++finished;
            break;
        }
    }
    return bands;
}

TEST(BandSchedule, DynamicCoversEveryRowOnceInOrder) {
    for (uint32_t height : kHeights) {
        for (int ranks : kRanks) {
            for (uint32_t fixed : {0u, 1u, 7u}) {
                const auto bands = simulate_dynamic(height, ranks, fixed, height * 31 + uint32_t(ranks));
                SCOPED_TRACE("height " + std::to_string(height) + " ranks " + std::to_string(ranks));
                expect_each_row_once(bands, height);
                for (size_t i = 1; i < bands.size(); ++i) EXPECT_EQ(bands[i].begin, bands[i - 1].end);
                if (fixed) {
                    for (const RowRange& band : bands) EXPECT_LE(band.count(), fixed);
                }
            }
        }
    }
}

TEST(BandSchedule, GuidedBandsShrinkToOneRow) {
    DynamicScheduler scheduler(675, 1200, 8, 0);
    RowRange band;
    uint32_t previous = 675;
    std::vector<uint32_t> sizes;
    while (scheduler.next(0, 0, band) == DealAnswer::Work) {
        EXPECT_LE(band.count(), previous);
        previous = band.count();
        sizes.push_back(band.count());
    }
    EXPECT_EQ(sizes.front(), 29u);  // ceil(675 / 8 / 3)
    EXPECT_EQ(sizes.back(), 1u);
    EXPECT_LT(sizes.size(), 120u);  // few messages
}

TEST(BandSchedule, GuidedBandsFollowMeasuredSpeed) {
    DynamicScheduler scheduler(1000, 1200, 4, 0);
    for (int rank = 0; rank < 4; ++rank) scheduler.report_speed(rank, 4, 1e6);
    RankAbility gpu_like;
    gpu_like.threads = 1;
    gpu_like.thread_equivalents = 2;  // a rough first guess
    scheduler.describe_rank(3, gpu_like);
    scheduler.report_speed(3, 1, 1e7);  // a fast (GPU-like) rank: measured 10x a CPU rank
    RowRange slow, fast;
    ASSERT_EQ(scheduler.next(0, 0, slow), DealAnswer::Work);
    ASSERT_EQ(scheduler.next(3, 0, fast), DealAnswer::Work);
    EXPECT_GT(fast.count(), 3 * slow.count());
    // Before any measurement, threads are the guess.
    DynamicScheduler fresh(1000, 1200, 2, 0);
    fresh.report_speed(0, 1, 0);
    fresh.report_speed(1, 3, 0);
    RowRange one, three;
    fresh.next(0, 0, one);
    fresh.next(1, 0, three);
    EXPECT_EQ(one.count(), 84u);     // 1000 * 1/4 / 3, rounded up
    EXPECT_EQ(three.count(), 229u);  // 916 * 3/4 / 3
}

TEST(BandSchedule, CpuRanksAreWeighedByThreadsNotByTheRowsTheyRendered) {
    // Two 2-thread CPU ranks and a 4-thread one: one measured 3x the other
    // (it rendered sky rows). Pooled (the default): bands follow threads.
    // Measured: the rank that rendered the sky takes three times the rows.
    for (SpeedWeighting weighting : {SpeedWeighting::Pooled, SpeedWeighting::Measured}) {
        DynamicScheduler scheduler(900, 1200, 3, 0);
        scheduler.set_weighting(weighting);
        scheduler.report_speed(0, 2, 3e6);
        scheduler.report_speed(1, 2, 1e6);
        scheduler.report_speed(2, 4, 4e6);
        const uint32_t sky = scheduler.band_rows(0, 900), ground = scheduler.band_rows(1, 900);
        const uint32_t four = scheduler.band_rows(2, 900);
        if (weighting == SpeedWeighting::Pooled) {
            EXPECT_EQ(sky, ground);
            EXPECT_EQ(four, 2 * sky);
        } else {
            EXPECT_NEAR(double(sky), 3.0 * ground, 3.0);  // rounded up each
        }
    }
}

TEST(BandSchedule, LookAheadIsRefusedOnlyAtTheEnd) {
    DynamicScheduler scheduler(100, 1200, 2, 0);
    RowRange band;
    EXPECT_EQ(scheduler.next(0, 1, band), DealAnswer::Work);  // busy rank, plenty left
    while (!scheduler.in_endgame()) scheduler.next(1, 0, band);
    EXPECT_EQ(scheduler.next(0, 1, band), DealAnswer::NotNow);
    EXPECT_EQ(scheduler.next(0, 0, band), DealAnswer::Work);  // idle rank
}

// ---- GPU ranks: slots, band floor, first guess --------------------------------

RankAbility gpu_ability(uint64_t resident_threads = 118 * 1024) {
    RankAbility gpu;
    gpu.threads = 1;
    gpu.thread_equivalents = 8.0 * 132;  // CudaRenderer: 8 per SM
    gpu.slots = 2;
    gpu.min_band_items = resident_threads;  // per-pixel items: the floor in pixels
    return gpu;
}

RankAbility cpu_ability(int threads) {
    RankAbility cpu;
    cpu.threads = threads;
    return cpu;
}

TEST(BandSchedule, GpuRankWithAFreeSlotGetsBandsToTheEnd) {
    // Two bands in flight on two streams: a GPU rank holding one is not
    // "busy"; told "not now" only when both slots are taken.
    DynamicScheduler scheduler(2000, 64, 2, 0);
    scheduler.describe_rank(0, gpu_ability(64));
    scheduler.describe_rank(1, cpu_ability(1000));  // as fast: never "too slow for the rest"
    RowRange band;
    while (!scheduler.in_endgame()) ASSERT_EQ(scheduler.next(1, 0, band), DealAnswer::Work);
    EXPECT_EQ(scheduler.next(0, 1, band), DealAnswer::Work);
    EXPECT_EQ(scheduler.next(0, 2, band), DealAnswer::NotNow);
    EXPECT_EQ(scheduler.next(1, 1, band), DealAnswer::NotNow);
    EXPECT_TRUE(scheduler.has_free_slot(0, 1));
    EXPECT_FALSE(scheduler.has_free_slot(1, 1));
}

TEST(BandSchedule, GpuBandsFillTheGpu) {
    // 118 K resident threads at 1200 pixels a row: a band of fewer than 101
    // rows would leave the GPU partly idle and take as long.
    DynamicScheduler scheduler(675, 1200, 2, 0);
    scheduler.describe_rank(0, gpu_ability());
    scheduler.describe_rank(1, gpu_ability());
    RowRange band;
    std::vector<RowRange> bands;
    int rank = 0;
    while (scheduler.next(rank, 0, band) == DealAnswer::Work) {
        bands.push_back(band);
        rank ^= 1;
    }
    expect_each_row_once(bands, 675);
    for (size_t i = 0; i + 1 < bands.size(); ++i) EXPECT_GE(bands[i].count(), 101u) << "band " << i;
    // A fixed --band is the user's choice and wins.
    DynamicScheduler fixed(675, 1200, 2, 5);
    fixed.describe_rank(0, gpu_ability());
    ASSERT_EQ(fixed.next(0, 0, band), DealAnswer::Work);
    EXPECT_EQ(band.count(), 5u);
}

TEST(BandSchedule, GpuGuessKeepsCpuBandsSmallBeforeAnyMeasurement) {
    // A GPU rank's first guess is hundreds of threads: the 30-thread CPU rank
    // of a hybrid job must not start with a large part of the frame.
    DynamicScheduler scheduler(2160, 3840, 3, 0);
    scheduler.describe_rank(0, gpu_ability());
    scheduler.describe_rank(1, gpu_ability());
    scheduler.describe_rank(2, cpu_ability(30));
    RowRange cpu, gpu;
    ASSERT_EQ(scheduler.next(2, 0, cpu), DealAnswer::Work);
    ASSERT_EQ(scheduler.next(0, 0, gpu), DealAnswer::Work);
    EXPECT_LE(cpu.count(), 11u);   // 2160 x 30 / 2142 / 3 = 10.1
    EXPECT_GE(gpu.count(), 350u);  // a sixth of the frame: 2150 x 1056 / 2142 / 3
}

TEST(BandSchedule, UnderMeasuredGpuIsNotTakenForSlowerThanItsGuess) {
    // The one-sample first round measures a GPU at a fraction of its speed
    // (copies and launches dominate); the CPU rank's next band must still be
    // sized as if the GPUs ran at their guessed speed at least.
    DynamicScheduler scheduler(2160, 3840, 3, 0);
    scheduler.describe_rank(0, gpu_ability());
    scheduler.describe_rank(1, gpu_ability());
    scheduler.describe_rank(2, cpu_ability(30));
    const double per_thread = 1.5e6;
    scheduler.report_speed(2, 30, 30 * per_thread);
    scheduler.report_speed(0, 1, 1056 * per_thread / 10);  // measured 10x too slow
    scheduler.report_speed(1, 1, 1056 * per_thread / 10);
    RowRange cpu;
    ASSERT_EQ(scheduler.next(2, 0, cpu), DealAnswer::Work);
    EXPECT_LE(cpu.count(), 11u);
    // Measured faster than the guess: the measurement counts.
    scheduler.report_speed(0, 1, 1056 * per_thread * 4);
    scheduler.report_speed(1, 1, 1056 * per_thread * 4);
    RowRange smaller;
    ASSERT_EQ(scheduler.next(2, 0, smaller), DealAnswer::Work);
    EXPECT_LE(smaller.count(), 3u);
}

// ---- Whole jobs, simulated ----------------------------------------------------
//
// Ranks ask rank 0 as the farm's ranks do (a request as soon as nothing is
// queued, "not now" honoured until a slot is free), each answer one round trip
// later; a rank renders its bands one after the other at its speed, a band
// smaller than the rank's floor taking as long as one at the floor (a GPU's
// resident threads). Speeds are reported with each request as the farm's
// ranks measure them: samples per second, so a rank that rendered cheap
// rows (sky) looks faster than one that rendered dear ones.

struct SimulatedRank {
    RankAbility ability;
    double speed = 1;  // cost units per second
    double noise = 0;  // relative spread of a band's time (cores shared, caches)
};

struct SimulatedJob {
    double makespan = 0;
    double imbalance = 0;  // max busy / mean busy
    std::vector<double> busy;
    std::vector<uint64_t> rows;
};

SimulatedJob simulate_job(uint32_t height, uint32_t width, const std::vector<double>& row_costs,
                          const std::vector<SimulatedRank>& ranks, double round_trip, uint32_t seed) {
    const int n = int(ranks.size());
    DynamicScheduler scheduler(height, width, n, 0);
    std::mt19937 random(seed);
    std::normal_distribution<double> normal(0.0, 1.0);
    struct State {
        std::deque<std::pair<RowRange, double>> held;  // bands and their durations; front renders
        double free_at = 0;                            // when the band rendering now ends
        bool request_out = false, not_now = false, done = false;
        double answer_at = 0;
        double busy = 0, work = 0, measured_time = 0;
        uint64_t rows = 0;
    };
    std::vector<State> states(static_cast<size_t>(n));
    for (int r = 0; r < n; ++r) scheduler.describe_rank(r, ranks[size_t(r)].ability);
    double now = 0;
    const auto band_time = [&](int r, RowRange band) {
        double cost = 0;
        for (uint32_t row = band.begin; row < band.end; ++row) cost += row_costs[row];
        const uint64_t floor_pixels = ranks[size_t(r)].ability.min_band_items;
        const double fill = floor_pixels ? std::max(1.0, double(floor_pixels) / (double(band.count()) * width)) : 1.0;
        const double factor = std::max(0.2, 1 + ranks[size_t(r)].noise * normal(random));
        return std::make_pair(cost, cost / ranks[size_t(r)].speed * fill * factor);
    };
    std::vector<std::deque<double>> costs(static_cast<size_t>(n));  // per held band: its cost
    for (int steps = 0; steps < 1000000; ++steps) {
        bool all_done = true;
        for (int r = 0; r < n; ++r) {
            State& s = states[size_t(r)];
            const int unfinished = int(s.held.size());
            const bool queued_empty = unfinished <= ranks[size_t(r)].ability.slots;  // every held band started
            if (!s.done && !s.request_out && queued_empty && (!s.not_now || scheduler.has_free_slot(r, unfinished))) {
                s.request_out = true;
                s.answer_at = now + round_trip;
                // Rank 0 answers at half the round trip, with what the request said.
                if (s.measured_time > 0)
                    scheduler.report_speed(r, ranks[size_t(r)].ability.threads, s.work / s.measured_time);
                RowRange band;
                const auto answer = scheduler.next(r, unfinished, band);
                s.not_now = answer == DealAnswer::NotNow;
                if (answer == DealAnswer::Done) s.done = true;
                if (answer == DealAnswer::Work) {
                    const double time = band_time(r, band).second;
                    if (std::getenv("FARMRT_SIMULATION_TRACE")) {
                        std::printf("t=%.4f rank %d rows %u-%u (%u) time %.4f held %d\n", now, r, band.begin, band.end,
                                    band.count(), time, unfinished);
                    }
                    s.held.emplace_back(band, time);
                    costs[size_t(r)].push_back(double(band.count()) * width);  // what a rank measures: samples
                    s.rows += band.count();
                    if (s.held.size() == 1) s.free_at = s.answer_at + time;
                }
            }
            if (!s.done || !s.held.empty() || s.request_out) all_done = false;
        }
        if (all_done) break;
        // Next event: an answer arriving or a band finishing.
        double next = 1e300;
        for (const State& s : states) {
            if (s.request_out) next = std::min(next, s.answer_at);
            if (!s.held.empty()) next = std::min(next, s.free_at);
        }
        now = next;
        for (int r = 0; r < n; ++r) {
            State& s = states[size_t(r)];
            if (s.request_out && s.answer_at <= now) s.request_out = false;
            while (!s.held.empty() && s.free_at <= now) {
                const double time = s.held.front().second;
                s.busy += time;
                s.measured_time += time;
                s.work += costs[size_t(r)].front();
                costs[size_t(r)].pop_front();
                s.held.pop_front();
                if (!s.held.empty()) s.free_at += s.held.front().second;
            }
        }
    }
    SimulatedJob job;
    job.makespan = now;
    double total = 0, largest = 0;
    for (const State& s : states) {
        job.busy.push_back(s.busy);
        job.rows.push_back(s.rows);
        total += s.busy;
        largest = std::max(largest, s.busy);
    }
    job.imbalance = largest / (total / n);
    return job;
}

// Rows of configs/spheres.yaml: cheap sky at the top, spheres and ground below.
std::vector<double> spheres_like_row_costs(uint32_t height, uint32_t seed) {
    std::mt19937 random(seed);
    std::uniform_real_distribution<double> spread(0.0, 1.0);
    std::vector<double> costs(height);
    for (uint32_t row = 0; row < height; ++row) {
        costs[row] = row < height * 45 / 100 ? 0.15 + 0.1 * spread(random) : 0.6 + 0.6 * spread(random);
    }
    return costs;
}

TEST(BandSchedule, SimulatedCpuRanksBalanceWithinFivePercent) {
    // 8 and 16 one-thread ranks on a 64 spp 1200x675 frame (about 2.4 s;
    // a lower row costs 60-120 ms), 15% noise per band, 1.5 ms round trips.
    for (int ranks : {8, 16}) {
        double worst = 0;
        for (uint32_t seed = 1; seed <= 20; ++seed) {
            auto costs = spheres_like_row_costs(675, seed);
            const double total = std::accumulate(costs.begin(), costs.end(), 0.0);
            const double per_second = total / (2.4 * ranks);  // each rank: cost units per second
            std::vector<SimulatedRank> farm(static_cast<size_t>(ranks));
            for (SimulatedRank& rank : farm) {
                rank.ability = cpu_ability(1);
                rank.speed = per_second;
                rank.noise = 0.15;
            }
            const SimulatedJob job = simulate_job(675, 1200, costs, farm, 0.0015, seed);
            worst = std::max(worst, job.imbalance);
            if (std::getenv("FARMRT_SIMULATION_LOG")) {
                std::printf("%d ranks seed %u: makespan %.3f imbalance %.3f busy", ranks, seed, job.makespan,
                            job.imbalance);
                for (double b : job.busy) std::printf(" %.3f", b);
                std::printf("\n");
            }
        }
        EXPECT_LE(worst, 1.05) << ranks << " ranks";
    }
}

TEST(BandSchedule, SimulatedHybridIsNotSlowerThanItsGpus) {
    // 3840x2160: two GPUs (about 35 waves of resident threads each) alone,
    // then with a 30-thread CPU rank about 2% of their speed. The CPU rank
    // may help a little; it must never hold the job's end.
    const uint32_t width = 3840, height = 2160;
    double ratio_sum = 0;
    for (uint32_t seed = 1; seed <= 10; ++seed) {
        const auto costs = spheres_like_row_costs(height, seed);
        const double total = std::accumulate(costs.begin(), costs.end(), 0.0);
        SimulatedRank gpu;
        gpu.ability = gpu_ability();
        gpu.speed = total / 5.4;  // one GPU renders the frame in 5.4 s
        gpu.noise = 0.02;
        SimulatedRank cpu;
        cpu.ability = cpu_ability(30);
        cpu.speed = gpu.speed * 30 / 1056 * 0.7;  // slower than the GPU's guess says
        cpu.noise = 0.15;
        const SimulatedJob one = simulate_job(height, width, costs, {gpu}, 0.0015, seed);
        const SimulatedJob two = simulate_job(height, width, costs, {gpu, gpu}, 0.0015, seed);
        const SimulatedJob hybrid = simulate_job(height, width, costs, {gpu, gpu, cpu}, 0.0015, seed);
        SCOPED_TRACE("seed " + std::to_string(seed));
        if (std::getenv("FARMRT_SIMULATION_LOG")) {
            std::printf("seed %u: one GPU %.3f s, two %.3f s (%.3fx), hybrid %.3f s, CPU rows %llu\n", seed,
                        one.makespan, two.makespan, one.makespan / two.makespan, hybrid.makespan,
                        (unsigned long long)hybrid.rows[2]);
        }
        EXPECT_GE(one.makespan / two.makespan, 1.9);
        EXPECT_LE(hybrid.makespan, two.makespan * 1.02);  // the GPUs' last waves fall differently
        ratio_sum += hybrid.makespan / two.makespan;
        EXPECT_GT(hybrid.rows[2], 0u);  // the CPU rank took part
    }
    EXPECT_LE(ratio_sum / 10, 1.0);
}

}  // namespace
}  // namespace farmrt
