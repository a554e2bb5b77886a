// `earshot devices` and `earshot debug record` through the real executable, recording from a
// private PulseAudio null sink (label device).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "run_process.h"
#include "temp_dir.h"
#include "virtual_mic.h"

namespace earshot::test {
namespace {

struct Wav {
    std::uint16_t format = 0;
    std::uint16_t channels = 0;
    std::uint32_t rate_hz = 0;
    std::uint16_t bits = 0;
    std::vector<std::int16_t> samples;
};

// The canonical 44-byte-header PCM WAV that `debug record` writes.
Wav read_canonical_wav(const std::filesystem::path& path) {
    std::vector<char> bytes(std::filesystem::file_size(path));
    std::ifstream file(path, std::ios::binary);
    file.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    Wav wav;
    if (bytes.size() < 44 || std::memcmp(bytes.data(), "RIFF", 4) != 0 ||
        std::memcmp(bytes.data() + 8, "WAVEfmt ", 8) != 0 ||
        std::memcmp(bytes.data() + 36, "data", 4) != 0) {
        return wav;
    }
    std::memcpy(&wav.format, bytes.data() + 20, 2);
    std::memcpy(&wav.channels, bytes.data() + 22, 2);
    std::memcpy(&wav.rate_hz, bytes.data() + 24, 4);
    std::memcpy(&wav.bits, bytes.data() + 34, 2);
    std::uint32_t data_bytes = 0;
    std::memcpy(&data_bytes, bytes.data() + 40, 4);
    if (data_bytes != bytes.size() - 44) return wav;
    wav.samples.resize(data_bytes / 2);
    std::memcpy(wav.samples.data(), bytes.data() + 44, wav.samples.size() * 2);
    return wav;
}

class CliLiveDevice : public ::testing::Test {
protected:
    void SetUp() override { ASSERT_TRUE(mic_.available()) << mic_.error(); }

    ProcessResult earshot(const std::string& args) {
        return run_shell(mic_.shell_environment() + shell_quote(EARSHOT_EXE) + " " + args);
    }

    VirtualMic mic_;
    TempDir dir_{"earshot-devices-test"};
};

TEST_F(CliLiveDevice, DevicesListsThePulseDevice) {
    const ProcessResult result = earshot("devices");
    ASSERT_EQ(result.exit_code, 0) << result.err;
    std::istringstream lines(result.out);
    std::string line;
    std::getline(lines, line);
    EXPECT_EQ(line, "  index  rate_hz  channels  host_api  name");
    bool pulse = false;
    int defaults = 0;
    while (std::getline(lines, line)) {
        if (line.size() > 7 && line.ends_with("  pulse")) {
            pulse = true;
            EXPECT_NE(line.find("ALSA"), std::string::npos) << line;
        }
        if (line.starts_with("* ") &&
            line != "* default input; choose one with --device NAME|INDEX") {
            ++defaults;
        }
    }
    EXPECT_TRUE(pulse) << result.out;
    EXPECT_EQ(defaults, 1) << result.out;
}

TEST_F(CliLiveDevice, DebugRecordWritesOneSecondAt16k) {
    ASSERT_EQ(std::system("command -v espeak-ng >/dev/null 2>&1"), 0)
        << "espeak-ng is not installed (packaging/setup.sh installs it)";
    const std::filesystem::path speech = dir_.path() / "speech.wav";
    ASSERT_EQ(std::system(("espeak-ng -w " + shell_quote(speech.string()) +
                           " 'One two three four five six seven eight nine ten, one two three "
                           "four five six seven eight nine ten.'")
                              .c_str()),
              0);
    ASSERT_TRUE(mic_.play_in_background(speech));

    const std::filesystem::path out = dir_.path() / "take.wav";
    const ProcessResult result =
        earshot("debug record --seconds 1 --device pulse --out " + shell_quote(out.string()));
    ASSERT_EQ(result.exit_code, 0) << result.err;
    EXPECT_NE(result.out.find("16000 samples at 16000 Hz, 0 overrun samples"), std::string::npos)
        << result.out;

    const Wav wav = read_canonical_wav(out);
    EXPECT_EQ(wav.format, 1);
    EXPECT_EQ(wav.channels, 1);
    EXPECT_EQ(wav.rate_hz, 16000u);
    EXPECT_EQ(wav.bits, 16);
    EXPECT_NEAR(static_cast<double>(wav.samples.size()), 16000.0, 160.0);
    // The speech playing into the sink, not silence (espeak-ng speech: RMS about 0.08).
    double energy = 0;
    for (std::int16_t s : wav.samples) energy += static_cast<double>(s) * static_cast<double>(s);
    const double rms = std::sqrt(energy / static_cast<double>(wav.samples.size())) / 32768.0;
    EXPECT_GT(rms, 0.01);
}

TEST_F(CliLiveDevice, DebugRecordNamesAnUnknownDevice) {
    const std::filesystem::path out = dir_.path() / "none.wav";
    const ProcessResult result =
        earshot("debug record --seconds 1 --device no-such-mic --out " + shell_quote(out.string()));
    EXPECT_EQ(result.exit_code, 2);
    EXPECT_NE(result.err.find("earshot debug record: no input device named \"no-such-mic\""),
              std::string::npos)
        << result.err;
    EXPECT_FALSE(std::filesystem::exists(out));
}

}  // namespace
}  // namespace earshot::test
