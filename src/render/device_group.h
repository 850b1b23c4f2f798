// Several devices of one process (the GPUs of a node, and its cores) seen by
// the farm as one renderer: the farm deals a band to the process, and the
// group deals the band's rows to its devices. Each device has a host thread
// of its own that takes the next rows of the oldest band still holding some,
// as many as its share of the group's measured speed gives it (its share of
// what is left over twice the pieces it keeps submitted: pieces shrink
// as the band ends, a fast device takes more of them, a slow one small ones,
// and the devices end together), and keeps as many pieces
// submitted as it renders at once (BandRenderer::bands_in_flight). A band is
// complete when all its pieces are; bands complete in submission order.
//
// A pixel's sums never depend on which device rendered it (every backend adds
// a pixel's samples in order, with the same floats), so the image is the same
// bytes for any set of devices.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "render/band_renderer.h"

namespace farmrt {

class DeviceGroup : public BandRenderer {
public:
    // At least one device; each is driven from a thread of its own from the
    // first band submitted on.
    explicit DeviceGroup(std::vector<std::unique_ptr<BandRenderer>> devices);
    ~DeviceGroup() override;
    DeviceGroup(const DeviceGroup&) = delete;
    DeviceGroup& operator=(const DeviceGroup&) = delete;

    void render(const FrameSettings& frame, RowRange rows, SampleRange samples, float* sums,
                std::atomic<uint64_t>* samples_done) override;
    void submit(const FrameSettings& frame, RowRange rows, SampleRange samples, float* sums,
                std::atomic<uint64_t>* samples_done) override;
    float* complete_oldest() override;
    int bands_in_flight() const override { return 2; }
    // The leading rows of the last band completed whose pieces all finished
    // before the stop (a device's piece cut short keeps its own leading rows).
    uint32_t rows_finished_at_stop() const override { return rows_finished_at_stop_; }

    std::string description() const override;
    int threads() const override;
    // Every member's rays together.
    RayCounts rays_traced() const override;
    double thread_equivalents() const override;
    // Enough items for every device's piece to fill it.
    uint64_t min_band_items() const override;
    bool item_is_sample() const override;
    bool first_hit_features(const FrameSettings& frame, uint32_t samples, float* albedo, float* normal,
                            float* depth) override;
    bool has_gpu() const override;
    uint64_t gpu_memory_used_bytes() const override;

    // The members: a caller that deals to them itself must then submit no
    // band to the group.
    std::vector<BandRenderer*> devices() override;
    size_t device_count() const { return devices_.size(); }
    // Each device's pixel samples rendered so far (reports, tests).
    std::vector<uint64_t> samples_by_device() const;

private:
    struct Piece {
        RowRange rows;
        bool finished = false;
        uint32_t rows_kept = 0;  // finished after a stop: its leading rows that are whole
    };
    struct SubmittedBand {
        FrameSettings frame;
        RowRange rows;
        SampleRange samples;
        float* sums = nullptr;
        std::atomic<uint64_t>* samples_done = nullptr;
        uint32_t next_row = 0;  // the first row no device has taken
        std::vector<Piece> pieces;
        size_t unfinished = 0;
    };
    struct Device {
        std::unique_ptr<BandRenderer> renderer;
        std::thread thread;
        double speed = 0;  // pixel samples per second while busy (0: not measured yet)
        double busy_seconds = 0;
        uint64_t samples = 0;
    };

    void drive(size_t device);
    // Under the lock: the next rows of the oldest band with rows left, for
    // `device`; false when there are none.
    bool take_piece(size_t device, SubmittedBand*& band, size_t& piece);
    double share_of(size_t device) const;  // under the lock

    std::vector<Device> devices_;
    mutable std::mutex mutex_;
    std::condition_variable work_ready_, band_finished_;
    std::deque<std::unique_ptr<SubmittedBand>> bands_;  // submitted, not yet returned, oldest first
    bool closing_ = false;
    std::exception_ptr failure_;
    uint32_t rows_finished_at_stop_ = 0;
};

}  // namespace farmrt
