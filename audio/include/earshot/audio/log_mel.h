// Whisper's log-mel front end (reference §1), one implementation in two modes: LogMelStream turns
// samples pushed in any chunk sizes into raw log-mel frames, and the batch functions run that same
// stream over a whole signal or one padded window and normalize the result.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <type_traits>
#include <vector>

#include "earshot/audio/mel_filterbank.h"

namespace earshot::audio {

// One Whisper window: 30 s = 480000 samples = 3000 frames of 10 ms (reference §1.1).
inline constexpr std::int64_t kWhisperWindowFrames = 3000;
// Raw frame values are log10(max(mel power, 1e-10)), so never below this (reference §1.5).
inline constexpr float kLogMelFloor = -10.0f;

// A normalized log-mel spectrogram, [Mels, Frames] row-major, ready for the encoder.
struct LogMel {
    int mels = 0;
    std::int64_t frames = 0;
    std::vector<float> values;  // [Mels, Frames]

    float at(int mel, std::int64_t frame) const {
        return values[static_cast<std::size_t>(mel * frames + frame)];
    }
};

// Where LogMelStream delivers frames: a non-owning reference to any callable
// `void(std::int64_t frame_index, std::span<const float> raw_frame /* [Mels] */)`. It neither
// allocates nor copies the callable, which must outlive the push() or finish() call it is given to.
class FrameSink {
public:
    template <typename F>
    requires(!std::is_same_v<std::remove_cvref_t<F>, FrameSink>)
        FrameSink(F&& callable)  // NOLINT(google-explicit-constructor): passed as a lambda
        : object_(const_cast<void*>(static_cast<const void*>(std::addressof(callable)))),
          call_([](void* object, std::int64_t index, std::span<const float> frame) {
              (*static_cast<std::remove_reference_t<F>*>(object))(index, frame);
          }) {}

    void operator()(std::int64_t frame_index, std::span<const float> raw_frame) const {
        call_(object_, frame_index, raw_frame);
    }

private:
    void* object_;
    void (*call_)(void*, std::int64_t, std::span<const float>);
};

// Streaming log-mel: 16 kHz mono samples in, raw frames out as soon as their samples exist.
//
// Frame t is Whisper's STFT frame t of the centred transform: original samples
// [160 t - 200, 160 t + 200) with reflect padding at both ends (x[-k] = x[k], x[L - 1 + k] =
// x[L - 1 - k]), times a periodic Hann window of 400, real FFT, power |X|^2 of the 201 bins, the
// Slaney filterbank (float32 weights, accumulated in double), then log10(max(., 1e-10)). That is
// the value BEFORE Whisper's normalization: no max - 8 clamp, no (x + 4) / 4.
//
// push() emits frame t once 160 t + 200 samples have been pushed (frame 0 needs 201, for its
// reflection of x[1..200]); finish() emits the tail frames, whose windows reach past the end,
// with the end reflection, so that a signal of L samples yields floor(L / 160) frames in all,
// exactly the batch frames for every chunking. After finish(), reset() starts a new signal.
//
// The max - 8 clamp is global over what is normalized together, so it is not applied per frame:
// the caller collects a window of raw frames (up to 30 s, [Frames][Mels]) and passes it to
// normalize_window(), which clamps with that window's own maximum. Streaming therefore
// normalizes per window, like Hugging Face's short-form extractor, not over the whole file.
//
// push() and finish() never allocate (buffers are sized at construction): safe on the audio
// thread. Not thread-safe; one thread drives a stream.
class LogMelStream {
public:
    explicit LogMelStream(int mels);
    ~LogMelStream();
    LogMelStream(LogMelStream&&) noexcept;
    LogMelStream& operator=(LogMelStream&&) noexcept;
    LogMelStream(const LogMelStream&) = delete;
    LogMelStream& operator=(const LogMelStream&) = delete;

    int mels() const;

    // Appends samples (any count, including 0 or 1) and emits every frame now complete. Returns
    // the number of frames emitted. Must not be called after finish() until reset().
    std::int64_t push(std::span<const float> samples, FrameSink sink);

    // Ends the signal: emits the remaining frames with the end reflection. Returns their count.
    // Calling it again emits nothing.
    std::int64_t finish(FrameSink sink);

    // Forgets the signal; the next push() starts a new one at frame 0.
    void reset();

    std::int64_t samples_pushed() const;
    std::int64_t frames_emitted() const;
    bool finished() const;

private:
    struct State;
    std::unique_ptr<State> state_;
};

// Raw frames of a whole signal through LogMelStream: floor(samples.size() / 160) frames,
// [Frames][Mels] (frame-major, the order the stream emits them).
std::vector<float> raw_log_mel_frames(std::span<const float> samples, int mels);

// Whisper's normalization of one window of raw frames ([Frames][Mels]):
// max(x, window max - 8), then (x + 4) / 4, transposed to [Mels, Frames]. When `frames` is given
// the window is first cut to it or padded with raw silence frames (kLogMelFloor, what all-zero
// samples give), which normalize as silence does: (max(-10, max - 8) + 4) / 4, that is
// (max - 4) / 4 whenever the window's max is above -2 (any audible signal).
LogMel normalize_window(std::span<const float> raw_frames, int mels,
                        std::optional<std::int64_t> frames = std::nullopt);

// Batch, whole signal: floor(samples.size() / 160) frames, normalized with the maximum of the
// whole signal (openai log_mel_spectrogram without padding).
LogMel log_mel(std::span<const float> samples, int mels);

// Batch, one Whisper window: the samples are cut or padded with silence (zero samples) to
// frames * 160 BEFORE the STFT, giving exactly `frames` frames, normalized with the window's
// maximum. This is the short-form padding of openai pad_or_trim + log_mel_spectrogram, Hugging
// Face's feature extractor and whisper.cpp (reference §1.6): the padded frames hold log-mel of
// silence, (max - 4) / 4, not the 0.0 that openai's long-form transcribe() pads the normalized
// log-mel with.
LogMel log_mel_window(std::span<const float> samples, int mels,
                      std::int64_t frames = kWhisperWindowFrames);

}  // namespace earshot::audio
