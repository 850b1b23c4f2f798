#include "render/device_group.h"

#include <algorithm>
#include <cmath>

#include "core/errors.h"
#include "core/stop_flag.h"

namespace farmrt {
namespace {

using Clock = std::chrono::steady_clock;

constexpr uint64_t kGpuPiecePixels = 65536;

double seconds_between(Clock::time_point start, Clock::time_point end) {
    return std::chrono::duration<double>(end - start).count();
}

}  // namespace

DeviceGroup::DeviceGroup(std::vector<std::unique_ptr<BandRenderer>> devices) {
    if (devices.empty()) throw RenderError("a device group needs at least one device");
    devices_.resize(devices.size());
    for (size_t d = 0; d < devices.size(); ++d) devices_[d].renderer = std::move(devices[d]);
}

DeviceGroup::~DeviceGroup() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        closing_ = true;
    }
    work_ready_.notify_all();
    for (Device& device : devices_) {
        if (device.thread.joinable()) device.thread.join();
    }
}

void DeviceGroup::render(const FrameSettings& frame, RowRange rows, SampleRange samples, float* sums,
                         std::atomic<uint64_t>* samples_done) {
    submit(frame, rows, samples, sums, samples_done);
    while (complete_oldest() != nullptr) {}
}

void DeviceGroup::submit(const FrameSettings& frame, RowRange rows, SampleRange samples, float* sums,
                         std::atomic<uint64_t>* samples_done) {
    auto band = std::make_unique<SubmittedBand>();
    band->frame = frame;
    band->rows = rows;
    band->samples = samples;
    band->sums = sums;
    band->samples_done = samples_done;
    band->next_row = rows.begin;
    // The devices' threads start with the first band: a caller that deals
    // to the members itself (rank 0, through devices()) never starts them.
    if (!devices_[0].thread.joinable()) {
        for (size_t d = 0; d < devices_.size(); ++d) devices_[d].thread = std::thread([this, d] { drive(d); });
    }
    {
        std::lock_guard<std::mutex> lock(mutex_);
        if (failure_) std::rethrow_exception(failure_);
        bands_.push_back(std::move(band));
    }
    work_ready_.notify_all();
}

float* DeviceGroup::complete_oldest() {
    std::unique_lock<std::mutex> lock(mutex_);
    if (bands_.empty()) return nullptr;
    SubmittedBand* oldest = bands_.front().get();
    band_finished_.wait(lock,
                        [&] { return failure_ || (oldest->next_row == oldest->rows.end && oldest->unfinished == 0); });
    if (failure_) std::rethrow_exception(failure_);
    // Its leading rows whole: the pieces in row order while each is whole,
    // then the leading rows of the first that is not.
    uint32_t kept = 0;
    for (const Piece& piece : oldest->pieces) {
        kept += piece.rows_kept;
        if (piece.rows_kept < piece.rows.count()) break;
    }
    rows_finished_at_stop_ = kept;
    float* sums = oldest->sums;
    bands_.pop_front();
    return sums;
}

double DeviceGroup::share_of(size_t device) const {
    bool measured = true;
    double total = 0, total_guess = 0;
    for (const Device& d : devices_) {
        measured = measured && d.speed > 0;
        total += d.speed;
        total_guess += std::max(d.renderer->thread_equivalents(), 1e-3);
    }
    if (measured && total > 0) return devices_[device].speed / total;
    return std::max(devices_[device].renderer->thread_equivalents(), 1e-3) / total_guess;
}

bool DeviceGroup::take_piece(size_t device, SubmittedBand*& band, size_t& piece) {
    uint32_t rows_left = 0;  // in every band submitted: what the other devices still have to take
    for (const auto& b : bands_) rows_left += b->rows.end - b->next_row;
    for (const auto& b : bands_) {
        if (b->next_row == b->rows.end) continue;
        const uint32_t remaining = b->rows.end - b->next_row;
        const double share = share_of(device);
        const BandRenderer& renderer = *devices_[device].renderer;
        // A piece that fills the device, and otherwise its share of what is
        // left over twice the pieces it keeps submitted (guided: pieces
        // shrink as the band ends, and what the devices have taken but not
        // started stays about half of what is left, so that rows dear to
        // render cannot pile up on one device). A GPU's piece also holds at
        // least kGpuPiecePixels: its samples are summed one thread a pixel,
        // in order, and a thin piece leaves that summation most of the GPU
        // idle (measured: pieces of one 1200-pixel row at 4096 samples
        // rendered two H100s slower than one).
        const uint64_t items_per_row =
            uint64_t(b->frame.width) * (renderer.item_is_sample() ? std::max(b->samples.count(), 1u) : 1u);
        uint64_t filling = (renderer.min_band_items() + items_per_row - 1) / items_per_row;
        if (renderer.item_is_sample()) {
            filling = std::max<uint64_t>(filling, (kGpuPiecePixels + b->frame.width - 1) / b->frame.width);
        }
        const double pieces = 2.0 * std::max(1, renderer.bands_in_flight());
        uint64_t rows = uint64_t(std::ceil(double(remaining) * share / pieces));
        rows = std::clamp<uint64_t>(std::max<uint64_t>(rows, filling), 1, remaining);
        // A device much slower than the others (the cores beside GPUs)
        // takes rows only while the others have enough left to finish
        // after it: its last piece must not be what the band waits for.
        if (devices_.size() > 1 && share < 0.5 / double(devices_.size())) {
            const double others_seconds_per_row = 1.0 / std::max(1.0 - share, 1e-6);
            const double mine_seconds = double(rows) / std::max(share, 1e-6);
            if (double(rows_left - rows) * others_seconds_per_row < mine_seconds) return false;
        }
        band = b.get();
        piece = b->pieces.size();
        b->pieces.push_back(Piece{RowRange{b->next_row, b->next_row + uint32_t(rows)}, false, 0});
        b->next_row += uint32_t(rows);
        ++b->unfinished;
        return true;
    }
    return false;
}

void DeviceGroup::drive(size_t device) {
    struct Submitted {
        SubmittedBand* band;
        size_t piece;
        uint64_t samples;
    };
    Device& self = devices_[device];
    BandRenderer& renderer = *self.renderer;
    const size_t slots = size_t(std::max(1, renderer.bands_in_flight()));
    std::deque<Submitted> in_flight;
    Clock::time_point busy_since{};
    try {
        for (;;) {
            while (in_flight.size() < slots) {
                SubmittedBand* band = nullptr;
                size_t piece = 0;
                RowRange rows;
                {
                    // Pieces are added by every device's thread: read only under the lock.
                    std::unique_lock<std::mutex> lock(mutex_);
                    if (in_flight.empty()) {
                        work_ready_.wait(lock, [&] { return closing_ || take_piece(device, band, piece); });
                        if (band == nullptr) return;  // closing, nothing in flight
                    } else if (!take_piece(device, band, piece)) {
                        break;
                    }
                    rows = band->pieces[piece].rows;
                }
                const size_t offset =
                    size_t(rows.begin - band->rows.begin) * band->frame.width * band->frame.sampling.record_floats;
                if (in_flight.empty()) busy_since = Clock::now();
                renderer.submit(band->frame, rows, band->samples, band->sums + offset, band->samples_done);
                in_flight.push_back(
                    Submitted{band, piece, uint64_t(rows.count()) * band->frame.width * band->samples.count()});
            }
            if (in_flight.empty()) continue;
            renderer.complete_oldest();
            const Submitted done = in_flight.front();
            in_flight.pop_front();
            const bool stopped = stop_requested();
            const uint32_t finished_at_stop = renderer.rows_finished_at_stop();
            const Clock::time_point now = Clock::now();
            {
                std::lock_guard<std::mutex> lock(mutex_);
                Piece& piece = done.band->pieces[done.piece];
                const uint32_t kept = stopped ? std::min(finished_at_stop, piece.rows.count()) : piece.rows.count();
                piece.finished = true;
                piece.rows_kept = kept;
                --done.band->unfinished;
                self.busy_seconds += seconds_between(busy_since, now);
                self.samples += done.samples;
                if (self.busy_seconds > 0 && self.samples > 0) self.speed = double(self.samples) / self.busy_seconds;
            }
            busy_since = now;
            band_finished_.notify_all();
            work_ready_.notify_all();  // rows a slow device declined may be this one's now
        }
    } catch (...) {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            if (!failure_) failure_ = std::current_exception();
        }
        band_finished_.notify_all();
    }
}

std::string DeviceGroup::description() const {
    std::string text = std::to_string(devices_.size()) + " devices: ";
    for (size_t d = 0; d < devices_.size(); ++d) text += (d ? "; " : "") + devices_[d].renderer->description();
    return text;
}

int DeviceGroup::threads() const {
    int total = 0;
    for (const Device& d : devices_) total += d.renderer->threads();
    return total;
}

double DeviceGroup::thread_equivalents() const {
    double total = 0;
    for (const Device& d : devices_) total += d.renderer->thread_equivalents();
    return total;
}

uint64_t DeviceGroup::min_band_items() const {
    uint64_t total = 0;
    for (const Device& d : devices_) total += d.renderer->min_band_items();
    return total;
}

bool DeviceGroup::item_is_sample() const {
    return std::any_of(devices_.begin(), devices_.end(), [](const Device& d) { return d.renderer->item_is_sample(); });
}

bool DeviceGroup::first_hit_features(const FrameSettings& frame, uint32_t samples, float* albedo, float* normal,
                                     float* depth) {
    for (Device& d : devices_) {
        if (d.renderer->first_hit_features(frame, samples, albedo, normal, depth)) return true;
    }
    return false;
}

bool DeviceGroup::has_gpu() const {
    return std::any_of(devices_.begin(), devices_.end(), [](const Device& d) { return d.renderer->has_gpu(); });
}

RayCounts DeviceGroup::rays_traced() const {
    RayCounts rays;
    for (const Device& d : devices_) rays += d.renderer->rays_traced();
    return rays;
}

uint64_t DeviceGroup::gpu_memory_used_bytes() const {
    uint64_t total = 0;
    for (const Device& d : devices_) total += d.renderer->gpu_memory_used_bytes();
    return total;
}

std::vector<BandRenderer*> DeviceGroup::devices() {
    std::vector<BandRenderer*> members;
    for (Device& d : devices_) members.push_back(d.renderer.get());
    return members;
}

std::vector<uint64_t> DeviceGroup::samples_by_device() const {
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<uint64_t> samples;
    for (const Device& d : devices_) samples.push_back(d.samples);
    return samples;
}

}  // namespace farmrt
