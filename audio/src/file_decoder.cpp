// FileDecoder: libavformat demuxes, libavcodec decodes, libswresample downmixes and resamples to
// 16 kHz mono float; one codec frame is decoded per refill of the output buffer.
#include "earshot/audio/file_decoder.h"

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/channel_layout.h>
#include <libavutil/opt.h>
#include <libswresample/swresample.h>
}

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <system_error>
#include <utility>

#include "ffmpeg_log.h"
#include "file_content_kind.h"

namespace earshot::audio {
namespace {

// Progress stays below 1 until read() has returned 0.
constexpr double kProgressBeforeEnd = 0.999;

enum class Stage {
    reading,             // packets go to the decoder
    draining_decoder,    // end of file: the decoder hands out what it still holds
    flushing_resampler,  // the decoder is empty: the resampler hands out its tail
    done,
};

std::string media_type_list(const AVFormatContext* format) {
    std::string list;
    for (unsigned i = 0; i < format->nb_streams; ++i) {
        const char* type = av_get_media_type_string(format->streams[i]->codecpar->codec_type);
        list += (i == 0 ? "" : ", ");
        list += type == nullptr ? "unknown" : type;
    }
    return list.empty() ? "none" : list;
}

// The codec name of the first audio stream, for "unsupported codec" messages.
std::string first_audio_codec_name(const AVFormatContext* format) {
    for (unsigned i = 0; i < format->nb_streams; ++i) {
        const AVCodecParameters* parameters = format->streams[i]->codecpar;
        if (parameters->codec_type == AVMEDIA_TYPE_AUDIO) {
            std::string name = avcodec_get_name(parameters->codec_id);
            if (parameters->codec_id == AV_CODEC_ID_NONE && parameters->codec_tag != 0) {
                char tag[32];
                std::snprintf(tag, sizeof(tag), " (codec tag 0x%04x)", parameters->codec_tag);
                name += tag;
            }
            return name;
        }
    }
    return "unknown";
}

}  // namespace

struct FileDecoder::State {
    std::filesystem::path path;
    AVFormatContext* format = nullptr;
    AVCodecContext* codec = nullptr;
    SwrContext* resampler = nullptr;
    AVPacket* packet = nullptr;
    AVFrame* frame = nullptr;
    int stream_index = -1;

    // The input format the resampler is configured for (frames may change it mid-stream).
    int resampler_format = -1;
    int resampler_rate_hz = 0;
    AVChannelLayout resampler_layout{};

    std::vector<float> pending;  // [P] resampled 16 kHz mono samples not yet handed out
    std::size_t pending_offset = 0;

    Stage stage = Stage::reading;
    std::optional<double> duration_s;
    double start_s = 0.0;
    std::int64_t file_size_bytes = 0;
    double progress = 0.0;
    std::size_t decoded_frames = 0;
    std::size_t skipped_packets = 0;
    int last_skip_error = 0;
    std::size_t skipped_at_last_frame = 0;
    std::optional<double> decoded_end_s;  // where the last decoded frame ended, stream seconds
    std::vector<DamagedSpan> damaged;

    State() = default;
    State(const State&) = delete;
    State& operator=(const State&) = delete;
    ~State() {
        av_frame_free(&frame);
        av_packet_free(&packet);
        swr_free(&resampler);
        av_channel_layout_uninit(&resampler_layout);
        avcodec_free_context(&codec);
        avformat_close_input(&format);
    }

    [[noreturn]] void fail(const std::string& problem) const {
        throw AudioFileError(path, problem);
    }

    [[noreturn]] void fail(const std::string& what, int code) const {
        fail(what + ": " + ffmpeg::describe(code));
    }

    // A file whose content is text, an image, a document...: says so, whatever its name claims.
    void fail_if_not_media() const {
        if (const auto content = describe_non_media_content(path)) {
            fail(*content);
        }
    }

    void open_input();
    void open_decoder();
    void configure_resampler(const AVFrame& input);
    void resample(const AVFrame* input);
    bool refill();
    void note_progress(const AVFrame& decoded);
    void fill_gap(const AVFrame& decoded);
};

void FileDecoder::State::open_input() {
    std::error_code error;
    const auto size = std::filesystem::file_size(path, error);
    if (!error && size == 0) {
        fail("empty file (0 bytes)");
    }
    file_size_bytes = error ? 0 : static_cast<std::int64_t>(size);

    ffmpeg::clear_last_message();
    int code = avformat_open_input(&format, path.c_str(), nullptr, nullptr);
    if (code < 0) {
        if (code == AVERROR(ENOENT) || code == AVERROR(EACCES) || code == AVERROR(EISDIR)) {
            fail("cannot open", code);
        }
        fail_if_not_media();
        fail("not a readable audio or video file", code);
    }
    ffmpeg::clear_last_message();
    code = avformat_find_stream_info(format, nullptr);
    if (code < 0) {
        fail_if_not_media();
        fail("cannot read the stream parameters", code);
    }
}

void FileDecoder::State::open_decoder() {
    const AVCodec* decoder = nullptr;
    const int index = av_find_best_stream(format, AVMEDIA_TYPE_AUDIO, -1, -1, &decoder, 0);
    if (index < 0 || decoder == nullptr) {
        // A text file named .mp3 opens as an MP3 stream that has no sample rate.
        fail_if_not_media();
    }
    if (index == AVERROR_STREAM_NOT_FOUND) {
        fail("no audio stream (streams: " + media_type_list(format) + ")");
    }
    if (index == AVERROR_DECODER_NOT_FOUND || (index >= 0 && decoder == nullptr)) {
        fail(
            "unsupported codec " + first_audio_codec_name(format) +
            " (no decoder in this FFmpeg build): " + ffmpeg::error_text(AVERROR_DECODER_NOT_FOUND));
    }
    if (index < 0) {
        fail("cannot choose an audio stream", index);
    }
    stream_index = index;
    // Only the chosen stream's packets are read; the demuxer skips the others.
    for (unsigned i = 0; i < format->nb_streams; ++i) {
        if (static_cast<int>(i) != stream_index) {
            format->streams[i]->discard = AVDISCARD_ALL;
        }
    }
    const AVStream* stream = format->streams[stream_index];

    codec = avcodec_alloc_context3(decoder);
    if (codec == nullptr) {
        fail("cannot allocate a decoder", AVERROR(ENOMEM));
    }
    int code = avcodec_parameters_to_context(codec, stream->codecpar);
    if (code < 0) {
        fail("cannot configure the decoder", code);
    }
    codec->pkt_timebase = stream->time_base;
    ffmpeg::clear_last_message();
    code = avcodec_open2(codec, decoder, nullptr);
    if (code < 0) {
        fail(std::string("cannot open the ") + decoder->name + " decoder", code);
    }

    packet = av_packet_alloc();
    frame = av_frame_alloc();
    if (packet == nullptr || frame == nullptr) {
        fail("cannot allocate decoding buffers", AVERROR(ENOMEM));
    }

    const double time_base_s = av_q2d(stream->time_base);
    if (stream->duration != AV_NOPTS_VALUE && stream->duration > 0) {
        duration_s = static_cast<double>(stream->duration) * time_base_s;
    } else if (format->duration != AV_NOPTS_VALUE && format->duration > 0) {
        duration_s = static_cast<double>(format->duration) / AV_TIME_BASE;
    }
    if (stream->start_time != AV_NOPTS_VALUE) {
        start_s = static_cast<double>(stream->start_time) * time_base_s;
    }
}

void FileDecoder::State::configure_resampler(const AVFrame& input) {
    const bool same = resampler != nullptr && input.format == resampler_format &&
                      input.sample_rate == resampler_rate_hz &&
                      av_channel_layout_compare(&input.ch_layout, &resampler_layout) == 0;
    if (same) {
        return;
    }
    if (resampler != nullptr) {
        // The stream changed format mid-way: hand out the old configuration's tail first.
        resample(nullptr);
        swr_free(&resampler);
    }
    av_channel_layout_uninit(&resampler_layout);
    int code = av_channel_layout_copy(&resampler_layout, &input.ch_layout);
    if (code < 0) {
        fail("cannot copy the channel layout", code);
    }
    AVChannelLayout in_layout{};
    if (input.ch_layout.order == AV_CHANNEL_ORDER_UNSPEC) {
        // Channel count only (e.g. a WAV without a channel mask): assume the usual layout.
        av_channel_layout_default(&in_layout, input.ch_layout.nb_channels);
    } else {
        code = av_channel_layout_copy(&in_layout, &input.ch_layout);
        if (code < 0) {
            fail("cannot copy the channel layout", code);
        }
    }
    AVChannelLayout mono{};
    av_channel_layout_default(&mono, 1);
    code = swr_alloc_set_opts2(&resampler, &mono, AV_SAMPLE_FMT_FLT, kSampleRateHz, &in_layout,
                               static_cast<AVSampleFormat>(input.format), input.sample_rate, 0,
                               nullptr);
    av_channel_layout_uninit(&in_layout);
    av_channel_layout_uninit(&mono);
    if (code < 0 || resampler == nullptr) {
        fail("cannot set up the resampler", code < 0 ? code : AVERROR(ENOMEM));
    }
    // Normalise the downmix matrix so that stereo becomes (L + R) / 2 (see the header).
    av_opt_set_double(resampler, "rematrix_maxval", 1.0, 0);
    ffmpeg::clear_last_message();
    code = swr_init(resampler);
    if (code < 0) {
        fail("cannot set up the resampler for " + std::to_string(input.sample_rate) + " Hz, " +
                 std::to_string(input.ch_layout.nb_channels) + " channels",
             code);
    }
    resampler_format = input.format;
    resampler_rate_hz = input.sample_rate;
}

// Appends the resampled `input` (or, for nullptr, the resampler's buffered tail) to `pending`.
void FileDecoder::State::resample(const AVFrame* input) {
    if (resampler == nullptr) {
        return;  // nothing was ever decoded
    }
    const int in_samples = input == nullptr ? 0 : input->nb_samples;
    const std::uint8_t** in_planes =
        input == nullptr ? nullptr : const_cast<const std::uint8_t**>(input->extended_data);
    for (;;) {
        const int room = swr_get_out_samples(resampler, in_samples);
        if (room <= 0) {
            return;
        }
        const std::size_t before = pending.size();
        pending.resize(before + static_cast<std::size_t>(room));
        auto* out_plane = reinterpret_cast<std::uint8_t*>(pending.data() + before);
        const int written = swr_convert(resampler, &out_plane, room, in_planes, in_samples);
        if (written < 0) {
            pending.resize(before);
            fail("resampling failed", written);
        }
        pending.resize(before + static_cast<std::size_t>(written));
        // With input, one call converts all of it; a flush repeats until the tail is out.
        if (input != nullptr || written == 0) {
            return;
        }
    }
}

void FileDecoder::State::note_progress(const AVFrame& decoded) {
    double fraction = progress;
    const std::int64_t pts = decoded.best_effort_timestamp;
    if (duration_s && *duration_s > 0.0 && pts != AV_NOPTS_VALUE) {
        const double end_s =
            static_cast<double>(pts) * av_q2d(format->streams[stream_index]->time_base) +
            static_cast<double>(decoded.nb_samples) / decoded.sample_rate;
        fraction = (end_s - start_s) / *duration_s;
    } else if (file_size_bytes > 0 && format->pb != nullptr) {
        fraction =
            static_cast<double>(avio_tell(format->pb)) / static_cast<double>(file_size_bytes);
    }
    progress = std::clamp(fraction, progress, kProgressBeforeEnd);
}

// After skipped corrupt packets, a frame starting later than the last one ended: silence for the
// gap (at 16 kHz, straight into `pending`), and the span noted.
void FileDecoder::State::fill_gap(const AVFrame& decoded) {
    const std::int64_t pts = decoded.best_effort_timestamp;
    if (pts == AV_NOPTS_VALUE || decoded.sample_rate <= 0) return;
    const double begin_s =
        static_cast<double>(pts) * av_q2d(format->streams[stream_index]->time_base) - start_s;
    const double end_s = begin_s + static_cast<double>(decoded.nb_samples) / decoded.sample_rate;
    constexpr double kGapToleranceS = 0.005;  // rounding of timestamps stays under this
    if (decoded_end_s && skipped_packets > skipped_at_last_frame &&
        begin_s > *decoded_end_s + kGapToleranceS) {
        const double gap_s = std::min(begin_s - *decoded_end_s, 3600.0);
        pending.insert(pending.end(), static_cast<std::size_t>(gap_s * kSampleRateHz), 0.0f);
        if (!damaged.empty() && damaged.back().end_s + kGapToleranceS >= *decoded_end_s) {
            damaged.back().end_s = begin_s;
        } else {
            damaged.push_back({*decoded_end_s, begin_s});
        }
    }
    skipped_at_last_frame = skipped_packets;
    decoded_end_s = std::max(end_s, decoded_end_s.value_or(end_s));
}

// Puts the next resampled samples into `pending`; false once the file is exhausted.
bool FileDecoder::State::refill() {
    pending.clear();
    pending_offset = 0;
    while (pending.empty()) {
        switch (stage) {
            case Stage::done:
                return false;
            case Stage::flushing_resampler:
                resample(nullptr);
                stage = Stage::done;
                if (decoded_frames == 0 && skipped_packets > 0) {
                    fail("no decodable audio: " + std::to_string(skipped_packets) +
                             " corrupt packets, the last",
                         last_skip_error);
                }
                continue;
            case Stage::reading:
            case Stage::draining_decoder:
                break;
        }

        ffmpeg::clear_last_message();
        int code = avcodec_receive_frame(codec, frame);
        if (code == 0) {
            ++decoded_frames;
            configure_resampler(*frame);
            fill_gap(*frame);
            resample(frame);
            note_progress(*frame);
            av_frame_unref(frame);
            continue;
        }
        if (code == AVERROR_EOF) {
            stage = Stage::flushing_resampler;
            continue;
        }
        if (code == AVERROR_INVALIDDATA) {
            ++skipped_packets;
            last_skip_error = code;
            continue;
        }
        if (code != AVERROR(EAGAIN)) {
            fail("decoding failed", code);
        }
        if (stage == Stage::draining_decoder) {
            stage = Stage::flushing_resampler;  // a draining decoder never asks for more input
            continue;
        }

        ffmpeg::clear_last_message();
        code = av_read_frame(format, packet);
        if (code == AVERROR_EOF) {
            avcodec_send_packet(codec, nullptr);  // enter draining mode
            stage = Stage::draining_decoder;
            continue;
        }
        if (code < 0) {
            fail("reading failed", code);
        }
        if (packet->stream_index != stream_index) {
            av_packet_unref(packet);
            continue;
        }
        ffmpeg::clear_last_message();
        code = avcodec_send_packet(codec, packet);
        av_packet_unref(packet);
        if (code == AVERROR_INVALIDDATA) {
            ++skipped_packets;
            last_skip_error = code;
        } else if (code < 0 && code != AVERROR(EAGAIN)) {
            fail("decoding failed", code);
        }
    }
    return true;
}

FileDecoder FileDecoder::open(const std::filesystem::path& path) {
    ffmpeg::install_quiet_log();
    auto state = std::make_unique<State>();
    state->path = path;
    state->open_input();
    state->open_decoder();
    return FileDecoder(std::move(state));
}

FileDecoder::FileDecoder(std::unique_ptr<State> state) : state_(std::move(state)) {}
FileDecoder::FileDecoder(FileDecoder&&) noexcept = default;
FileDecoder& FileDecoder::operator=(FileDecoder&&) noexcept = default;
FileDecoder::~FileDecoder() = default;

std::size_t FileDecoder::read(std::span<float> out) {
    State& s = *state_;
    std::size_t written = 0;
    while (written < out.size()) {
        if (s.pending_offset == s.pending.size() && !s.refill()) {
            s.progress = 1.0;
            break;
        }
        const std::size_t n = std::min(out.size() - written, s.pending.size() - s.pending_offset);
        std::copy_n(s.pending.begin() + static_cast<std::ptrdiff_t>(s.pending_offset), n,
                    out.begin() + static_cast<std::ptrdiff_t>(written));
        s.pending_offset += n;
        written += n;
    }
    return written;
}

std::optional<double> FileDecoder::duration_s() const { return state_->duration_s; }
double FileDecoder::progress() const { return state_->progress; }
bool FileDecoder::at_end() const {
    return state_->stage == Stage::done && state_->pending_offset == state_->pending.size();
}
const std::filesystem::path& FileDecoder::path() const { return state_->path; }
std::string FileDecoder::codec_name() const { return state_->codec->codec->name; }
int FileDecoder::source_sample_rate_hz() const { return state_->codec->sample_rate; }
int FileDecoder::source_channels() const { return state_->codec->ch_layout.nb_channels; }
std::size_t FileDecoder::buffered_samples() const {
    return state_->pending.size() - state_->pending_offset;
}
std::size_t FileDecoder::buffer_capacity_samples() const { return state_->pending.capacity(); }
std::size_t FileDecoder::skipped_packets() const { return state_->skipped_packets; }
const std::vector<DamagedSpan>& FileDecoder::damaged_spans() const { return state_->damaged; }

}  // namespace earshot::audio
