// Capture on a real device: espeak-ng speech played into a private PulseAudio null sink comes back
// through Earshot's Capture (PortAudio, ALSA "pulse"/"default") as the same 16 kHz signal.
#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "earshot/audio/capture.h"
#include "earshot/audio/stream_resampler.h"
#include "temp_dir.h"
#include "virtual_mic.h"

namespace earshot::audio {
namespace {

using namespace std::chrono_literals;

struct PcmWave {
    int rate_hz = 0;
    std::vector<float> samples;  // mono
};

// The s16 mono WAV espeak-ng writes: walks the RIFF chunks for "fmt " and "data".
PcmWave read_s16_mono_wav(const std::filesystem::path& path) {
    std::vector<char> bytes(std::filesystem::file_size(path));
    std::ifstream file(path, std::ios::binary);
    file.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    PcmWave wave;
    const auto u32 = [&](std::size_t at) {
        std::uint32_t v = 0;
        std::memcpy(&v, bytes.data() + at, 4);
        return v;
    };
    const auto u16 = [&](std::size_t at) {
        std::uint16_t v = 0;
        std::memcpy(&v, bytes.data() + at, 2);
        return v;
    };
    if (bytes.size() < 12 || std::memcmp(bytes.data(), "RIFF", 4) != 0) return wave;
    int channels = 0;
    int bits = 0;
    for (std::size_t at = 12; at + 8 <= bytes.size();) {
        const std::string id(bytes.data() + at, 4);
        const std::size_t size = std::min<std::size_t>(u32(at + 4), bytes.size() - at - 8);
        if (id == "fmt " && size >= 16) {
            channels = u16(at + 10);
            wave.rate_hz = static_cast<int>(u32(at + 12));
            bits = u16(at + 22);
        } else if (id == "data" && channels == 1 && bits == 16) {
            wave.samples.resize(size / 2);
            for (std::size_t i = 0; i < wave.samples.size(); ++i) {
                wave.samples[i] =
                    static_cast<float>(static_cast<std::int16_t>(u16(at + 8 + 2 * i))) / 32768.0f;
            }
        }
        at += 8 + size + (size & 1);
    }
    return wave;
}

std::vector<float> to_16k(const PcmWave& wave) {
    StreamResampler resampler(wave.rate_hz);
    std::vector<float> out;
    const auto body = resampler.push(wave.samples);
    out.assign(body.begin(), body.end());
    const auto tail = resampler.finish();
    out.insert(out.end(), tail.begin(), tail.end());
    return out;
}

// Running sums of squares: prefix[i] = sum of x[k]^2 for k < i.
std::vector<double> energy_prefix(const std::vector<float>& x) {
    std::vector<double> prefix(x.size() + 1, 0.0);
    for (std::size_t i = 0; i < x.size(); ++i) {
        prefix[i + 1] = prefix[i] + static_cast<double>(x[i]) * static_cast<double>(x[i]);
    }
    return prefix;
}

// The largest normalized cross-correlation between `source` and `recorded` over the lags where
// at least 90% of the source overlaps the recording (recorded[i + lag] against source[i]; the
// recording may miss the first milliseconds of a sound): 1 for a scaled, delayed copy.
double correlation_peak(const std::vector<float>& source, const std::vector<float>& recorded) {
    const auto n = static_cast<std::ptrdiff_t>(source.size());
    const auto m = static_cast<std::ptrdiff_t>(recorded.size());
    const std::ptrdiff_t min_overlap = n - n / 10;
    const std::vector<double> source_prefix = energy_prefix(source);
    const std::vector<double> recorded_prefix = energy_prefix(recorded);
    double best = 0;
    for (std::ptrdiff_t lag = -(n - min_overlap); lag + min_overlap <= m; ++lag) {
        const std::ptrdiff_t first = std::max<std::ptrdiff_t>(0, -lag);  // source indices
        const std::ptrdiff_t last = std::min(n, m - lag);
        if (last - first < min_overlap) continue;
        float dot = 0;  // float is plenty for a 0.9 threshold, and vectorizes
        for (std::ptrdiff_t i = first; i < last; ++i)
            dot +=
                source[static_cast<std::size_t>(i)] * recorded[static_cast<std::size_t>(i + lag)];
        const double source_energy = source_prefix[static_cast<std::size_t>(last)] -
                                     source_prefix[static_cast<std::size_t>(first)];
        const double recorded_energy = recorded_prefix[static_cast<std::size_t>(last + lag)] -
                                       recorded_prefix[static_cast<std::size_t>(first + lag)];
        const double denominator = std::sqrt(std::max(source_energy * recorded_energy, 1e-24));
        best = std::max(best, static_cast<double>(dot) / denominator);
    }
    return best;
}

class CaptureLiveDevice : public ::testing::Test {
protected:
    void SetUp() override {
        ASSERT_TRUE(mic_.available()) << mic_.error();
        mic_.export_environment();
        ASSERT_EQ(std::system("command -v espeak-ng >/dev/null 2>&1"), 0)
            << "espeak-ng is not installed (packaging/setup.sh installs it)";
    }

    // Speaks `text` into a WAV file and returns its path.
    std::filesystem::path speak(const std::string& text, const std::string& name) {
        const std::filesystem::path wav = dir_.path() / name;
        const std::string command = "espeak-ng -w " + test::VirtualMic::quote(wav.string()) + " " +
                                    test::VirtualMic::quote(text);
        EXPECT_EQ(std::system(command.c_str()), 0) << command;
        return wav;
    }

    // Records from `device` while `wav` plays into the sink; returns the 16 kHz capture.
    std::vector<float> record_while_playing(Capture& capture, std::vector<float>& captured,
                                            std::mutex& captured_mutex, const std::string& device,
                                            const std::filesystem::path& wav) {
        {
            std::lock_guard lock(captured_mutex);
            captured.clear();
        }
        CaptureOptions options;
        options.device = device;
        const CaptureEvent started = capture.start(options);
        EXPECT_EQ(started.kind, CaptureEventKind::started) << started.message;
        EXPECT_TRUE(capture.running());
        EXPECT_TRUE(mic_.play(wav));
        std::this_thread::sleep_for(300ms);  // the tail of the sound through the server
        capture.stop();
        EXPECT_FALSE(capture.running());
        std::lock_guard lock(captured_mutex);
        return captured;
    }

    test::VirtualMic mic_;
    test::TempDir dir_{"earshot-capture-test"};
};

TEST_F(CaptureLiveDevice, RecordsWhatIsPlayedAndRestartsOnAnotherDevice) {
    std::mutex captured_mutex;
    std::vector<float> captured;
    Capture capture([&](std::span<const float> samples) {
        std::lock_guard lock(captured_mutex);
        captured.insert(captured.end(), samples.begin(), samples.end());
    });

    const std::filesystem::path first =
        speak("Hello world, this is a test of live dictation.", "first.wav");
    const std::vector<float> first_source = to_16k(read_s16_mono_wav(first));
    ASSERT_GT(first_source.size(), 16000u);  // about 3 s of speech

    const std::vector<float> first_take =
        record_while_playing(capture, captured, captured_mutex, "pulse", first);
    ASSERT_TRUE(capture.device().has_value());
    EXPECT_EQ(capture.device()->name, "pulse");
    const CaptureStats first_stats = capture.stats();
    EXPECT_EQ(first_stats.overrun_samples, 0u);
    EXPECT_EQ(first_stats.delivered_samples, first_take.size());
    // Every device frame arrives, resampled: within a few samples of rate_16k / rate_device.
    const double expected_16k =
        static_cast<double>(first_stats.device_frames) * 16000.0 / capture.device_rate_hz();
    EXPECT_NEAR(static_cast<double>(first_take.size()), expected_16k, 2.0);
    const double first_peak = correlation_peak(first_source, first_take);
    EXPECT_GT(first_peak, 0.9) << "capture of " << first_take.size() << " samples at "
                               << capture.device_rate_hz() << " Hz";

    auto events = capture.take_events();
    ASSERT_EQ(events.size(), 2u);
    EXPECT_EQ(events[0].kind, CaptureEventKind::started);
    EXPECT_NE(events[0].message.find("\"pulse\""), std::string::npos) << events[0].message;
    EXPECT_EQ(events[1].kind, CaptureEventKind::stopped);

    // Stop, then start again on another device in the same process.
    const std::filesystem::path second = speak("Start again on the default device.", "second.wav");
    const std::vector<float> second_source = to_16k(read_s16_mono_wav(second));
    const std::vector<float> second_take =
        record_while_playing(capture, captured, captured_mutex, "default", second);
    ASSERT_TRUE(capture.device().has_value());
    EXPECT_EQ(capture.device()->name, "default");
    EXPECT_EQ(capture.stats().overrun_samples, 0u);
    const double second_peak = correlation_peak(second_source, second_take);
    EXPECT_GT(second_peak, 0.9);
    std::printf("correlation peaks: %.4f (pulse), %.4f (default)\n", first_peak, second_peak);
    for (const CaptureEvent& event : capture.take_events()) {
        EXPECT_FALSE(event.is_error()) << to_string(event.kind) << ": " << event.message;
    }
}

TEST_F(CaptureLiveDevice, UnknownDeviceIsAnErrorNamingIt) {
    Capture capture([](std::span<const float>) {});
    CaptureOptions options;
    options.device = "no-such-microphone";
    const CaptureEvent result = capture.start(options);
    EXPECT_EQ(result.kind, CaptureEventKind::device_not_found);
    EXPECT_EQ(result.message, "no input device named \"no-such-microphone\"");
    EXPECT_FALSE(capture.running());
    const auto events = capture.take_events();
    ASSERT_EQ(events.size(), 1u);
    EXPECT_EQ(events[0].kind, CaptureEventKind::device_not_found);
    EXPECT_EQ(events[0].message, result.message);
}

TEST_F(CaptureLiveDevice, ServerGoneMidCaptureIsReportedAsAnEvent) {
    Capture capture([](std::span<const float>) {});
    CaptureOptions options;
    options.device = "pulse";
    // Long enough that PortAudio's own report (stream no longer active) is what is tested.
    options.silence_timeout = 30s;
    ASSERT_EQ(capture.start(options).kind, CaptureEventKind::started);
    // Even with nothing playing, the sink's monitor delivers (silent) frames.
    const auto first_frames_by = std::chrono::steady_clock::now() + 3s;
    while (capture.stats().device_frames == 0 &&
           std::chrono::steady_clock::now() < first_frames_by) {
        std::this_thread::sleep_for(10ms);
    }
    ASSERT_GT(capture.stats().device_frames, 0u);
    // Take the device away: stop the PulseAudio daemon behind it.
    const int pid = mic_.daemon_pid();
    ASSERT_GT(pid, 0);
    ASSERT_EQ(::kill(pid, SIGTERM), 0);

    bool reported = false;
    std::string message;
    const auto deadline = std::chrono::steady_clock::now() + 5s;
    while (!reported && std::chrono::steady_clock::now() < deadline) {
        for (const CaptureEvent& event : capture.take_events()) {
            if (event.kind == CaptureEventKind::device_lost ||
                event.kind == CaptureEventKind::stream_error) {
                reported = true;
                message = event.message;
            }
        }
        std::this_thread::sleep_for(20ms);
    }
    ASSERT_TRUE(reported) << "no device_lost/stream_error within 5 s";
    std::printf("reported: %s\n", message.c_str());
    EXPECT_NE(message.find("\"pulse\""), std::string::npos) << message;
    EXPECT_TRUE(capture.running());  // until the owner stops it
    capture.stop();
    EXPECT_FALSE(capture.running());
}

}  // namespace
}  // namespace earshot::audio
