// The farm's schedules cover every row exactly once, whatever the image,
// rank count and band size; the dynamic dealer's guided bands shrink, follow
// the ranks' speeds and hold back look-ahead only at the very end.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "band_schedule.h"
#include "errors.h"

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
        case DynamicScheduler::Answer::Band:
            bands.push_back(band);
            ++in_flight[size_t(rank)];
            break;
        case DynamicScheduler::Answer::NotNow:
            EXPECT_GT(in_flight[size_t(rank)], 0);
            EXPECT_TRUE(scheduler.in_endgame());
            in_flight[size_t(rank)] = 0;  // it asks again once idle
            break;
        case DynamicScheduler::Answer::Done:
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
    while (scheduler.next(0, 0, band) == DynamicScheduler::Answer::Band) {
        EXPECT_LE(band.count(), previous);
        previous = band.count();
        sizes.push_back(band.count());
    }
    EXPECT_EQ(sizes.front(), 43u);  // ceil(675 / 8 / 2)
    EXPECT_EQ(sizes.back(), 1u);
    EXPECT_LT(sizes.size(), 120u);  // few messages
}

TEST(BandSchedule, GuidedBandsFollowMeasuredSpeed) {
    DynamicScheduler scheduler(1000, 1200, 4, 0);
    for (int rank = 0; rank < 4; ++rank) scheduler.report_speed(rank, 4, 1e6);
    scheduler.report_speed(3, 1, 1e7);  // a fast (GPU-like) rank
    RowRange slow, fast;
    ASSERT_EQ(scheduler.next(0, 0, slow), DynamicScheduler::Answer::Band);
    ASSERT_EQ(scheduler.next(3, 0, fast), DynamicScheduler::Answer::Band);
    EXPECT_GT(fast.count(), 3 * slow.count());
    // Before any measurement, threads are the guess.
    DynamicScheduler fresh(1000, 1200, 2, 0);
    fresh.report_speed(0, 1, 0);
    fresh.report_speed(1, 3, 0);
    RowRange one, three;
    fresh.next(0, 0, one);
    fresh.next(1, 0, three);
    EXPECT_EQ(one.count(), 125u);    // 1000 * 1/4 / 2
    EXPECT_EQ(three.count(), 329u);  // 875 * 3/4 / 2, rounded up
}

TEST(BandSchedule, LookAheadIsRefusedOnlyAtTheEnd) {
    DynamicScheduler scheduler(100, 1200, 2, 0);
    RowRange band;
    EXPECT_EQ(scheduler.next(0, 1, band), DynamicScheduler::Answer::Band);  // busy rank, plenty left
    while (!scheduler.in_endgame()) scheduler.next(1, 0, band);
    EXPECT_EQ(scheduler.next(0, 1, band), DynamicScheduler::Answer::NotNow);
    EXPECT_EQ(scheduler.next(0, 0, band), DynamicScheduler::Answer::Band);  // idle rank
}

}  // namespace
}  // namespace farmrt
