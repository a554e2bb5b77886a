// MelFrontEnd: feeds LogMelStream hop by hop so that every frame finds its hop's VAD decision,
// and queues the frames.
#include "earshot/audio/mel_front_end.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>

namespace earshot::audio {

namespace {

// An assert that stays on in release builds.
void check_invariant(bool ok, const char* what) {
    if (!ok) {
        std::fprintf(stderr, "earshot: mel front end invariant broken: %s\n", what);
        std::abort();
    }
}

EnergyVadOptions whisper_hops(EnergyVadOptions vad) {
    if (vad.hop_samples != kWhisperHopSamples || vad.sample_rate_hz != kWhisperSampleRateHz) {
        throw std::invalid_argument(
            "mel front end: the VAD must judge Whisper's hops (160 samples at 16000 Hz), got " +
            std::to_string(vad.hop_samples) + " at " + std::to_string(vad.sample_rate_hz) + " Hz");
    }
    return vad;
}

}  // namespace

MelFrontEnd::MelFrontEnd(int mels, MelFrameQueue& queue, EnergyVadOptions vad)
    : stream_(mels), vad_(whisper_hops(vad)), queue_(queue) {
    if (queue.mels() != mels) {
        throw std::invalid_argument("mel front end: the queue holds frames of " +
                                    std::to_string(queue.mels()) + " mels, not " +
                                    std::to_string(mels));
    }
}

void MelFrontEnd::judge_hop(std::span<const float> hop) {
    const bool speech = vad_.push_hop(hop);
    const auto level = static_cast<float>(vad_.level_dbfs());
    pending_[hops_judged_ % kPendingHops] = MelFrameInfo{speech, level};
    ++hops_judged_;
    level_dbfs_.store(level, std::memory_order_relaxed);
    speech_.store(speech, std::memory_order_relaxed);
}

void MelFrontEnd::emit(std::int64_t frame_index, std::span<const float> raw_frame) {
    check_invariant(frame_index < hops_judged_ && frame_index >= hops_judged_ - kPendingHops,
                    "a frame without its hop's decision");
    queue_.push(raw_frame, pending_[frame_index % kPendingHops]);
    frames_emitted_.store(frame_index + 1, std::memory_order_release);
}

void MelFrontEnd::push(std::span<const float> samples) {
    auto sink = [this](std::int64_t index, std::span<const float> frame) { emit(index, frame); };
    // Hop-aligned pieces: a hop is judged before the stream sees its last sample, so any frame
    // the piece completes finds its decision.
    while (!samples.empty()) {
        const auto n = std::min<std::size_t>(
            samples.size(), static_cast<std::size_t>(kWhisperHopSamples - hop_fill_));
        const auto piece = samples.first(n);
        std::copy(piece.begin(), piece.end(), hop_ + hop_fill_);
        hop_fill_ += static_cast<std::int64_t>(n);
        if (hop_fill_ == kWhisperHopSamples) {
            judge_hop(hop_);
            hop_fill_ = 0;
        }
        stream_.push(piece, sink);
        samples = samples.subspan(n);
    }
}

void MelFrontEnd::finish() {
    if (stream_.finished()) return;
    if (hop_fill_ > 0) {
        judge_hop(std::span<const float>(hop_, static_cast<std::size_t>(hop_fill_)));
        hop_fill_ = 0;
    }
    stream_.finish(
        [this](std::int64_t index, std::span<const float> frame) { emit(index, frame); });
}

void MelFrontEnd::reset() {
    stream_.reset();
    vad_.reset();
    hop_fill_ = 0;
    hops_judged_ = 0;
    frames_emitted_.store(0, std::memory_order_release);
    level_dbfs_.store(static_cast<float>(EnergyVad::kSilenceDbfs), std::memory_order_relaxed);
    speech_.store(false, std::memory_order_relaxed);
}

}  // namespace earshot::audio
