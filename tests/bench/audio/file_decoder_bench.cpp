// FileDecoder throughput on a 10-minute file (44.1 kHz stereo, made once into the temp folder
// with the ffmpeg tool): seconds of audio decoded to 16 kHz mono per second of CPU time.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "earshot/audio/file_decoder.h"

namespace earshot::audio {
namespace {

namespace fs = std::filesystem;

constexpr double kFileDurationS = 600.0;

// The 10-minute test file for `extension`, made with `codec_arguments` on first use and kept
// for later runs (written under a temporary name and renamed, so runs at once never see half a
// file). Empty when the ffmpeg tool is missing or fails.
fs::path ten_minute_file(const std::string& extension, const std::string& codec_arguments) {
    const fs::path path = fs::temp_directory_path() / ("earshot-bench-10min-v1." + extension);
    if (fs::exists(path)) {
        return path;
    }
    const fs::path partial = path.string() + ".part" + std::to_string(::getpid()) + "." + extension;
    const std::string command =
        "ffmpeg -nostdin -hide_banner -loglevel error -y -f lavfi "
        "-i sine=frequency=440:sample_rate=44100:duration=600 -af 'pan=stereo|c0=c0|c1=c0' " +
        codec_arguments + " '" + partial.string() + "' >/dev/null 2>&1";
    if (std::system(command.c_str()) != 0) {
        return {};
    }
    fs::rename(partial, path);
    return path;
}

// Decodes the whole file through FileDecoder::read in 4096-sample chunks per iteration.
void decode_ten_minutes(benchmark::State& state, const std::string& extension,
                        const std::string& codec_arguments) {
    const fs::path path = ten_minute_file(extension, codec_arguments);
    if (path.empty()) {
        state.SkipWithError("the ffmpeg tool could not make the 10-minute test file");
        return;
    }
    std::vector<float> chunk(4096);  // [4096] 16 kHz mono
    std::size_t samples = 0;
    for (auto _ : state) {
        FileDecoder decoder = FileDecoder::open(path);
        std::size_t n = 0;
        while ((n = decoder.read(chunk)) > 0) {
            samples += n;
            benchmark::DoNotOptimize(chunk.data());
        }
    }
    const double audio_s = static_cast<double>(samples) / FileDecoder::kSampleRateHz;
    // kIsRate divides by the CPU time of the timed loop: seconds of audio per CPU second.
    state.counters["x_real_time"] = benchmark::Counter(audio_s, benchmark::Counter::kIsRate);
    state.counters["audio_s_per_iter"] =
        benchmark::Counter(audio_s, benchmark::Counter::kAvgIterations);
    if (state.iterations() > 0 &&
        static_cast<double>(samples) / static_cast<double>(state.iterations()) <
            kFileDurationS * FileDecoder::kSampleRateHz) {
        state.SkipWithError("decoded fewer samples than the file holds");
    }
}

// Baseline: PCM needs no decoding, so this is the cost of demuxing, downmixing and resampling.
void BM_DecodeTenMinutesWav(benchmark::State& state) {
    decode_ten_minutes(state, "wav", "-c:a pcm_s16le");
}
void BM_DecodeTenMinutesFlac(benchmark::State& state) {
    decode_ten_minutes(state, "flac", "-c:a flac");
}
void BM_DecodeTenMinutesMp3(benchmark::State& state) {
    decode_ten_minutes(state, "mp3", "-c:a libmp3lame -b:a 128k -compression_level 9");
}

BENCHMARK(BM_DecodeTenMinutesWav)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_DecodeTenMinutesFlac)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_DecodeTenMinutesMp3)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace earshot::audio
