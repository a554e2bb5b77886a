// Snapping segment times to the speech the audio holds (see speech_activity.h).
#include "earshot/engine/decoding/speech_activity.h"

#include <algorithm>
#include <stdexcept>

#include "python_strip.h"

namespace earshot::decoding {
namespace {

// The run holding time `t` (start <= t <= end), or nullptr.
const SpeechRun* run_at(std::span<const SpeechRun> runs, double t) {
    const auto after = std::upper_bound(runs.begin(), runs.end(), t,
                                        [](double x, const SpeechRun& r) { return x < r.start_s; });
    if (after == runs.begin()) return nullptr;
    const SpeechRun& run = *(after - 1);
    return t <= run.end_s ? &run : nullptr;
}

}  // namespace

bool is_blank_segment(const Segment& segment) {
    return python_strip(segment.text).empty() || segment.end_s <= segment.start_s;
}

std::vector<SpeechRun> speech_runs(const SpeechActivity& activity, double max_gap_s) {
    if (!(activity.hop_s > 0.0)) throw std::invalid_argument("speech_runs: hop_s must be > 0");
    if (max_gap_s < 0.0) throw std::invalid_argument("speech_runs: max_gap_s must be >= 0");
    std::vector<SpeechRun> runs;
    const auto max_gap_hops = static_cast<int64_t>(max_gap_s / activity.hop_s + 1e-9);
    int64_t start = -1;  // first loud hop of the open run
    int64_t last = -1;   // last loud hop of the open run
    const auto hops = static_cast<int64_t>(activity.loud.size());
    for (int64_t i = 0; i < hops; ++i) {
        if (activity.loud[static_cast<size_t>(i)] == 0) continue;
        if (start >= 0 && i - last - 1 > max_gap_hops) {
            runs.push_back({static_cast<double>(start) * activity.hop_s,
                            static_cast<double>(last + 1) * activity.hop_s});
            start = -1;
        }
        if (start < 0) start = i;
        last = i;
    }
    if (start >= 0) {
        runs.push_back({static_cast<double>(start) * activity.hop_s,
                        static_cast<double>(last + 1) * activity.hop_s});
    }
    return runs;
}

double snap_segment_times(std::span<Segment> segments, std::span<const SpeechRun> runs,
                          const SpeechSnapOptions& options, double previous_end_s,
                          double next_start_s) {
    constexpr double kSlackS = 1e-6;
    for (size_t i = 0; i < segments.size(); ++i) {
        Segment& segment = segments[i];
        if (is_blank_segment(segment)) continue;
        double next_s = next_start_s;
        for (size_t j = i + 1; j < segments.size(); ++j) {
            if (!is_blank_segment(segments[j])) {
                next_s = segments[j].start_s;
                break;
            }
        }
        double start_s = segment.start_s;
        double end_s = segment.end_s;
        if (const SpeechRun* run = run_at(runs, start_s)) {
            if (start_s - run->start_s <= options.max_extend_s &&
                run->start_s >= previous_end_s - kSlackS) {
                start_s = run->start_s;
            }
        } else {
            // In silence: the first speech after it, if inside the segment and near.
            const auto after =
                std::upper_bound(runs.begin(), runs.end(), start_s,
                                 [](double x, const SpeechRun& r) { return x < r.start_s; });
            if (after != runs.end() && after->start_s < end_s &&
                after->start_s - start_s <= options.max_trim_s) {
                start_s = after->start_s;
            }
        }
        const SpeechRun* end_run = run_at(runs, end_s);
        double silent_end_s = end_s;  // where the end is taken to be in silence
        if (end_run != nullptr && end_run->start_s > start_s + kSlackS &&
            end_s - end_run->start_s <= options.onset_slack_s) {
            // Just past the onset of speech the segment does not start in: a late end timestamp
            // (the next segment's speech), taken as the silence before that onset.
            silent_end_s = end_run->start_s;
            end_run = nullptr;
        }
        if (end_run != nullptr) {
            if (end_run->end_s - end_s <= options.max_extend_s &&
                end_run->end_s <= next_s + kSlackS) {
                end_s = std::max(end_s, end_run->end_s);
            }
        } else {
            // In silence: the end of the last speech before it, if inside the segment and near.
            auto after =
                std::upper_bound(runs.begin(), runs.end(), silent_end_s - kSlackS,
                                 [](double x, const SpeechRun& r) { return x < r.start_s; });
            if (after != runs.begin()) {
                const SpeechRun& before = *(after - 1);
                if (before.end_s > start_s && silent_end_s - before.end_s <= options.max_trim_s) {
                    end_s = before.end_s;
                }
            }
        }
        if (end_s > start_s && !runs.empty()) {
            segment.start_s = start_s;
            segment.end_s = end_s;
            for (Word& word : segment.words) {
                word.start_s = std::clamp(word.start_s, start_s, end_s);
                word.end_s = std::clamp(word.end_s, word.start_s, end_s);
            }
        }
        previous_end_s = segment.end_s;
    }
    return previous_end_s;
}

}  // namespace earshot::decoding
