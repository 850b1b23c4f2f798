#include "band_schedule.h"

#include <algorithm>
#include <cmath>

#include "errors.h"

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

std::vector<RowRange> predetermined_bands(Schedule schedule, uint32_t height, int ranks, int rank,
                                          uint32_t band_rows) {
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
      threads_(size_t(ranks_), 1),
      speeds_(size_t(ranks_), 0.0) {}

void DynamicScheduler::report_speed(int rank, int threads, double samples_per_second) {
    if (rank < 0 || rank >= ranks_) return;
    threads_[size_t(rank)] = std::max(threads, 1);
    if (std::isfinite(samples_per_second) && samples_per_second > 0) speeds_[size_t(rank)] = samples_per_second;
}

double DynamicScheduler::weight(int rank) const {
    // A rank that has measured its speed weighs that; one that has not yet
    // weighs its threads at the measured ranks' mean speed per thread.
    double measured_speed = 0, measured_threads = 0;
    for (int r = 0; r < ranks_; ++r) {
        if (speeds_[size_t(r)] > 0) {
            measured_speed += speeds_[size_t(r)];
            measured_threads += threads_[size_t(r)];
        }
    }
    if (speeds_[size_t(rank)] > 0) return speeds_[size_t(rank)];
    const double per_thread = measured_threads > 0 ? measured_speed / measured_threads : 1.0;
    return threads_[size_t(rank)] * per_thread;
}

bool DynamicScheduler::in_endgame() const {
    // Fewer than eight bands' worth of rows per rank (each rank may hold two;
    // guided bands are down to a few rows). Simulated with measured row costs
    // of spheres.yaml and 15% noise per band, 8 ranks: worst imbalance of 40
    // runs 1.051 with four per rank, 1.012 with eight; the extra round trips
    // (about a millisecond each) are hidden in the tail anyway.
    const uint64_t unit = fixed_band_rows_ ? fixed_band_rows_ : 1;
    return uint64_t(rows_left()) < 8 * uint64_t(ranks_) * unit;
}

DynamicScheduler::Answer DynamicScheduler::next(int rank, int unfinished, RowRange& band) {
    if (rows_left() == 0) return Answer::Done;
    if (unfinished > 0 && in_endgame()) return Answer::NotNow;
    uint32_t rows = fixed_band_rows_;
    if (rows == 0) {
        double total = 0;
        for (int r = 0; r < ranks_; ++r) total += weight(r);
        const double share = total > 0 ? weight(rank) / total : 1.0 / ranks_;
        rows = uint32_t(std::ceil(double(rows_left()) * share / 2));
        rows = std::clamp(rows, 1u, max_rows_);
    }
    band.begin = next_row_;
    band.end = next_row_ + std::min(rows, rows_left());
    next_row_ = band.end;
    return Answer::Band;
}

}  // namespace farmrt
