#include "render/band_schedule.h"

#include <algorithm>
#include <cmath>

#include "core/errors.h"

namespace farmrt {

Schedule parse_schedule(const std::string& name) {
    if (name == "static") return Schedule::Static;
    if (name == "cyclic") return Schedule::Cyclic;
    if (name == "dynamic") return Schedule::Dynamic;
    throw InputError("--schedule: expected static, cyclic or dynamic, got '" + name + "'");
}

const char* schedule_name(Schedule schedule) {
    switch (schedule) {
    case Schedule::Static: return "static";
    case Schedule::Cyclic: return "cyclic";
    case Schedule::Dynamic: return "dynamic";
    }
    return "?";
}

uint32_t max_band_rows(uint32_t width) {
    const uint64_t row_bytes = uint64_t(std::max(width, 1u)) * 3 * sizeof(float);
    return uint32_t(std::max<uint64_t>(1, (16ull << 20) / row_bytes));
}

uint32_t automatic_band_rows(uint32_t width, uint32_t height, int ranks) {
    const uint64_t bands = uint64_t(std::max(ranks, 1)) * 8;
    const uint32_t rows = uint32_t((uint64_t(height) + bands - 1) / bands);
    return std::clamp(rows, 1u, std::min(64u, max_band_rows(width)));
}

std::vector<RowRange> predetermined_bands(Schedule schedule, uint32_t height, int ranks, int rank, uint32_t band_rows) {
    std::vector<RowRange> bands;
    band_rows = std::max(band_rows, 1u);
    if (schedule == Schedule::Static) {
        // Block r holds rows [r*H/N, (r+1)*H/N): sizes differ by at most one row.
        const uint32_t begin = uint32_t(uint64_t(height) * uint32_t(rank) / uint32_t(ranks));
        const uint32_t end = uint32_t(uint64_t(height) * uint32_t(rank + 1) / uint32_t(ranks));
        for (uint32_t row = begin; row < end; row += band_rows) {
            bands.push_back(RowRange{row, std::min(end, row + band_rows)});
        }
    } else if (schedule == Schedule::Cyclic) {
        const uint64_t stride = uint64_t(band_rows) * uint32_t(ranks);
        for (uint64_t row = uint64_t(band_rows) * uint32_t(rank); row < height; row += stride) {
            bands.push_back(RowRange{uint32_t(row), uint32_t(std::min<uint64_t>(height, row + band_rows))});
        }
    }
    return bands;
}

DynamicScheduler::DynamicScheduler(uint32_t height, uint32_t width, int ranks, uint32_t fixed_band_rows)
    : height_(height),
      ranks_(std::max(ranks, 1)),
      fixed_band_rows_(std::min(fixed_band_rows, max_band_rows(width))),
      max_rows_(max_band_rows(width)),
      width_(std::max(width, 1u)),
      abilities_(size_t(ranks_)),
      speeds_(size_t(ranks_), 0.0) {}

void DynamicScheduler::report_speed(int rank, int threads, double samples_per_second) {
    if (rank < 0 || rank >= ranks_) return;
    abilities_[size_t(rank)].threads = std::max(threads, 1);
    if (std::isfinite(samples_per_second) && samples_per_second > 0) speeds_[size_t(rank)] = samples_per_second;
    pooled_.valid = false;
}

void DynamicScheduler::describe_rank(int rank, const RankAbility& ability) {
    if (rank < 0 || rank >= ranks_) return;
    RankAbility& mine = abilities_[size_t(rank)];
    mine.threads = std::max(ability.threads, 1);
    mine.thread_equivalents = std::isfinite(ability.thread_equivalents) ? std::max(ability.thread_equivalents, 0.0) : 0;
    mine.slots = std::clamp(ability.slots, 1, 64);
    mine.min_band_items = ability.min_band_items;
    mine.item_is_sample = ability.item_is_sample;
    pooled_.valid = false;
}

namespace {

double equivalents_of(const RankAbility& ability) {
    return ability.thread_equivalents > 0 ? ability.thread_equivalents : double(ability.threads);
}

// A rank whose first guess is not its thread count (a GPU).
bool guessed(const RankAbility& ability) {
    return ability.thread_equivalents > 0 && ability.thread_equivalents != double(ability.threads);
}

}  // namespace

const DynamicScheduler::Pooled& DynamicScheduler::pooled() const {
    // Once per change of what the ranks told, not once per rank asked
    // about: with a thousand ranks, every weight summing over every rank
    // made a request cost milliseconds of rank 0's time.
    if (pooled_.valid) return pooled_;
    Pooled pooled;
    for (int r = 0; r < ranks_; ++r) {
        const double speed = speeds_[size_t(r)];
        if (speed <= 0) continue;
        pooled.all_speed += speed;
        pooled.all_threads += equivalents_of(abilities_[size_t(r)]);
        if (!guessed(abilities_[size_t(r)])) {
            pooled.cpu_speed += speed;
            pooled.cpu_threads += abilities_[size_t(r)].threads;
        }
    }
    pooled.valid = true;
    pooled_ = pooled;
    for (int r = 0; r < ranks_; ++r) pooled_.total_weight += weight(r);
    return pooled_;
}

double DynamicScheduler::weight(int rank) const {
    // A rank that has measured its speed weighs that; one that has not yet
    // weighs its thread equivalents at the measured ranks' mean speed per
    // thread (CPU ranks' when there are any: a GPU's guess is rough).
    const Pooled& speeds = pooled();
    const double cpu_speed = speeds.cpu_speed, cpu_threads = speeds.cpu_threads;
    const double all_speed = speeds.all_speed, all_threads = speeds.all_threads;
    const RankAbility& ability = abilities_[size_t(rank)];
    const double per_thread = cpu_threads > 0   ? cpu_speed / cpu_threads
                              : all_threads > 0 ? all_speed / all_threads
                                                : 1.0;
    const double guess = equivalents_of(ability) * per_thread;
    const double measured = speeds_[size_t(rank)];
    if (measured <= 0) return guess;
    // A GPU's first bands (a one-sample round, small bands) measure it far
    // below its speed on real bands (copies and launches dominate). Taking
    // it for slower than its guess would give the CPU ranks bands that
    // outlast the job; taking it for faster only trims the CPU ranks' share.
    if (guessed(ability) && cpu_threads > 0) return std::max(measured, guess);
    // Between CPU ranks, measured speeds differ with the rows rendered, not
    // with the ranks (SpeedWeighting): the pooled speed per thread is fairer.
    if (!guessed(ability) && cpu_threads > 0 && weighting_ == SpeedWeighting::Pooled) return guess;
    return measured;
}

uint32_t DynamicScheduler::floor_rows(int rank) const {
    const RankAbility& ability = abilities_[size_t(rank)];
    if (ability.min_band_items == 0) return 1;
    const double samples_per_second = weight(rank);
    const double row_seconds = samples_per_second > 0 ? double(width_) * band_samples_ / samples_per_second : 0;
    // Enough work items to fill the rank: a row holds width x samples of them
    // when an item is a sample, so with per-sample items a GPU is filled by a
    // row or two of a long pass; a floor counted in pixels (113 rows of 1200
    // on an H100) left too few bands to share among several GPUs (4 H200s:
    // imbalance 1.22 at 1200x675, 4096 spp).
    const uint64_t items_per_row = uint64_t(width_) * (ability.item_is_sample ? band_samples_ : 1u);
    double rows = std::ceil(double(ability.min_band_items) / double(items_per_row));
    // And long enough (min_band_seconds_ at the rank's speed) that the band in
    // flight hides the next one's request and launches: rows of a short pass
    // at 3840 pixels take a GPU about a millisecond.
    if (row_seconds > 0) rows = std::max(rows, std::ceil(min_band_seconds_ / row_seconds));
    return uint32_t(std::clamp(rows, 1.0, double(max_rows_)));
}

bool DynamicScheduler::in_endgame() const {
    // Fewer than eight bands' worth of rows per rank (each rank may hold two;
    // guided bands are down to a few rows). Simulated with measured row costs
    // of spheres.yaml and 15% noise per band, 8 ranks: worst imbalance of 40
    // runs 1.051 with four per rank, 1.012 with eight; the extra round trips
    // (about a millisecond each) are hidden in the tail anyway.
    // A GPU rank's bands are at least its floor (the rows that fill it), so
    // it counts as that many rows.
    uint64_t units = 0;
    for (int r = 0; r < ranks_; ++r) units += fixed_band_rows_ ? fixed_band_rows_ : floor_rows(r);
    return uint64_t(rows_left()) + rows_beside_ < 8 * units;
}

bool DynamicScheduler::has_free_slot(int rank, int unfinished) const {
    if (rank < 0 || rank >= ranks_) return unfinished <= 0;
    return unfinished < abilities_[size_t(rank)].slots;
}

bool DynamicScheduler::too_slow_for_the_rest(int rank) const {
    // A rank so much slower than the others that one more row on it would
    // end long after they have finished every row left (a CPU rank beside
    // GPU ranks, at the end) waits instead. Judged on what the ranks are
    // (thread equivalents), never on measured samples per second: those
    // differ several times between ranks of one kind with the rows they
    // happened to render (sky rows are cheap), and a rank refused on them
    // would never measure again (seen on the 2-GPU machine: CPU ranks idle
    // for up to 0.9 s of 3 s). Ranks of about the same kind never wait.
    const double mine = equivalents_of(abilities_[size_t(rank)]);
    double others = 0, quickest_other = 0;
    for (int r = 0; r < ranks_; ++r) {
        if (r == rank) continue;
        const double theirs = equivalents_of(abilities_[size_t(r)]);
        others += theirs;
        // The least time another rank needs for anything: a GPU rank's floor
        // band (one wave of its resident threads) however few rows it holds.
        const double time = double(std::min(floor_rows(r), rows_left())) / theirs;
        quickest_other = quickest_other > 0 ? std::min(quickest_other, time) : time;
    }
    if (others <= 0) return false;
    const double rest = std::max(double(rows_left()) / others, quickest_other);
    return 1.0 / mine > 2.0 * rest;
}

uint32_t DynamicScheduler::band_rows(int rank, uint64_t rows_left) const {
    if (predetermined_) return max_rows_;  // a rank takes its own bands whole
    if (fixed_band_rows_) return fixed_band_rows_;
    if (rank < 0 || rank >= ranks_) return max_rows_;
    const double total = pooled().total_weight;
    const double share = total > 0 ? weight(rank) / total : 1.0 / ranks_;
    // A third of the fair share: rows differ in cost (sky rows are cheap,
    // the ones below them several times dearer), so a band sized by rows
    // can cost far more than its share of the time left. With half the
    // share, simulated 8-rank jobs (tests/farm/test_band_schedule.cpp) had one
    // rank 4-8% over the others in 1 of 20; with a third, 1.4% at worst
    // (results/mpi_scaling.md).
    double rows = std::min(std::ceil(double(rows_left + rows_beside_) * share / band_divisor_), double(max_rows_));
    if (window_rows_ > 0) {
        // A quarter of a rank's share of the window for each slot: the rest
        // lets the next frames open while the last bands of the earlier ones
        // are out. Simulated (FarmBalance, 100 and 200 nodes of 8 GPUs, 24
        // frames of 4K): with all of it ranks waited for frames to complete
        // (imbalance 1.41 with 48 frames); with half, the shot took 12% longer
        // (imbalance 1.04-1.06); with a quarter, 1.001-1.006 and the ideal
        // makespan; with a sixth, more messages and no better balance.
        const int slots = std::max(1, abilities_[size_t(rank)].slots);
        rows = std::min(rows, std::ceil(double(window_rows_) * share / slots / 4));
    }
    if (band_seconds_ > 0) {
        const double speed = speeds_[size_t(rank)];
        const double samples = speed > 0 ? speed * band_seconds_ : kFirstBandSamples;
        rows = std::min(rows, std::max(1.0, std::floor(samples / (double(width_) * band_samples_))));
    }
    return std::clamp(uint32_t(rows), floor_rows(rank), max_rows_);
}

void DynamicScheduler::deal_predetermined(Schedule schedule, uint32_t band_rows) {
    predetermined_ = true;
    rank_bands_.assign(size_t(ranks_), {});
    rank_next_.assign(size_t(ranks_), 0);
    predetermined_rows_left_ = 0;
    for (int rank = 0; rank < ranks_; ++rank) {
        rank_bands_[size_t(rank)] = predetermined_bands(schedule, height_, ranks_, rank, band_rows);
        for (const RowRange& rows : rank_bands_[size_t(rank)]) predetermined_rows_left_ += rows.count();
    }
}

DealAnswer DynamicScheduler::next(int rank, int unfinished, RowRange& band) {
    if (rows_left() == 0) return DealAnswer::Done;
    if (predetermined_) {
        if (rank < 0 || rank >= ranks_ || rank_next_[size_t(rank)] == rank_bands_[size_t(rank)].size()) {
            return DealAnswer::NotNow;  // this rank's bands are dealt; others' are not
        }
        band = rank_bands_[size_t(rank)][rank_next_[size_t(rank)]++];
        predetermined_rows_left_ -= band.count();
        return DealAnswer::Work;
    }
    if (endgame_ && !has_free_slot(rank, unfinished) && in_endgame()) return DealAnswer::NotNow;
    if (!fixed_band_rows_ && too_slow_for_the_rest(rank)) return DealAnswer::NotNow;
    const uint32_t rows = band_rows(rank, rows_left());
    band.begin = next_row_;
    band.end = next_row_ + std::min(rows, rows_left());
    next_row_ = band.end;
    return DealAnswer::Work;
}

}  // namespace farmrt
