// Fuzz target for the audio module's file decoding through FFmpeg: the input is written to a
// private temporary file, opened with FileDecoder and read to the end (at most 10 s of output).
// Only AudioFileError is expected; progress only grows, and reaches 1 exactly at the end.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <vector>

#include "earshot/audio/audio_file_error.h"
#include "earshot/audio/file_decoder.h"
#include "temp_dir.h"

namespace {

void require(bool condition, const char* what) {
    if (!condition) {
        std::fprintf(stderr, "audio decoding invariant broken: %s\n", what);
        std::abort();
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static const earshot::test::TempDir dir("earshot-fuzz-audio");
    constexpr std::size_t kMaxSamples = 10 * earshot::audio::FileDecoder::kSampleRateHz;
    const auto path = dir.path() / "input";
    {
        std::ofstream out(path, std::ios::binary | std::ios::trunc);
        out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    }
    try {
        auto decoder = earshot::audio::FileDecoder::open(path);
        std::vector<float> chunk(4096);
        std::size_t total = 0;
        double last_progress = 0.0;
        while (total < kMaxSamples) {
            const std::size_t n = decoder.read(chunk);
            require(n <= chunk.size(), "read() writes inside the span");
            const double progress = decoder.progress();
            require(progress >= last_progress && progress <= 1.0, "progress only grows, to 1");
            last_progress = progress;
            if (n == 0) {
                require(decoder.at_end() && progress == 1.0, "read() returns 0 only at the end");
                break;
            }
            total += n;
        }
        require(decoder.buffered_samples() <= decoder.buffer_capacity_samples(),
                "the buffer holds what it can");
    } catch (const earshot::audio::AudioFileError&) {
        // Rejected: not a media file, no audio stream, an unsupported codec, a read failure.
    }
    return 0;
}
