// Reading 16-bit PCM WAV fixtures in tests: walks the RIFF chunks (skipping LIST and the like) to
// "fmt " and "data" and returns samples scaled by 1 / 32768, channels interleaved.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "file_bytes.h"

namespace earshot::test {

struct WavPcm16 {
    int sample_rate_hz = 0;
    int channels = 0;
    std::vector<float> samples;  // [Samples * Channels], interleaved, in [-1, 1)
};

inline WavPcm16 read_wav_pcm16(const std::filesystem::path& path) {
    const std::vector<unsigned char> bytes = read_file_bytes(path, "wav");
    auto le = [&bytes](std::size_t at, int n) {
        std::uint32_t v = 0;
        for (int i = n - 1; i >= 0; --i) v = (v << 8) | bytes[at + static_cast<std::size_t>(i)];
        return v;
    };
    if (bytes.size() < 12 || std::memcmp(bytes.data(), "RIFF", 4) != 0 ||
        std::memcmp(bytes.data() + 8, "WAVE", 4) != 0) {
        throw std::runtime_error("wav: " + path.string() + " is not RIFF/WAVE");
    }
    WavPcm16 wav;
    int bits = 0;
    for (std::size_t at = 12; at + 8 <= bytes.size();) {
        const std::string id(reinterpret_cast<const char*>(bytes.data() + at), 4);
        const std::size_t size = le(at + 4, 4);
        const std::size_t body = at + 8;
        if (body + size > bytes.size()) throw std::runtime_error("wav: chunk " + id + " cut off");
        if (id == "fmt ") {
            if (le(body, 2) != 1) throw std::runtime_error("wav: not integer PCM");
            wav.channels = static_cast<int>(le(body + 2, 2));
            wav.sample_rate_hz = static_cast<int>(le(body + 4, 4));
            bits = static_cast<int>(le(body + 14, 2));
        } else if (id == "data") {
            if (bits != 16) throw std::runtime_error("wav: not 16-bit PCM (or no fmt chunk)");
            wav.samples.resize(size / 2);
            for (std::size_t i = 0; i < wav.samples.size(); ++i) {
                const auto v = static_cast<std::int16_t>(le(body + 2 * i, 2));
                wav.samples[i] = static_cast<float>(v) / 32768.0f;
            }
            return wav;
        }
        at = body + size + (size & 1);  // chunks are padded to even sizes
    }
    throw std::runtime_error("wav: no data chunk in " + path.string());
}

}  // namespace earshot::test
