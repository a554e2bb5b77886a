// MelFrontEnd: the audio thread's share of live dictation: 16 kHz mono samples in any chunk sizes
// become raw log-mel frames, each with the voice-activity decision of its 10 ms hop, queued for
// the engine thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <span>

#include "earshot/audio/energy_vad.h"
#include "earshot/audio/log_mel.h"
#include "earshot/audio/mel_frame_queue.h"

namespace earshot::audio {

// Frame t (LogMelStream's frame t, centred on sample 160 t) is queued with the EnergyVad decision
// and plain level of the hop of samples [160 t, 160 t + 160). That hop is always complete when
// push() emits frame t (the frame needs samples up to 160 t + 200). The samples after the last
// whole hop (L mod 160 of them) form a partial hop that finish() judges as it is, for the meter
// and speech(); it has no frame, since a signal of L samples has floor(L / 160) frames.
//
// A full queue drops frames (counted by MelFrameQueue::dropped_frames()); frames_emitted() counts
// every frame made, queued or dropped, so frames_emitted() - dropped = frames queued.
//
// Threads: push(), finish() and reset() on the audio thread only; they never allocate (all
// buffers are sized at construction). frames_emitted(), level_dbfs() and speech() from any thread.
class MelFrontEnd {
public:
    // Throws std::invalid_argument when queue.mels() differs from `mels`, or from EnergyVad for
    // bad options; vad.hop_samples must be Whisper's hop (160) and vad.sample_rate_hz 16000.
    MelFrontEnd(int mels, MelFrameQueue& queue, EnergyVadOptions vad = {});

    MelFrontEnd(const MelFrontEnd&) = delete;
    MelFrontEnd& operator=(const MelFrontEnd&) = delete;

    void push(std::span<const float> samples);  // audio thread
    void finish();  // end of input: the partial hop and the tail frames (LogMelStream::finish)
    // Starts a new signal at frame 0 (after finish(), or to drop what was pushed). Audio thread.
    void reset();

    std::int64_t frames_emitted() const noexcept {  // any thread
        return frames_emitted_.load(std::memory_order_acquire);
    }
    float level_dbfs() const noexcept {  // any thread: the last hop's level, for a meter
        return level_dbfs_.load(std::memory_order_relaxed);
    }
    bool speech() const noexcept {  // any thread: the last hop's decision
        return speech_.load(std::memory_order_relaxed);
    }

private:
    // Decisions of hops judged but whose frame is not out yet: at most 2 are pending (frame t
    // leaves once hop t + 1 is complete), so 8 slots keep a wide margin.
    static constexpr std::int64_t kPendingHops = 8;

    void judge_hop(std::span<const float> hop);
    void emit(std::int64_t frame_index, std::span<const float> raw_frame);

    LogMelStream stream_;
    EnergyVad vad_;
    MelFrameQueue& queue_;
    float hop_[kWhisperHopSamples] = {};  // the hop being filled
    std::int64_t hop_fill_ = 0;
    std::int64_t hops_judged_ = 0;
    MelFrameInfo pending_[kPendingHops] = {};  // by hop index mod kPendingHops

    std::atomic<std::int64_t> frames_emitted_{0};
    std::atomic<float> level_dbfs_{static_cast<float>(EnergyVad::kSilenceDbfs)};
    std::atomic<bool> speech_{false};
};

}  // namespace earshot::audio
