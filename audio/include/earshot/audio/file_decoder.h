// FileDecoder: any audio file FFmpeg can read (wav, flac, mp3, ogg/vorbis, opus, m4a/aac, the
// audio track of mp4/mkv video, ...) streamed out as 16 kHz mono float; and decode_file(), the
// whole file at once with progress and cancellation.
#pragma once

#include <atomic>
#include <cstddef>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "earshot/audio/audio_file_error.h"

namespace earshot::audio {

// A stretch of the stream, in seconds from its start, whose packets FFmpeg rejected as corrupt.
struct DamagedSpan {
    double start_s = 0;
    double end_s = 0;
};

// Decodes the audio stream FFmpeg ranks best (av_find_best_stream; video and other streams are
// ignored) one codec frame at a time, downmixes and resamples it with libswresample, and hands
// the 16 kHz mono samples out through read(). Memory stays bounded by about one decoded frame
// whatever the file length.
//
// Downmix: channels are mixed with libswresample's matrix normalised so that no coefficient sum
// exceeds 1 (rematrix_maxval = 1), which for stereo is (L + R) / 2: the same mono signal the
// openai loader gets from `ffmpeg -ac 1 -ar 16000 -f s16le`. Resampling uses libswresample's
// default filter (the one the ffmpeg tool uses), output aligned with the input in time. At end of
// file both the decoder and the resampler are flushed, so no tail samples are lost. Encoder delay
// and padding are trimmed where the container records them (LAME header, Opus pre-skip, MP4 edit
// lists, Ogg granule positions).
//
// Errors (a file that cannot be opened, is empty, is not a media file, has no audio stream, has a
// codec this FFmpeg cannot decode, or fails while reading) throw AudioFileError. End of file is a
// value: read() returns 0. FFmpeg's own log output is silenced.
class FileDecoder {
public:
    static constexpr int kSampleRateHz = 16000;  // Whisper's input rate (reference §1.1)

    // Opens `path` and its decoder. Throws AudioFileError.
    static FileDecoder open(const std::filesystem::path& path);

    FileDecoder(FileDecoder&&) noexcept;
    FileDecoder& operator=(FileDecoder&&) noexcept;
    FileDecoder(const FileDecoder&) = delete;
    FileDecoder& operator=(const FileDecoder&) = delete;
    ~FileDecoder();

    // Writes up to out.size() 16 kHz mono samples; returns how many. Fewer than out.size() only at
    // the end of the file, and 0 once everything has been read. Throws AudioFileError when the
    // file turns out unreadable mid-way (packets FFmpeg rejects as corrupt are skipped, as the
    // ffmpeg tool does, unless no packet at all decodes).
    std::size_t read(std::span<float> out);

    // The stream's duration in seconds as the container states (or, for raw mp3 without a
    // header, estimates) it; empty when unknown.
    std::optional<double> duration_s() const;

    // Fraction of the stream decoded so far, in [0, 1]: from timestamps when the duration is
    // known, from the byte position otherwise. Never decreases; 1 exactly once read() has
    // returned 0.
    double progress() const;

    // True once read() has returned everything.
    bool at_end() const;

    const std::filesystem::path& path() const;
    std::string codec_name() const;     // e.g. "mp3", "flac", "pcm_s16le"
    int source_sample_rate_hz() const;  // of the decoded stream
    int source_channels() const;

    // Samples decoded and resampled but not yet handed out, and the capacity (in samples) of the
    // buffer holding them: both bounded by the largest codec frame, not by the file length.
    std::size_t buffered_samples() const;
    std::size_t buffer_capacity_samples() const;

    // Packets FFmpeg rejected as corrupt and that were skipped.
    std::size_t skipped_packets() const;
    // Where decoded audio is missing: a frame that starts later than the one before it ended
    // (by more than 5 ms) after corrupt packets were skipped. The gap is handed out as silence,
    // so that the audio after it keeps its time. In stream order, neighbours merged.
    const std::vector<DamagedSpan>& damaged_spans() const;

private:
    struct State;
    explicit FileDecoder(std::unique_ptr<State> state);
    std::unique_ptr<State> state_;
};

enum class DecodeOutcome { completed, cancelled };

struct DecodeOptions {
    // Called after each chunk with FileDecoder::progress(): never decreasing, and 1.0 last when
    // the file was decoded to its end (not called with 1.0 when cancelled).
    std::function<void(double fraction)> on_progress;
    // Checked before each chunk; once it reads true, decoding stops and the result says so.
    const std::atomic<bool>* cancel = nullptr;
    // Samples per read() call between progress reports and cancellation checks (1 s by default).
    std::size_t chunk_samples = FileDecoder::kSampleRateHz;
};

struct DecodedAudio {
    std::vector<float> samples;  // [N] 16 kHz mono; when cancelled, the part decoded before
    DecodeOutcome outcome = DecodeOutcome::completed;
    std::vector<DamagedSpan> damaged_spans;  // FileDecoder::damaged_spans(), silence in samples

    bool cancelled() const { return outcome == DecodeOutcome::cancelled; }
};

// Decodes a whole file to 16 kHz mono through FileDecoder. Throws AudioFileError on errors;
// cancellation is an outcome, not an exception.
DecodedAudio decode_file(const std::filesystem::path& path, const DecodeOptions& options = {});

}  // namespace earshot::audio
