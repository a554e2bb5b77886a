// `earshot debug record --seconds N --out FILE.wav [--device NAME|INDEX]`: records N seconds from
// an input device through Capture and writes them as a 16 kHz mono 16-bit PCM WAV file.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <exception>
#include <fstream>
#include <iomanip>
#include <memory>
#include <mutex>
#include <ostream>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "cli/command_registry.h"
#include "earshot/app/commands.h"
#include "earshot/audio/capture.h"

namespace earshot::app {
namespace {

constexpr int kExitDeviceFailed = 1;  // the device failed or the file could not be written
constexpr int kRateHz = audio::StreamResampler::kWhisperRateHz;
// Time allowed beyond the requested length for the device to open and deliver.
constexpr std::chrono::seconds kStartupAllowance{10};

void put_u16(std::ofstream& file, std::uint16_t value) {
    const char bytes[2] = {static_cast<char>(value & 0xff), static_cast<char>(value >> 8)};
    file.write(bytes, 2);
}

void put_u32(std::ofstream& file, std::uint32_t value) {
    put_u16(file, static_cast<std::uint16_t>(value & 0xffff));
    put_u16(file, static_cast<std::uint16_t>(value >> 16));
}

// A canonical 44-byte-header RIFF/WAVE file: PCM, mono, 16-bit little endian.
bool write_wav_s16_mono(const std::string& path, std::span<const float> samples, int rate_hz) {
    std::ofstream file(path, std::ios::binary | std::ios::trunc);
    if (!file) return false;
    const auto data_bytes = static_cast<std::uint32_t>(samples.size() * 2);
    file.write("RIFF", 4);
    put_u32(file, 36 + data_bytes);
    file.write("WAVEfmt ", 8);
    put_u32(file, 16);                                       // fmt chunk size
    put_u16(file, 1);                                        // PCM
    put_u16(file, 1);                                        // channels
    put_u32(file, static_cast<std::uint32_t>(rate_hz));      // sample rate
    put_u32(file, static_cast<std::uint32_t>(rate_hz * 2));  // byte rate
    put_u16(file, 2);                                        // block align
    put_u16(file, 16);                                       // bits per sample
    file.write("data", 4);
    put_u32(file, data_bytes);
    for (float sample : samples) {
        const float scaled = std::clamp(sample, -1.0f, 1.0f) * 32767.0f;
        put_u16(file, static_cast<std::uint16_t>(static_cast<std::int16_t>(std::lround(scaled))));
    }
    return static_cast<bool>(file.flush());
}

struct RecordRequest {
    double seconds = 0;
    std::string out_path;
    std::string device;
};

int run_record(const RecordRequest& request, std::ostream& out, std::ostream& err) {
    if (!(request.seconds > 0) || request.seconds > 3600) {
        err << "earshot debug record: --seconds must be in (0, 3600], got " << request.seconds
            << "\n";
        return kExitBadInput;
    }
    const auto wanted = static_cast<std::size_t>(std::llround(request.seconds * kRateHz));

    std::mutex samples_mutex;
    std::vector<float> samples;  // guarded by samples_mutex
    samples.reserve(wanted + kRateHz);
    std::atomic<std::size_t> received{0};
    audio::Capture capture([&](std::span<const float> chunk) {
        std::lock_guard lock(samples_mutex);
        samples.insert(samples.end(), chunk.begin(), chunk.end());
        received.store(samples.size(), std::memory_order_relaxed);
    });

    audio::CaptureOptions options;
    options.device = request.device;
    audio::CaptureEvent started;
    try {
        started = capture.start(options);
    } catch (const std::exception& e) {
        err << "earshot debug record: " << e.what() << "\n";
        return kExitDeviceFailed;
    }
    if (started.is_error()) {
        err << "earshot debug record: " << started.message << "\n";
        return started.kind == audio::CaptureEventKind::device_not_found ? kExitBadInput
                                                                         : kExitDeviceFailed;
    }

    const auto deadline = std::chrono::steady_clock::now() +
                          std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                              std::chrono::duration<double>(request.seconds)) +
                          kStartupAllowance;
    std::string failure;
    while (received.load(std::memory_order_relaxed) < wanted && failure.empty()) {
        for (const audio::CaptureEvent& event : capture.take_events()) {
            if (event.is_error()) failure = event.message;
        }
        if (std::chrono::steady_clock::now() > deadline) {
            failure = "the device delivered too little audio in time";
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    capture.stop();
    const audio::CaptureStats stats = capture.stats();
    if (!failure.empty()) {
        err << "earshot debug record: " << failure << "\n";
        return kExitDeviceFailed;
    }

    // The audio thread has been joined: the samples are ours alone now.
    samples.resize(wanted);
    if (!write_wav_s16_mono(request.out_path, samples, kRateHz)) {
        err << "earshot debug record: cannot write " << request.out_path << "\n";
        return kExitDeviceFailed;
    }
    out << "Recorded " << std::fixed << std::setprecision(2) << request.seconds << " s from \""
        << capture.device()->name << "\" (" << capture.device_rate_hz() << " Hz) to "
        << request.out_path << ": " << wanted << " samples at " << kRateHz << " Hz, "
        << stats.overrun_samples << " overrun samples\n";
    return kExitOk;
}

}  // namespace

ExtraCommand add_debug_record(CLI::App& root) {
    auto request = std::make_shared<RecordRequest>();
    CLI::App* command = debug_group(root).add_subcommand(
        "record", "Record from an input device to a 16 kHz mono 16-bit WAV file");
    command->add_option("--seconds", request->seconds, "How long to record")->required();
    command->add_option("--out", request->out_path, "WAV file to write")->required();
    command->add_option("--device", request->device,
                        "Device name, unique part of a name, or index (see `earshot devices`); "
                        "default input otherwise");
    return {command, [request](std::ostream& out, std::ostream& err) {
                return run_record(*request, out, err);
            }};
}

}  // namespace earshot::app
