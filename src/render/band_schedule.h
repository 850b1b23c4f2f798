// How the farm cuts an image into bands of rows and deals them to ranks.
// Pure functions and one small state machine, with no MPI in them, so that
// tests can check every schedule's coverage without launching ranks.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "render/band_renderer.h"

namespace farmrt {

enum class Schedule {
    Static,   // one contiguous block of rows per rank (the classic split)
    Cyclic,   // bands dealt round robin
    Dynamic,  // a rank asks rank 0 for its next band when it runs out
};

Schedule parse_schedule(const std::string& name);  // throws InputError
const char* schedule_name(Schedule schedule);

// The most rows one band may hold so that its message stays small (16 MiB of
// float RGB sums) whatever the image width.
uint32_t max_band_rows(uint32_t width);
// Rows per band when --band is not given, for static and cyclic: about eight
// bands per rank, so cyclic spreads costly regions and static streams its block.
uint32_t automatic_band_rows(uint32_t width, uint32_t height, int ranks);

// The bands that `rank` renders under a static or cyclic schedule, in order.
std::vector<RowRange> predetermined_bands(Schedule schedule, uint32_t height, int ranks, int rank, uint32_t band_rows);

// What a rank's backend is like, told with each of its requests
// (BandRenderer's threads, thread_equivalents, bands_in_flight, min_band_items,
// item_is_sample).
// What a dealer answers a rank that asks for work, the frame queue and the
// band schedule alike: work to render, nothing now (ask again once something
// changes), or nothing any more.
enum class DealAnswer { Work, NotNow, Done };

struct RankAbility {
    int threads = 1;
    double thread_equivalents = 0;  // first guess of its speed in CPU threads; 0 = threads
    int slots = 1;                  // bands it renders at once (a GPU: two, on two streams)
    uint64_t min_band_items = 0;    // fewer work items leave it partly idle (a GPU's resident threads)
    bool item_is_sample = false;    // a work item is one pixel's sample (else a whole pixel)
};

// How the guided dealer weighs CPU ranks against each other. A rank's measured
// samples per second depends on the rows it happened to render (a sky row
// costs a quarter of a row below the horizon), so between CPU ranks it is
// noise: rank 0, whose first band is always the sky, looked 2-4x faster than
// the others and took bands that outlasted the job (16 cores, 8 x 1 ranks:
// rank 0 busy 4.1 s, the others 3.2 s). A GPU rank always weighs its measured
// speed (at least its guess): there the difference is real and large.
enum class SpeedWeighting {
    Pooled,    // a CPU rank weighs its threads x the CPU ranks' pooled speed per thread
    Measured,  // a CPU rank weighs its own measured samples per second
};

// The shortest band worth handing a rank with a floor (a GPU, min_band_items).
// Each GPU launch ends in a tail of 3.7-4.0 ms that nothing else fills
// (CudaOptions::sample_buffer_bytes), so a band of 4 ms took about twice its
// work. 20 ms against 4: two H200s 2.7% and 1.4% faster at 1200x675 and
// 3840x2160; the thousand-node simulation, its GPUs' tails modelled, 1.026
// against 1.025 (results/multi_gpu.md; FARMRT_FARM_MIN_BAND_MS measures others).
constexpr double kMinBandSeconds = 0.02;

// Rank 0's dealer for the dynamic schedule. With a fixed band size it hands
// out bands top to bottom; without one it is guided: each band is a third of the
// requesting rank's fair share of the rows left (shares follow the ranks'
// threads, and a GPU rank's measured speed, so a GPU rank gets larger bands), down to one row at the
// end (a GPU rank: down to the rows that fill it).
class DynamicScheduler {
public:
    DynamicScheduler(uint32_t height, uint32_t width, int ranks, uint32_t fixed_band_rows);

    // What a rank tells rank 0 with each request: its threads (the first
    // guess of its speed) and the samples per second it has measured (0: none yet).
    void report_speed(int rank, int threads, double samples_per_second);
    // The rest of what a rank tells (report_speed's threads included).
    void describe_rank(int rank, const RankAbility& ability);
    const RankAbility& ability(int rank) const { return abilities_[size_t(rank)]; }

    // A request from `rank`, which holds `unfinished` bands. Ranks ask for
    // their next band while rendering one, to hide the round trip; near the
    // end that look-ahead would strand work on a busy rank, so then a busy
    // rank (one holding as many bands as it renders at once, its slots) is
    // told "not now" and asks again once it has a free slot.
    DealAnswer next(int rank, int unfinished, RowRange& band);
    // True when a rank holding `unfinished` bands has a slot free (it would
    // start a new band at once).
    bool has_free_slot(int rank, int unfinished) const;
    // The rows of `rank`'s next band when `rows_left` rows remain (the guided
    // size, or the fixed one): also the most the frame farm hands a rank at
    // once from rows dealt earlier (frame_queue.h).
    uint32_t band_rows(int rank, uint64_t rows_left) const;

    uint32_t rows_left() const { return predetermined_ ? predetermined_rows_left_ : height_ - next_row_; }
    bool in_endgame() const;

    // Tuning (FrameQueueOptions): how CPU ranks are weighed, and the guided
    // band as a fraction 1/divisor of the asking rank's fair share.
    void set_weighting(SpeedWeighting weighting) {
        weighting_ = weighting;
        pooled_.valid = false;
    }
    void set_band_divisor(double divisor) { band_divisor_ = divisor >= 1 ? divisor : 3; }
    // The shortest band for a rank with a floor (kMinBandSeconds by default).
    void set_min_band_seconds(double seconds) { min_band_seconds_ = seconds >= 0 ? seconds : kMinBandSeconds; }
    // False: busy ranks are never told "not now" (a round that another round
    // follows: a look-ahead band held at its end only shifts that round's rows).
    void set_endgame(bool endgame) { endgame_ = endgame; }
    // Samples per pixel of the bands dealt (a frame farm round's pass): a
    // rank whose work items are samples is filled by that many times fewer rows.
    void set_band_samples(uint32_t samples) { band_samples_ = samples > 0 ? samples : 1; }
    // A guided band's work at most `seconds` at the asking rank's measured
    // speed (before it has one, at most kFirstBandSamples pixel samples): a
    // stop keeps the bands finished and renders those in flight again, so
    // this bounds what a stop loses. 0: no bound.
    void set_band_seconds(double seconds) { band_seconds_ = seconds > 0 ? seconds : 0; }
    static constexpr double kFirstBandSamples = double(1 << 24);
    // The work beside this round's rows, in rows: `rows_beside`, what the
    // other open frames have still to deal and the frames not yet opened;
    // `window_rows`, the rows of every frame that may be open at once. A
    // guided band is a share of all the work left, not of this frame's alone
    // (with many frames among many ranks, a frame's own share is a row or
    // less, and rank 0 would answer three messages for every few
    // milliseconds of a node's work), and at most a quarter of a rank's
    // share of the window for each of its slots, so that the open frames
    // keep every rank busy. The endgame begins when the job's work runs short.
    void set_work_beside(uint64_t rows_beside, uint64_t window_rows) {
        rows_beside_ = rows_beside;
        window_rows_ = window_rows;
    }
    // Static and cyclic schedules: each rank gets predetermined_bands() in
    // order (a rank whose bands are all dealt is told "not now" while others'
    // remain), so every schedule runs through one farm: frames, passes,
    // checkpoints and resume included.
    void deal_predetermined(Schedule schedule, uint32_t band_rows);

private:
    // The measured ranks' speeds and threads, pooled, and every rank's
    // weight summed: kept until a rank tells something new.
    struct Pooled {
        bool valid = false;
        double cpu_speed = 0, cpu_threads = 0, all_speed = 0, all_threads = 0;
        double total_weight = 0;
    };
    const Pooled& pooled() const;
    double weight(int rank) const;
    mutable Pooled pooled_;

    uint32_t height_;
    uint32_t next_row_ = 0;
    int ranks_;
    uint32_t fixed_band_rows_;  // 0: guided
    uint32_t max_rows_;

    uint32_t floor_rows(int rank) const;
    bool too_slow_for_the_rest(int rank) const;

    uint32_t width_;
    std::vector<RankAbility> abilities_;
    std::vector<double> speeds_;
    SpeedWeighting weighting_ = SpeedWeighting::Pooled;
    double band_divisor_ = 3;
    double min_band_seconds_ = kMinBandSeconds;
    bool endgame_ = true;
    uint32_t band_samples_ = 1;
    double band_seconds_ = 0;
    uint64_t rows_beside_ = 0, window_rows_ = 0;
    bool predetermined_ = false;
    std::vector<std::vector<RowRange>> rank_bands_;  // predetermined: each rank's bands, in order
    std::vector<size_t> rank_next_;                  // predetermined: each rank's next band
    uint32_t predetermined_rows_left_ = 0;
};

}  // namespace farmrt
