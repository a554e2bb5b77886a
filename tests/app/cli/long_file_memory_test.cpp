// Peak resident memory of `earshot transcribe` on long files with the micro model: a 20-minute
// file peaks within a few MB of a short one (the whole-file path held 77 MB of samples and twice
// 39 MB of log-mel for it), and, run on demand (label long), a 10-hour file peaks under 600 MB.
// The files are mostly silence with held-out sentences spoken at regular times, written as they
// are generated (never held whole) and deleted afterwards.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "micro_model.h"
#include "spoken_words.h"
#include "temp_dir.h"

namespace earshot::test {
namespace {

namespace fs = std::filesystem;

constexpr int kRateHz = 16000;

// Writes a 16 kHz mono 16-bit WAV of `total_s` seconds: silence, with `speech` starting every
// `every_s` seconds from `first_s` on. Returns the start times of the speech.
std::vector<double> write_sparse_wav(const fs::path& path, double total_s,
                                     const std::vector<float>& speech, double first_s,
                                     double every_s) {
    const auto total = static_cast<uint64_t>(total_s * kRateHz);
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    auto le = [&out](uint64_t value, int bytes) {
        for (int i = 0; i < bytes; ++i) out.put(static_cast<char>((value >> (8 * i)) & 0xFF));
    };
    const uint64_t data_bytes = total * 2;
    out.write("RIFF", 4);
    le(36 + data_bytes, 4);
    out.write("WAVEfmt ", 8);
    le(16, 4);
    le(1, 2);  // integer PCM
    le(1, 2);  // mono
    le(kRateHz, 4);
    le(kRateHz * 2, 4);
    le(2, 2);
    le(16, 2);
    out.write("data", 4);
    le(data_bytes, 4);

    std::vector<double> starts;
    std::vector<int16_t> block(kRateHz, 0);  // one second at a time
    uint64_t next_speech = static_cast<uint64_t>(first_s * kRateHz);
    for (uint64_t at = 0; at < total;) {
        const uint64_t n = std::min<uint64_t>(block.size(), total - at);
        std::fill(block.begin(), block.end(), int16_t{0});
        // The speech that overlaps [at, at + n).
        if (next_speech < at + n) {
            starts.push_back(static_cast<double>(next_speech) / kRateHz);
            next_speech += static_cast<uint64_t>(every_s * kRateHz);
        }
        for (double start_s : starts) {
            const auto start = static_cast<uint64_t>(start_s * kRateHz);
            if (start + speech.size() <= at || start >= at + n) continue;
            for (uint64_t i = std::max(at, start); i < std::min(at + n, start + speech.size());
                 ++i) {
                const float v = std::clamp(speech[i - start], -1.0F, 1.0F);
                block[i - at] = static_cast<int16_t>(v * 32767.0F);
            }
        }
        out.write(reinterpret_cast<const char*>(block.data()), static_cast<std::streamsize>(n * 2));
        at += n;
    }
    if (!out) throw std::runtime_error("cannot write " + path.string());
    return starts;
}

struct Measured {
    int exit_code = -1;
    double peak_rss_mb = 0;  // the child's ru_maxrss
    double wall_s = 0;
};

// Runs `earshot transcribe FILE --model micro --beam 1 --temperature 0 --format json --output-dir
// DIR` as a child process
// and returns its exit code, peak resident memory and wall time; its stderr goes to DIR/err.txt.
Measured transcribe(const fs::path& file, const fs::path& dir) {
    const std::string exe = EARSHOT_EXE;
    const std::string model = micro_model_dir().string();
    const std::string err = (dir / "err.txt").string();
    // Greedy at temperature 0 only: the memory does not depend on the search, and the micro model
    // runs the whole fallback ladder on most silent windows (4x slower).
    const std::vector<std::string> args = {
        exe,         "transcribe",    file.string(), "--model",  model,  "--beam",
        "1",         "--temperature", "0",           "--format", "json", "--output-dir",
        dir.string()};
    const auto start = std::chrono::steady_clock::now();
    const pid_t pid = fork();
    if (pid == 0) {
        std::vector<char*> argv;
        for (const std::string& arg : args) argv.push_back(const_cast<char*>(arg.c_str()));
        argv.push_back(nullptr);
        if (std::freopen(err.c_str(), "w", stderr) == nullptr) _exit(126);
        if (std::freopen("/dev/null", "w", stdout) == nullptr) _exit(126);
        execv(exe.c_str(), argv.data());
        _exit(127);
    }
    Measured measured;
    int status = 0;
    rusage usage{};
    if (pid < 0 || wait4(pid, &status, 0, &usage) != pid) return measured;
    measured.wall_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    measured.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    measured.peak_rss_mb = static_cast<double>(usage.ru_maxrss) / 1024.0;  // KiB on Linux
    return measured;
}

// The segments of DIR/<stem>.json as [start_s, text].
std::vector<std::pair<double, std::string>> segments_of(const fs::path& json_path) {
    std::ifstream in(json_path);
    const nlohmann::json json = nlohmann::json::parse(in);
    std::vector<std::pair<double, std::string>> segments;
    for (const auto& segment : json["segments"]) {
        segments.emplace_back(segment["start"].get<double>(), segment["text"].get<std::string>());
    }
    return segments;
}

// How many of `starts` have a segment with text starting within [start - 1, start + 10] s.
size_t heard_at(const std::vector<std::pair<double, std::string>>& segments,
                const std::vector<double>& starts) {
    size_t heard = 0;
    for (double start : starts) {
        for (const auto& [at, text] : segments) {
            if (!text.empty() && at >= start - 1.0 && at <= start + 10.0) {
                ++heard;
                break;
            }
        }
    }
    return heard;
}

class LongFileMemoryBase : public ::testing::Test {
protected:
    void SetUp() override {
        ASSERT_TRUE(fs::exists(micro_model_dir() / "model.safetensors")) << micro_model_dir();
        SpeechOptions options;
        options.whole_sentences = true;
        options.sentence_gap_s = 1.0;
        std::string why;
        const auto audio = speak_sentences(micro_heldout_words(2), options, &why);
        ASSERT_TRUE(audio.has_value()) << "cannot speak the sentences: " << why;
        speech_ = audio->samples;
    }

    TempDir dir_{"earshot-long-file"};
    std::vector<float> speech_;
};

class LongFileMemory : public LongFileMemoryBase {};

// Ratio against a baseline measured in the same run: a 20-minute file peaks within 30 MB of a
// 30-second one with the same speech. The whole-file path held the samples alone (77 MB) on top.
TEST_F(LongFileMemory, TwentyMinutesPeakNearAShortFile) {
    const fs::path short_wav = dir_.path() / "short.wav";
    const fs::path long_wav = dir_.path() / "twenty.wav";
    const std::vector<double> short_starts = write_sparse_wav(short_wav, 30.0, speech_, 2.0, 60.0);
    const std::vector<double> long_starts =
        write_sparse_wav(long_wav, 20.0 * 60.0, speech_, 2.0, 120.0);
    ASSERT_EQ(short_starts.size(), 1U);
    ASSERT_EQ(long_starts.size(), 10U);

    const Measured small = transcribe(short_wav, dir_.path());
    ASSERT_EQ(small.exit_code, 0);
    const Measured large = transcribe(long_wav, dir_.path());
    ASSERT_EQ(large.exit_code, 0);
    std::printf("peak RSS: 30 s file %.1f MB (%.1f s), 20 min file %.1f MB (%.1f s)\n",
                small.peak_rss_mb, small.wall_s, large.peak_rss_mb, large.wall_s);
    EXPECT_LT(large.peak_rss_mb, small.peak_rss_mb + 30.0);

    // And the speech is there, at its times.
    const auto segments = segments_of(dir_.path() / "twenty.json");
    EXPECT_GE(heard_at(segments, long_starts), 9U);
}

// Label long (tests/CMakeLists.txt: suites named *LongRun), run on demand with `ctest -L long`:
// 10 hours (1.15 GB of WAV in the temporary folder), about an hour of run time on 2 cores.
class LongFileLongRun : public LongFileMemoryBase {};

TEST_F(LongFileLongRun, TenHoursPeakUnder600MB) {
    const fs::path wav = dir_.path() / "ten_hours.wav";
    const std::vector<double> starts =
        write_sparse_wav(wav, 10.0 * 3600.0, speech_, 2.0, 10.0 * 60.0);
    ASSERT_EQ(starts.size(), 60U);
    const Measured run = transcribe(wav, dir_.path());
    fs::remove(wav);
    ASSERT_EQ(run.exit_code, 0);
    std::printf("10 h file: peak RSS %.1f MB, %.0f s\n", run.peak_rss_mb, run.wall_s);
    EXPECT_LT(run.peak_rss_mb, 600.0);
    const auto segments = segments_of(dir_.path() / "ten_hours.json");
    EXPECT_GE(heard_at(segments, starts), 54U);
}

}  // namespace
}  // namespace earshot::test
