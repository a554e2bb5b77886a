// read_wav_16k_mono: 16-bit and float PCM, stereo mixing, skipped chunks, and clear rejections.
#include "earshot/audio/wav_reader.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "temp_dir.h"
#include "wav_file.h"

namespace earshot::audio {
namespace {

void put(std::string& out, std::uint32_t value, int bytes) {
    for (int i = 0; i < bytes; ++i) out += static_cast<char>((value >> (8 * i)) & 0xFFu);
}

// A WAV image with a LIST chunk before "fmt " (as ffmpeg writes one after it).
std::string wav_image(std::uint32_t format, int channels, std::uint32_t rate_hz, int bits,
                      const std::string& data) {
    std::string fmt;
    put(fmt, format, 2);
    put(fmt, static_cast<std::uint32_t>(channels), 2);
    put(fmt, rate_hz, 4);
    put(fmt, rate_hz * static_cast<std::uint32_t>(channels * bits / 8), 4);
    put(fmt, static_cast<std::uint32_t>(channels * bits / 8), 2);
    put(fmt, static_cast<std::uint32_t>(bits), 2);
    std::string body = "WAVE";
    body += "LIST";
    put(body, 3, 4);
    body += std::string("abc") + '\0';  // odd size, padded
    body += "fmt ";
    put(body, static_cast<std::uint32_t>(fmt.size()), 4);
    body += fmt;
    body += "data";
    put(body, static_cast<std::uint32_t>(data.size()), 4);
    body += data;
    std::string riff = "RIFF";
    put(riff, static_cast<std::uint32_t>(body.size()), 4);
    return riff + body;
}

std::filesystem::path write(const test::TempDir& dir, const std::string& name,
                            const std::string& bytes) {
    const auto path = dir.path() / name;
    std::ofstream(path, std::ios::binary) << bytes;
    return path;
}

TEST(WavReader, Pcm16MonoAndStereo) {
    test::TempDir dir;
    std::string mono;
    for (int v : {0, 16384, -32768, 32767}) put(mono, static_cast<std::uint32_t>(v) & 0xFFFFu, 2);
    EXPECT_EQ(read_wav_16k_mono(write(dir, "mono.wav", wav_image(1, 1, 16000, 16, mono))),
              (std::vector<float>{0.0f, 0.5f, -1.0f, 32767.0f / 32768.0f}));
    std::string stereo;
    for (int v : {16384, 0, -8192, -8192}) put(stereo, static_cast<std::uint32_t>(v) & 0xFFFFu, 2);
    EXPECT_EQ(read_wav_16k_mono(write(dir, "stereo.wav", wav_image(1, 2, 16000, 16, stereo))),
              (std::vector<float>{0.25f, -0.25f}));
}

TEST(WavReader, Float32) {
    test::TempDir dir;
    std::string data;
    for (float v : {0.125f, -0.75f, 1.0f}) {
        std::uint32_t bits = 0;
        std::memcpy(&bits, &v, 4);
        put(data, bits, 4);
    }
    EXPECT_EQ(read_wav_16k_mono(write(dir, "f.wav", wav_image(3, 1, 16000, 32, data))),
              (std::vector<float>{0.125f, -0.75f, 1.0f}));
}

TEST(WavReader, RejectsWhatItCannotRead) {
    test::TempDir dir;
    const std::string two(4, '\0');
    auto message = [&](const std::string& name, const std::string& bytes) {
        try {
            read_wav_16k_mono(write(dir, name, bytes));
        } catch (const WavError& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    const std::string rate = message("r.wav", wav_image(1, 1, 44100, 16, two));
    EXPECT_NE(rate.find("r.wav"), std::string::npos) << rate;
    EXPECT_NE(rate.find("44100 Hz"), std::string::npos) << rate;
    EXPECT_NE(message("b.wav", wav_image(1, 1, 16000, 24, two)).find("24 bits"), std::string::npos);
    EXPECT_NE(message("c.wav", wav_image(1, 6, 16000, 16, two)).find("6 channels"),
              std::string::npos);
    EXPECT_NE(message("t.wav", "hello").find("not a RIFF/WAVE"), std::string::npos);
    EXPECT_THROW(read_wav_16k_mono(dir.path() / "missing.wav"), WavError);
}

TEST(WavReader, ReadsJfkLikeTheTestHelper) {
    const auto path = std::filesystem::path(EARSHOT_SHARED_DIR) / "whisper-assets" / "jfk.wav";
    if (!std::filesystem::exists(path)) GTEST_SKIP() << "jfk.wav is not available at " << path;
    const std::vector<float> samples = read_wav_16k_mono(path);
    EXPECT_EQ(samples.size(), 176000u);
    EXPECT_EQ(samples, test::read_wav_pcm16(path).samples);
}

}  // namespace
}  // namespace earshot::audio
