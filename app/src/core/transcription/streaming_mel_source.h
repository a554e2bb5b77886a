// StreamingMelSource: a file's long-form log-mel window by window, decoded incrementally with
// FFmpeg, so that transcribing a file of any length holds about two windows of it in memory.
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <vector>

#include "earshot/audio/file_decoder.h"
#include "earshot/audio/log_mel.h"
#include "earshot/engine/decoding/seek_loop.h"

namespace earshot::app {

// The windows are exactly those of whole_file_mel() (the samples with `padding_frames` frames of
// silence appended, normalized over all of it: openai's global max - 8 clamp, reference §1.5,
// §1.6), bit for bit, in two passes over the file: open() decodes it once to find its length,
// its damaged spans, where it is speech and the maximum of its raw log-mel; window() decodes it
// again and computes the normalized frames as the seek loop reaches them, forgetting those before
// its seek.
class StreamingMelSource final : public decoding::MelWindowSource {
public:
    // The first pass. `progress` (may be empty) hears the fraction of the file decoded; a set
    // `*cancel` stops it and open() returns nothing. Throws audio::AudioFileError.
    static std::optional<StreamingMelSource> open(const std::filesystem::path& path, int mels,
                                                  int64_t padding_frames,
                                                  const std::function<void(double)>& progress,
                                                  const std::atomic<bool>* cancel);

    int64_t mels() const override { return mels_; }
    int64_t content_frames() const override { return content_frames_; }
    // Throws std::logic_error when `seek` is before an earlier call's, audio::AudioFileError when
    // the file has become unreadable since open().
    backend::HostTensor window(int64_t seek, int64_t frames) override;

    double audio_s() const;
    int64_t samples() const { return samples_; }
    // Where the first pass heard speech: audio::FileSpeechDetector's loud hops, 10 ms each.
    const decoding::SpeechActivity* speech_activity() const override { return &speech_; }
    // Where the first pass found damaged audio (transcribed as silence).
    const std::vector<audio::DamagedSpan>& damaged_spans() const { return damaged_spans_; }
    // Normalized frames held now ([Frames][Mels]), for the tests of the memory bound.
    int64_t held_frames() const;

private:
    StreamingMelSource(const std::filesystem::path& path, int mels, int64_t padding_frames);
    // Computes frames until `end` are held or the stream has ended.
    void produce_until(int64_t end);

    std::filesystem::path path_;
    int mels_ = 0;
    int64_t padding_frames_ = 0;
    int64_t samples_ = 0;
    int64_t content_frames_ = 0;
    float clamp_floor_ = 0.0F;  // global max - 8
    std::vector<audio::DamagedSpan> damaged_spans_;
    decoding::SpeechActivity speech_;  // one byte per 10 ms: 360 kB per hour of audio

    // The second pass, started by the first window().
    std::optional<audio::FileDecoder> decoder_;
    std::optional<audio::LogMelStream> stream_;
    int64_t silence_left_ = 0;  // samples of the appended silence not yet pushed
    bool stream_done_ = false;
    int64_t first_held_ = 0;   // index of held_[0]'s frame
    std::vector<float> held_;  // normalized frames [first_held_, ...), [Frames][Mels]
};

}  // namespace earshot::app
