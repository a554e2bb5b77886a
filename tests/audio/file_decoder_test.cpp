// Tests for FileDecoder and decode_file: every common format and the audio of video files to
// 16 kHz mono (length and content), the typed errors, progress, cancellation and bounded memory.
// Fixtures are generated at test time with the ffmpeg and sox tools from a known signal.
#include "earshot/audio/file_decoder.h"

#include <gtest/gtest.h>
#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <numbers>
#include <ostream>
#include <string>
#include <vector>

#include "temp_dir.h"

namespace earshot::audio {
namespace {

namespace fs = std::filesystem;

constexpr double kToneHz = 440.0;
constexpr double kRateHz = FileDecoder::kSampleRateHz;
// The stereo source: left 0.3 * sin, right 0.1 * sin, so the (L + R) / 2 downmix is 0.2 * sin.
constexpr double kLeftAmplitude = 0.3;
constexpr double kRightAmplitude = 0.1;
constexpr double kMonoAmplitude = (kLeftAmplitude + kRightAmplitude) / 2.0;
const std::string kStereoSine =
    "aevalsrc=0.3*sin(2*PI*440*t)|0.1*sin(2*PI*440*t):s=44100:d=1:c=stereo";

bool have_tool(const std::string& name) {
    return std::system(("command -v " + name + " >/dev/null 2>&1").c_str()) == 0;
}

// Runs a shell command quietly; true on exit status 0.
bool run_quiet(const std::string& command) {
    return std::system((command + " >/dev/null 2>&1").c_str()) == 0;
}

std::string quoted(const fs::path& path) { return "'" + path.string() + "'"; }

// ffmpeg with its banner and log silenced, no stdin, overwriting `out`.
bool ffmpeg(const std::string& arguments, const fs::path& out) {
    return run_quiet("ffmpeg -nostdin -hide_banner -loglevel error -y " + arguments + " " +
                     quoted(out));
}

// The whole file as bytes (stdio rather than iostreams: GCC 12 reports a false
// -Wnull-dereference inside istreambuf_iterator).
std::string read_bytes(const fs::path& path) {
    std::string bytes;
    std::FILE* file = std::fopen(path.c_str(), "rb");
    if (file == nullptr) {
        return bytes;
    }
    char buffer[4096];
    std::size_t n = 0;
    while ((n = std::fread(buffer, 1, sizeof(buffer), file)) > 0) {
        bytes.append(buffer, n);
    }
    std::fclose(file);
    return bytes;
}

double rms(const std::vector<float>& x, std::size_t begin, std::size_t end) {
    double sum = 0.0;
    for (std::size_t i = begin; i < end; ++i) {
        sum += static_cast<double>(x[i]) * static_cast<double>(x[i]);
    }
    return std::sqrt(sum / static_cast<double>(end - begin));
}

// The expected 16 kHz mono signal: amplitude * sin(2 pi 440 t), starting at phase 0.
std::vector<float> expected_tone(std::size_t count, double amplitude) {
    std::vector<float> tone(count);
    for (std::size_t n = 0; n < count; ++n) {
        tone[n] = static_cast<float>(amplitude * std::sin(2.0 * std::numbers::pi * kToneHz *
                                                          static_cast<double>(n) / kRateHz));
    }
    return tone;
}

// Pearson correlation over the common length.
double correlation(const std::vector<float>& a, const std::vector<float>& b) {
    const std::size_t n = std::min(a.size(), b.size());
    double mean_a = 0.0;
    double mean_b = 0.0;
    for (std::size_t i = 0; i < n; ++i) {
        mean_a += static_cast<double>(a[i]);
        mean_b += static_cast<double>(b[i]);
    }
    mean_a /= static_cast<double>(n);
    mean_b /= static_cast<double>(n);
    double ab = 0.0;
    double aa = 0.0;
    double bb = 0.0;
    for (std::size_t i = 0; i < n; ++i) {
        const double da = static_cast<double>(a[i]) - mean_a;
        const double db = static_cast<double>(b[i]) - mean_b;
        ab += da * db;
        aa += da * da;
        bb += db * db;
    }
    return ab / std::sqrt(aa * bb);
}

// |DFT of x at frequency_hz| / N: a single-bin DFT (the frequency need not be a bin centre).
double tone_magnitude(const std::vector<float>& x, double frequency_hz) {
    double re = 0.0;
    double im = 0.0;
    const double step = 2.0 * std::numbers::pi * frequency_hz / kRateHz;
    for (std::size_t n = 0; n < x.size(); ++n) {
        re += static_cast<double>(x[n]) * std::cos(step * static_cast<double>(n));
        im -= static_cast<double>(x[n]) * std::sin(step * static_cast<double>(n));
    }
    return std::hypot(re, im) / static_cast<double>(x.size());
}

// 440 Hz dominates: its DFT magnitude is at least 20x that at neighbouring frequencies.
void expect_dominant_tone(const std::vector<float>& x) {
    const double at_tone = tone_magnitude(x, kToneHz);
    // A full-length sine of amplitude A has |X(f)| / N = A / 2.
    EXPECT_GT(at_tone, 0.8 * kMonoAmplitude / 2.0);
    for (const double neighbour_hz : {220.0, 330.0, 400.0, 480.0, 550.0, 660.0, 880.0, 1320.0}) {
        EXPECT_GT(at_tone, 20.0 * tone_magnitude(x, neighbour_hz))
            << "at " << neighbour_hz << " Hz";
    }
}

// The command that makes each fixture from the known signal, given its quoted output path.
std::string fixture_command(const std::string& name, const std::string& out) {
    const std::string ffmpeg = "ffmpeg -nostdin -hide_banner -loglevel error -y ";
    const std::string sine = ffmpeg + "-f lavfi -i \"" + kStereoSine + "\" ";
    const std::string video = ffmpeg + "-f lavfi -i testsrc=size=64x48:rate=10:duration=1 ";
    const std::string sine_video = video + "-f lavfi -i \"" + kStereoSine + "\" ";
    const std::map<std::string, std::string> recipes = {
        {"s16.wav", sine + "-c:a pcm_s16le"},
        {"f32.wav", sine + "-c:a pcm_f32le"},
        {"tone.flac", sine + "-c:a flac"},
        {"tone.mp3", sine + "-c:a libmp3lame -b:a 128k"},
        {"tone.ogg", sine + "-c:a libvorbis"},
        {"tone.opus", sine + "-c:a libopus -b:a 96k"},
        {"tone.m4a", sine + "-c:a aac -b:a 128k"},
        {"video.mp4", sine_video + "-c:v mpeg4 -c:a aac -shortest"},
        {"video.mkv", sine_video + "-c:v mpeg4 -c:a flac -shortest"},
        {"silent_video.mp4", video + "-c:v mpeg4"},
        {"five_seconds.flac",
         ffmpeg + "-f lavfi -i sine=frequency=440:sample_rate=44100:duration=5 -c:a flac"},
        // 10 minutes of 44.1 kHz stereo, the 1/8-amplitude sine copied to both channels.
        {"ten_minutes.flac", ffmpeg +
                                 "-f lavfi -i sine=frequency=440:sample_rate=44100:duration=600 "
                                 "-af 'pan=stereo|c0=c0|c1=c0' -c:a flac"},
        // sox: 22.05 kHz mono 24-bit (WAVE_FORMAT_EXTENSIBLE), amplitude 0.2.
        {"sox24.wav", "sox -n -r 22050 -c 1 -b 24 " + out + " synth 1 sine 440 vol 0.2"},
    };
    const auto recipe = recipes.find(name);
    if (recipe == recipes.end()) {
        return "";
    }
    return name == "sox24.wav" ? recipe->second : recipe->second + " " + out;
}

// Fixtures are made on first use into one directory per test process (ctest runs each test in
// its own process, so each makes only what it reads).
class FileDecoderTest : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        if (have_tool("ffmpeg") && have_tool("sox")) {
            dir_ = std::make_unique<test::TempDir>("earshot-file-decoder");
        }
    }
    static void TearDownTestSuite() { dir_.reset(); }

    void SetUp() override {
        if (dir_ == nullptr) {
            GTEST_SKIP() << "the ffmpeg and sox command-line tools are needed to make fixtures "
                            "(packaging/setup.sh installs them)";
        }
    }

    // The fixture's path, made first when it does not exist yet; a failure to make it fails the
    // test.
    static fs::path fixture(const std::string& name) {
        const fs::path path = dir_->path() / name;
        const std::string command = fixture_command(name, quoted(path));
        if (!command.empty() && !fs::exists(path) && !run_quiet(command)) {
            ADD_FAILURE() << "could not make the fixture " << name << " with: " << command;
        }
        return path;
    }

    static std::unique_ptr<test::TempDir> dir_;
};

std::unique_ptr<test::TempDir> FileDecoderTest::dir_;

struct FormatCase {
    const char* file;
    bool lossless;
    // |decoded length - 16000| may be at most this (codec padding that the container does not
    // record exactly).
    std::size_t length_tolerance_samples;
};

void PrintTo(const FormatCase& c, std::ostream* os) { *os << c.file; }

class FileDecoderFormatTest : public FileDecoderTest,
                              public ::testing::WithParamInterface<FormatCase> {};

TEST_P(FileDecoderFormatTest, DecodesToSixteenKilohertzMonoWithTheSourceContent) {
    const FormatCase& c = GetParam();
    const DecodedAudio decoded = decode_file(fixture(c.file));
    ASSERT_FALSE(decoded.cancelled());
    const std::vector<float>& x = decoded.samples;
    const auto length = static_cast<long>(x.size());
    EXPECT_LE(std::labs(length - 16000), static_cast<long>(c.length_tolerance_samples))
        << "decoded " << x.size() << " samples";
    ASSERT_GT(x.size(), 15000u);

    const double expected_rms = kMonoAmplitude / std::numbers::sqrt2;
    if (c.lossless) {
        // Lossless: the resampled signal is the analytic tone, in phase (no resampler delay).
        EXPECT_GT(correlation(x, expected_tone(x.size(), kMonoAmplitude)), 0.999);
        // The first and last 5 ms hold the resampler's response to the tone's abrupt edges.
        EXPECT_NEAR(rms(x, 80, x.size() - 80), expected_rms, 0.01 * expected_rms);
    } else {
        expect_dominant_tone(x);
        EXPECT_NEAR(rms(x, 800, x.size() - 800), expected_rms, 0.10 * expected_rms);
    }
}

// Tolerances: PCM and FLAC are sample-exact; Opus (pre-skip and end trimming) and mp3 (LAME's
// header records encoder delay and padding) come out exact too. FFmpeg's Vorbis decoder drops the
// first 128 samples at 44.1 kHz (47 at 16 kHz; the ffmpeg tool gives the same 15954 samples).
// AAC in MP4 trims the 1024-sample priming by an edit list, but the last frame may be padded up
// to 1024 samples at 44.1 kHz (372 at 16 kHz).
INSTANTIATE_TEST_SUITE_P(
    Formats, FileDecoderFormatTest,
    ::testing::Values(FormatCase{"s16.wav", true, 0}, FormatCase{"f32.wav", true, 0},
                      FormatCase{"tone.flac", true, 0}, FormatCase{"video.mkv", true, 0},
                      FormatCase{"tone.mp3", false, 0}, FormatCase{"tone.ogg", false, 48},
                      FormatCase{"tone.opus", false, 0}, FormatCase{"tone.m4a", false, 372},
                      FormatCase{"video.mp4", false, 372}),
    [](const ::testing::TestParamInfo<FormatCase>& param_info) {
        std::string name = param_info.param.file;
        std::replace(name.begin(), name.end(), '.', '_');
        return name;
    });

TEST_F(FileDecoderTest, SoxTwentyFourBitMonoAt22050Hz) {
    FileDecoder decoder = FileDecoder::open(fixture("sox24.wav"));
    EXPECT_EQ(decoder.source_sample_rate_hz(), 22050);
    EXPECT_EQ(decoder.source_channels(), 1);
    ASSERT_TRUE(decoder.duration_s().has_value());
    EXPECT_NEAR(*decoder.duration_s(), 1.0, 1e-6);
    std::vector<float> x(20000);
    x.resize(decoder.read(x));
    EXPECT_EQ(x.size(), 16000u);
    EXPECT_GT(correlation(x, expected_tone(x.size(), 0.2)), 0.999);
    EXPECT_NEAR(rms(x, 80, x.size() - 80), 0.2 / std::numbers::sqrt2,
                0.01 * 0.2 / std::numbers::sqrt2);
}

TEST_F(FileDecoderTest, StereoIsDownmixedAsTheMeanOfTheChannels) {
    FileDecoder decoder = FileDecoder::open(fixture("s16.wav"));
    EXPECT_EQ(decoder.source_channels(), 2);
    EXPECT_EQ(decoder.source_sample_rate_hz(), 44100);
    EXPECT_EQ(decoder.codec_name(), "pcm_s16le");
    std::vector<float> x(16000);
    ASSERT_EQ(decoder.read(x), 16000u);
    // Peak of (0.3 + 0.1) / 2 * sin: 0.2, not the 0.28 of an unnormalised sqrt(1/2) downmix.
    const float peak = *std::max_element(x.begin(), x.end());
    EXPECT_NEAR(peak, kMonoAmplitude, 0.005);
}

TEST_F(FileDecoderTest, ReadIsStreamingAndReturnsZeroAtTheEnd) {
    FileDecoder decoder = FileDecoder::open(fixture("tone.flac"));
    std::vector<float> whole;
    std::vector<float> chunk(37);  // an odd size that never lines up with codec frames
    std::size_t n = 0;
    while ((n = decoder.read(chunk)) > 0) {
        whole.insert(whole.end(), chunk.begin(), chunk.begin() + static_cast<long>(n));
    }
    EXPECT_TRUE(decoder.at_end());
    EXPECT_EQ(decoder.read(chunk), 0u);
    EXPECT_DOUBLE_EQ(decoder.progress(), 1.0);
    // Chunked reads give exactly what one big read gives.
    EXPECT_EQ(whole, decode_file(fixture("tone.flac")).samples);
}

TEST_F(FileDecoderTest, VideoFilesGiveTheirAudioTrack) {
    FileDecoder mp4 = FileDecoder::open(fixture("video.mp4"));
    EXPECT_EQ(mp4.codec_name(), "aac");
    FileDecoder mkv = FileDecoder::open(fixture("video.mkv"));
    EXPECT_EQ(mkv.codec_name(), "flac");
    EXPECT_EQ(mkv.source_channels(), 2);
}

TEST_F(FileDecoderTest, JfkWavDecodesToItsOwnSamplesAndFlacMatchesIt) {
    const fs::path jfk = fs::path(EARSHOT_SHARED_DIR) / "whisper-assets" / "jfk.wav";
    if (!fs::exists(jfk)) {
        GTEST_SKIP() << "jfk.wav not found under EARSHOT_SHARED_DIR (" << EARSHOT_SHARED_DIR << ")";
    }
    // jfk.wav is 16 kHz mono s16: the decoder must pass its samples through as value / 32768.
    const std::string bytes = read_bytes(jfk);
    std::size_t data = 12;  // the RIFF chunks after "RIFF<size>WAVE"
    std::uint32_t data_bytes = 0;
    while (data + 8 <= bytes.size()) {
        std::uint32_t size = 0;
        std::memcpy(&size, bytes.data() + data + 4, 4);
        if (std::string(bytes.data() + data, 4) == "data") {
            data_bytes = size;
            data += 8;
            break;
        }
        data += 8 + size + (size & 1u);
    }
    ASSERT_EQ(data_bytes, 352000u);

    const std::vector<float> x = decode_file(jfk).samples;
    ASSERT_EQ(x.size(), 176000u);
    for (std::size_t i = 0; i < x.size(); ++i) {
        std::int16_t value = 0;
        std::memcpy(&value, bytes.data() + data + 2 * i, 2);
        ASSERT_EQ(x[i], static_cast<float>(value) / 32768.0f) << "sample " << i;
    }

    const fs::path flac = fixture("jfk.flac");
    ASSERT_TRUE(ffmpeg("-i " + quoted(jfk) + " -c:a flac", flac));
    EXPECT_EQ(decode_file(flac).samples, x);
}

// Expects `path` to fail to open with an AudioFileError whose one-line message names the file
// and contains `text`.
void expect_open_error(const fs::path& path, const std::string& text) {
    try {
        FileDecoder::open(path);
        ADD_FAILURE() << "no error for " << path;
    } catch (const AudioFileError& error) {
        const std::string message = error.what();
        EXPECT_NE(message.find(text), std::string::npos) << message;
        EXPECT_EQ(message.rfind(path.string() + ": ", 0), 0u) << message;
        EXPECT_EQ(message.find('\n'), std::string::npos) << message;
        EXPECT_EQ(error.file(), path);
    }
}

void write_bytes(const fs::path& path, const std::string& bytes) {
    std::ofstream(path, std::ios::binary) << bytes;
}

TEST_F(FileDecoderTest, EmptyFileIsAnError) {
    const fs::path empty = fixture("empty.wav");
    write_bytes(empty, "");
    expect_open_error(empty, "empty file (0 bytes)");
}

TEST_F(FileDecoderTest, MissingFileIsAnError) {
    expect_open_error(fixture("missing.flac"), "cannot open: No such file or directory");
}

TEST_F(FileDecoderTest, TextRenamedWavIsAnError) {
    const fs::path text = fixture("notes.wav");
    write_bytes(text, "These are meeting notes, not audio.\nSecond line.\n");
    expect_open_error(text, "a text file, not audio or video (ASCII text)");
}

// FFmpeg opens a text file named .mp3 as an MP3 stream and fails with "Could not seek to 1041"
// (or "no audio stream (streams: audio)" for a short one): the message names the content.
TEST_F(FileDecoderTest, TextRenamedMp3IsNamedAsText) {
    std::string notes;
    for (int line = 0; line < 60; ++line) {
        notes += "Meeting notes, line " + std::to_string(line) + ": caf\xc3\xa9 and tea.\n";
    }
    const fs::path long_text = fixture("notes.mp3");
    write_bytes(long_text, notes);
    expect_open_error(long_text, "a text file, not audio or video (");

    const fs::path short_text = fixture("short.mp3");
    write_bytes(short_text, notes.substr(0, 500));
    expect_open_error(short_text, "a text file, not audio or video");
}

// An image given as audio is named as an image.
TEST_F(FileDecoderTest, ImageRenamedWavIsNamedAsImage) {
    // A 1 x 1 PNG: signature, IHDR, IDAT, IEND (CRCs included).
    const unsigned char png[] = {
        0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48,
        0x44, 0x52, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x02, 0x00, 0x00,
        0x00, 0x90, 0x77, 0x53, 0xde, 0x00, 0x00, 0x00, 0x0c, 0x49, 0x44, 0x41, 0x54, 0x08,
        0xd7, 0x63, 0xf8, 0xcf, 0xc0, 0x00, 0x00, 0x03, 0x01, 0x01, 0x00, 0x18, 0xdd, 0x8d,
        0xb0, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82};
    const fs::path image = fixture("photo.wav");
    write_bytes(image, std::string(reinterpret_cast<const char*>(png), sizeof(png)));
    expect_open_error(image, "not audio or video (PNG image data, 1 x 1");
}

// A .txt file opens in FFmpeg as text drawn on video (its tty demuxer); it is named as text.
TEST_F(FileDecoderTest, TextFileIsNamedAsText) {
    const fs::path text = fixture("notes.txt");
    std::string notes;  // a few pages, as a real note is: FFmpeg takes it as text on video
    for (int line = 0; line < 200; ++line) {
        notes += "Meeting notes, line " + std::to_string(line) + ": nothing here is audio.\n";
    }
    write_bytes(text, notes);
    expect_open_error(text, "a text file, not audio or video (");
}

TEST_F(FileDecoderTest, TruncatedFilesAreErrors) {
    // An MP4/M4A keeps its index (the moov atom) at the end: cut in half, nothing is playable.
    const std::string whole = read_bytes(fixture("tone.m4a"));
    const fs::path half = fixture("half.m4a");
    write_bytes(half, whole.substr(0, whole.size() / 2));
    expect_open_error(half, "moov atom not found");

    // A WAV cut inside its header.
    const fs::path cut = fixture("cut.wav");
    write_bytes(cut, read_bytes(fixture("s16.wav")).substr(0, 20));
    expect_open_error(cut, "Invalid data found when processing input");
}

TEST_F(FileDecoderTest, VideoWithoutAudioIsAnError) {
    expect_open_error(fixture("silent_video.mp4"), "no audio stream (streams: video)");
}

TEST_F(FileDecoderTest, UnsupportedCodecIsAnError) {
    // A well-formed WAV whose format tag (0x5555) names no codec FFmpeg knows.
    std::string wav = "RIFF";
    auto put32 = [&wav](std::uint32_t v) { wav.append(reinterpret_cast<const char*>(&v), 4); };
    auto put16 = [&wav](std::uint16_t v) { wav.append(reinterpret_cast<const char*>(&v), 2); };
    put32(36 + 1000);
    wav += "WAVEfmt ";
    put32(16);
    put16(0x5555);  // format tag
    put16(1);       // channels
    put32(16000);   // sample rate
    put32(32000);   // bytes per second
    put16(2);       // block align
    put16(16);      // bits per sample
    wav += "data";
    put32(1000);
    wav.append(1000, '\x01');
    const fs::path path = fixture("unknown_codec.wav");
    write_bytes(path, wav);
    expect_open_error(path, "unsupported codec none (codec tag 0x5555)");
}

TEST_F(FileDecoderTest, ProgressIsMonotonicAndEndsAtOne) {
    const fs::path path = fixture("five_seconds.flac");
    std::vector<double> reports;
    DecodeOptions options;
    options.chunk_samples = 4000;
    options.on_progress = [&reports](double fraction) { reports.push_back(fraction); };
    const DecodedAudio decoded = decode_file(path, options);
    EXPECT_FALSE(decoded.cancelled());
    EXPECT_EQ(decoded.samples.size(), 80000u);
    ASSERT_GE(reports.size(), 20u);  // 80000 / 4000 chunks, plus the final one
    EXPECT_TRUE(std::is_sorted(reports.begin(), reports.end()));
    EXPECT_GT(reports.front(), 0.0);
    EXPECT_LT(reports.front(), 0.1);
    EXPECT_DOUBLE_EQ(reports.back(), 1.0);
    EXPECT_LT(reports[reports.size() - 2], 1.0);
    // Halfway through the samples, progress is about halfway.
    EXPECT_NEAR(reports[reports.size() / 2], 0.5, 0.1);
}

TEST_F(FileDecoderTest, CancellationStopsEarlyAndSaysSo) {
    const fs::path path = fixture("five_seconds.flac");
    std::atomic<bool> cancel{false};
    DecodeOptions options;
    options.chunk_samples = 4000;
    options.cancel = &cancel;
    double last_progress = 0.0;
    options.on_progress = [&](double fraction) {
        last_progress = fraction;
        if (fraction >= 0.3) {
            cancel = true;
        }
    };
    const DecodedAudio decoded = decode_file(path, options);
    EXPECT_TRUE(decoded.cancelled());
    EXPECT_LT(last_progress, 1.0);
    // Stopped right after the chunk that crossed 30% (1.5 s = 24000 samples).
    EXPECT_GE(decoded.samples.size(), 24000u);
    EXPECT_LE(decoded.samples.size(), 28000u);
    EXPECT_EQ(decoded.samples.size() % 4000, 0u);

    cancel = true;
    EXPECT_TRUE(decode_file(path, options).samples.empty());
}

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kUnderAddressSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kUnderAddressSanitizer = true;
#else
constexpr bool kUnderAddressSanitizer = false;
#endif
#else
constexpr bool kUnderAddressSanitizer = false;
#endif

// Resident set size of this process now, in KiB (Linux /proc).
long current_rss_kib() {
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line)) {
        if (line.rfind("VmRSS:", 0) == 0) {
            return std::stol(line.substr(6));
        }
    }
    return -1;
}

long peak_rss_kib() {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return usage.ru_maxrss;  // KiB on Linux
}

TEST_F(FileDecoderTest, TenMinuteFileStreamsInBoundedMemory) {
    // 10 minutes of 44.1 kHz stereo: 211 MB as float PCM, 38.4 MB as 16 kHz mono output.
    const fs::path path = fixture("ten_minutes.flac");
    const long rss_before_kib = current_rss_kib();
    const long peak_before_kib = peak_rss_kib();
    long rss_max_kib = rss_before_kib;

    FileDecoder decoder = FileDecoder::open(path);
    ASSERT_TRUE(decoder.duration_s().has_value());
    EXPECT_NEAR(*decoder.duration_s(), 600.0, 1e-3);
    std::vector<float> chunk(4096);
    std::size_t total = 0;
    std::size_t max_capacity = 0;
    double sum_squares = 0.0;
    for (std::size_t reads = 0;; ++reads) {
        const std::size_t n = decoder.read(chunk);
        if (n == 0) {
            break;
        }
        total += n;
        for (std::size_t i = 0; i < n; ++i) {
            sum_squares += static_cast<double>(chunk[i]) * static_cast<double>(chunk[i]);
        }
        max_capacity = std::max(max_capacity, decoder.buffer_capacity_samples());
        if (reads % 64 == 0) {
            rss_max_kib = std::max(rss_max_kib, current_rss_kib());
        }
    }
    EXPECT_EQ(total, 600u * 16000u);
    // lavfi's sine defaults to amplitude 1/8, copied to both channels by pan: RMS (1/8) / sqrt(2).
    EXPECT_NEAR(std::sqrt(sum_squares / static_cast<double>(total)), 0.125 / std::numbers::sqrt2,
                0.001);
    // The decoder's own buffer holds at most one codec frame (FLAC: 4608 samples at 44.1 kHz =
    // 1672 at 16 kHz), far below 1 s.
    EXPECT_LE(max_capacity, 16384u);
    // Resident memory may grow by decoder tables and allocator slack, not by the file: the
    // output alone would be 37,500 KiB. getrusage's peak only rises when this test exceeds an
    // earlier peak of the process, so the sampled VmRSS is the sharper check.
    if (kUnderAddressSanitizer) {
        return;  // its quarantine keeps freed packets resident, so RSS says nothing here
    }
    EXPECT_LT(rss_max_kib - rss_before_kib, 8 * 1024) << "VmRSS grew from " << rss_before_kib;
    EXPECT_LT(peak_rss_kib() - peak_before_kib, 8 * 1024);
}

}  // namespace
}  // namespace earshot::audio
