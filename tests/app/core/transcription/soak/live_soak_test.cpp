// The live pipeline's soak: one hour of audio (espeak-ng dictation over room noise, with pauses)
// through LiveController at 40x real time. Resident memory must stay flat after the first ten
// minutes of audio (growth under 5% over the most it reached in them; at 40x the first minute is
// one or two one-second samples, too early for the allocator's arenas to have settled, which made
// a 5% bound on it flaky) and no frame may be dropped; the update rate and the most resident
// memory per ten minutes are printed.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "dictation_sentences.h"
#include "earshot/core/live_controller.h"
#include "live_fixture.h"
#include "room_noise.h"
#include "spoken_words.h"
#include "temp_dir.h"

namespace earshot::test {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

constexpr double kSpeed = 40.0;
constexpr int kMinutes = 60;

// Resident set size of this process in bytes (/proc/self/statm, field 2, in pages).
double resident_bytes() {
    std::ifstream statm("/proc/self/statm");
    long size_pages = 0;
    long resident_pages = 0;
    statm >> size_pages >> resident_pages;
    return static_cast<double>(resident_pages) * static_cast<double>(sysconf(_SC_PAGESIZE));
}

TEST(LiveSoak, OneHourAt40xKeepsMemoryFlatAndDropsNoFrame) {
    if (!fs::exists(multilingual_tiktoken())) {
        GTEST_SKIP() << "shared whisper assets are absent (" << multilingual_tiktoken() << ")";
    }
    ASSERT_EQ(std::system("ffmpeg -version >/dev/null 2>&1"), 0)
        << "the ffmpeg tool is not installed (packaging/setup.sh installs it)";
    TempDir dir;
    // One minute: eight sentences with 1.5 s pauses over a quiet office, then silence.
    std::string why;
    SpeechOptions speech;
    speech.sentence_gap_s = 1.5;
    const auto spoken = speak_sentences(dictation_sentence_words(0, 8), speech, &why);
    ASSERT_TRUE(spoken) << why;
    ASSERT_LT(spoken->duration_s(), 55.0);
    std::vector<float> minute = room_noise(60.0, 11);
    for (size_t i = 0; i < spoken->samples.size(); ++i) minute[i] += spoken->samples[i];
    const fs::path minute_wav = dir.path() / "minute.wav";
    const fs::path hour_flac = dir.path() / "hour.flac";
    write_wav_pcm16(minute_wav, minute);
    const std::string loop = "ffmpeg -v error -y -stream_loop " + std::to_string(kMinutes - 1) +
                             " -i '" + minute_wav.string() + "' -c:a flac '" + hour_flac.string() +
                             "'";
    ASSERT_EQ(std::system(loop.c_str()), 0) << loop;

    auto loaded = random_live_model(dir.path() / "model", RandomModelSize::small);
    app::LiveOptions options;
    options.input = hour_flac;
    options.speed = kSpeed;
    options.streaming.decoding.language = "en";
    std::vector<int64_t> updates_per_ten_minutes(kMinutes / 10, 0);
    std::vector<int64_t> decoded_per_ten_minutes(kMinutes / 10, 0);
    std::vector<double> engine_ms_per_ten_minutes(kMinutes / 10, 0.0);
    app::LiveController live(
        *loaded->model, loaded->tokenizer, options, [&](const app::LiveUpdate& u) {
            const auto block = static_cast<size_t>(u.update.audio_end_s / 600.0);
            if (block < updates_per_ten_minutes.size()) {
                ++updates_per_ten_minutes[block];
                if (u.update.gate == decoding::UpdateGate::decoded) {
                    ++decoded_per_ten_minutes[block];
                    engine_ms_per_ten_minutes[block] += u.update.engine_ms;
                }
            }
        });
    struct Sample {
        double audio_s;
        double rss_bytes;
    };
    std::vector<Sample> samples;
    const auto started = std::chrono::steady_clock::now();
    live.start();
    while (!live.wait_for(1s)) samples.push_back({live.stats().audio_s, resident_bytes()});
    live.stop();
    const double wall_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    const app::LiveStats stats = live.stats();

    std::vector<double> rss_max_per_ten_minutes(kMinutes / 10, 0.0);  // [blocks] bytes
    for (const Sample& s : samples) {
        const auto block =
            std::min(static_cast<size_t>(s.audio_s / 600.0), rss_max_per_ten_minutes.size() - 1);
        rss_max_per_ten_minutes[block] = std::max(rss_max_per_ten_minutes[block], s.rss_bytes);
    }
    const double rss_warm = rss_max_per_ten_minutes.front();
    const double rss_max_after =
        *std::max_element(rss_max_per_ten_minutes.begin() + 1, rss_max_per_ten_minutes.end());
    const double growth = rss_max_after / rss_warm - 1.0;
    std::vector<double> sorted = stats.engine_ms;
    std::sort(sorted.begin(), sorted.end());
    std::printf(
        "soak: %.0f s of audio in %.0f s (%.1fx), %lld updates (%lld decoded, %lld dropped "
        "while busy), %llu dropped frames, engine %.0f ms median / %.0f ms p95\n",
        stats.audio_s, wall_s, stats.audio_s / wall_s, static_cast<long long>(stats.updates),
        static_cast<long long>(stats.decoded_updates),
        static_cast<long long>(stats.coalesced_updates),
        static_cast<unsigned long long>(stats.dropped_frames),
        sorted.empty() ? 0.0 : sorted[sorted.size() / 2],
        sorted.empty() ? 0.0 : sorted[sorted.size() * 95 / 100]);
    std::printf(
        "soak: resident at most %.1f MiB in the first ten minutes, at most %.1f MiB later "
        "(growth %.2f%%); most per ten minutes (MiB):",
        rss_warm / 1048576.0, rss_max_after / 1048576.0, growth * 100.0);
    for (double bytes : rss_max_per_ten_minutes) std::printf(" %.1f", bytes / 1048576.0);
    std::printf("\n");
    std::printf("soak: updates per ten minutes of audio:");
    for (int64_t n : updates_per_ten_minutes) std::printf(" %lld", static_cast<long long>(n));
    std::printf("\nsoak: decoded updates and their mean engine ms per ten minutes:");
    for (size_t b = 0; b < decoded_per_ten_minutes.size(); ++b) {
        std::printf(
            " %lld (%.0f ms)", static_cast<long long>(decoded_per_ten_minutes[b]),
            decoded_per_ten_minutes[b] == 0
                ? 0.0
                : engine_ms_per_ten_minutes[b] / static_cast<double>(decoded_per_ten_minutes[b]));
    }
    std::printf("\n");

    EXPECT_TRUE(stats.error.empty()) << stats.error;
    EXPECT_NEAR(stats.audio_s, kMinutes * 60.0, 1.0);
    EXPECT_EQ(stats.dropped_frames, 0u);
    EXPECT_EQ(stats.frames, static_cast<int64_t>(std::llround(stats.audio_s * 100.0)));
    ASSERT_GT(rss_warm, 0.0);
    for (double bytes : rss_max_per_ten_minutes) ASSERT_GT(bytes, 0.0);  // every block sampled
    EXPECT_LT(growth, 0.05);
    // Every ten minutes of the hour are the same audio: each got updates.
    for (int64_t n : updates_per_ten_minutes) EXPECT_GT(n, 0);
}

}  // namespace
}  // namespace earshot::test
