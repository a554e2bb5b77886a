// read_wav_16k_mono: walks the RIFF chunks of a WAV file and converts its PCM to mono float.
#include "earshot/audio/wav_reader.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>

namespace earshot::audio {

namespace {

constexpr int kRequiredRateHz = 16000;
constexpr std::uint32_t kFormatPcm = 1;
constexpr std::uint32_t kFormatFloat = 3;
constexpr std::uint32_t kFormatExtensible = 0xFFFE;

std::uint32_t little_endian(const unsigned char* p, int bytes) {
    std::uint32_t value = 0;
    for (int i = bytes - 1; i >= 0; --i) value = (value << 8) | p[i];
    return value;
}

std::vector<unsigned char> read_bytes(const std::filesystem::path& path) {
    const std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "rb"),
                                                               &std::fclose);
    if (!file) throw WavError(path.string() + ": cannot open the file");
    std::vector<unsigned char> bytes;
    unsigned char buffer[1 << 16];
    std::size_t n = 0;
    while ((n = std::fread(buffer, 1, sizeof buffer, file.get())) > 0) {
        bytes.insert(bytes.end(), buffer, buffer + n);
    }
    if (std::ferror(file.get()) != 0) throw WavError(path.string() + ": read error");
    return bytes;
}

}  // namespace

std::vector<float> read_wav_16k_mono(const std::filesystem::path& path) {
    const std::vector<unsigned char> bytes = read_bytes(path);
    const std::string name = path.string();
    if (bytes.size() < 12 || std::memcmp(bytes.data(), "RIFF", 4) != 0 ||
        std::memcmp(bytes.data() + 8, "WAVE", 4) != 0) {
        throw WavError(name + ": not a RIFF/WAVE file");
    }
    std::uint32_t format = 0;
    int channels = 0;
    int bits = 0;
    for (std::size_t at = 12; at + 8 <= bytes.size();) {
        const unsigned char* chunk = bytes.data() + at;
        const std::size_t size = little_endian(chunk + 4, 4);
        const std::size_t available = bytes.size() - at - 8;
        if (std::memcmp(chunk, "fmt ", 4) == 0) {
            if (size < 16 || size > available) throw WavError(name + ": truncated fmt chunk");
            format = little_endian(chunk + 8, 2);
            channels = static_cast<int>(little_endian(chunk + 10, 2));
            const auto rate_hz = little_endian(chunk + 12, 4);
            bits = static_cast<int>(little_endian(chunk + 22, 2));
            if (format == kFormatExtensible && size >= 26) {
                format = little_endian(chunk + 8 + 24, 2);  // first two bytes of the GUID
            }
            if (rate_hz != kRequiredRateHz) {
                throw WavError(name + ": sample rate " + std::to_string(rate_hz) +
                               " Hz; this reader needs 16000 Hz (it does not resample)");
            }
            const bool pcm16 = format == kFormatPcm && bits == 16;
            const bool float32 = format == kFormatFloat && bits == 32;
            if (!pcm16 && !float32) {
                throw WavError(name + ": sample format " + std::to_string(format) + " with " +
                               std::to_string(bits) +
                               " bits; this reader takes 16-bit PCM or 32-bit float");
            }
            if (channels != 1 && channels != 2) {
                throw WavError(name + ": " + std::to_string(channels) +
                               " channels; this reader takes mono or stereo");
            }
        } else if (std::memcmp(chunk, "data", 4) == 0) {
            if (channels == 0) throw WavError(name + ": data chunk before the fmt chunk");
            // A data size past the end (streamed WAVs) means: up to the end of the file.
            const std::size_t data_bytes = std::min(size, available);
            const auto frame_bytes = static_cast<std::size_t>(channels * bits / 8);
            const std::size_t frames = data_bytes / frame_bytes;
            const unsigned char* data = chunk + 8;
            std::vector<float> samples(frames);
            for (std::size_t i = 0; i < frames; ++i) {
                float sum = 0.0f;
                for (int c = 0; c < channels; ++c) {
                    const unsigned char* p =
                        data + i * frame_bytes + static_cast<std::size_t>(c * bits / 8);
                    if (bits == 16) {
                        const auto v = static_cast<std::int16_t>(little_endian(p, 2));
                        sum += static_cast<float>(v) / 32768.0f;
                    } else {
                        float v = 0.0f;
                        std::memcpy(&v, p, sizeof v);  // IEEE little-endian, as the host
                        sum += v;
                    }
                }
                samples[i] = channels == 1 ? sum : sum / 2.0f;
            }
            return samples;
        }
        at += 8 + size + (size & 1);  // chunks are padded to even sizes
    }
    throw WavError(name + ": no data chunk");
}

}  // namespace earshot::audio
