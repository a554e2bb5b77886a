// EnergyVad: an hour's worth of room noises never reads as speech, speech (jfk.wav, alone and in
// room noise) does, a tone burst switches on at its first hop and off after the hangover, and the
// floor follows down at once and rises at its set rate.
#include "earshot/audio/energy_vad.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <numbers>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "room_noise.h"
#include "wav_file.h"

namespace earshot::audio {
namespace {

constexpr std::size_t kHop = 160;
constexpr double kSampleRateHz = 16000.0;
// The pre-emphasised level of a tone at fs / 4 is its plain level plus 10 log10(1 + 0.97^2).
const double kQuarterRateTiltDb = 10.0 * std::log10(1.0 + 0.97 * 0.97);

// The decision of every whole hop of `x`, in order.
std::vector<bool> decisions(EnergyVad& vad, std::span<const float> x) {
    std::vector<bool> speech;
    for (std::size_t at = 0; at + kHop <= x.size(); at += kHop) {
        speech.push_back(vad.push_hop(x.subspan(at, kHop)));
    }
    return speech;
}

std::size_t count_speech(const std::vector<bool>& speech, std::size_t first = 0,
                         std::size_t end = static_cast<std::size_t>(-1)) {
    std::size_t n = 0;
    for (std::size_t i = first; i < std::min(end, speech.size()); ++i) n += speech[i] ? 1u : 0u;
    return n;
}

// A tone at fs / 4, samples a, 0, -a, 0, ...: every 160-sample hop has mean square a^2 / 2, and
// the pre-emphasised hop a^2 (1 + 0.97^2) / 2 exactly, even at a join of two such tones (the
// first ends on 0, so the second's first sample sees no click).
std::vector<float> quarter_rate_tone(double seconds, double dbfs) {
    const double amplitude = std::sqrt(2.0) * std::pow(10.0, dbfs / 20.0);
    std::vector<float> x(static_cast<std::size_t>(seconds * kSampleRateHz));
    for (std::size_t n = 0; n < x.size(); ++n) {
        x[n] = static_cast<float>(amplitude *
                                  std::sin(std::numbers::pi * static_cast<double>(n + 1) / 2));
    }
    return x;
}

std::filesystem::path jfk_path() {
    return std::filesystem::path(EARSHOT_SHARED_DIR) / "whisper-assets" / "jfk.wav";
}

TEST(EnergyVad, RoomNoisesAreNeverSpeech) {
    struct Case {
        const char* name;
        std::vector<float> signal;
        double expected_dbfs;  // plain RMS level of the signal
    };
    const Case cases[] = {
        {"digital silence", test::digital_silence(60.0), -120.0},
        {"white noise -40 dBFS", test::white_noise(60.0, -40.0, 11), -40.0},
        {"brown noise -35 dBFS", test::brown_noise(60.0, -35.0, 12), -35.0},
        {"mains hum 50 Hz -35 dBFS", test::mains_hum(60.0, -35.0, 50.0), -35.0},
        {"mains hum 60 Hz -35 dBFS", test::mains_hum(60.0, -35.0, 60.0), -35.0},
        {"room noise", test::room_noise(60.0, 13), -45.0},
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(c.name);
        if (c.expected_dbfs > -100.0) {
            EXPECT_NEAR(test::rms_dbfs(c.signal), c.expected_dbfs, 0.5);
        }
        EnergyVad vad;
        const std::vector<bool> speech = decisions(vad, c.signal);
        ASSERT_EQ(speech.size(), 6000u);
        EXPECT_EQ(count_speech(speech), 0u);
    }
}

TEST(EnergyVad, FloorSitsJustBelowStationaryNoise) {
    const std::vector<float> noise = test::white_noise(10.0, -40.0, 21);
    EnergyVad vad;
    decisions(vad, noise);
    // White noise gains 10 log10(1 + 0.97^2) = 2.9 dB from the pre-emphasis; the floor sits at
    // the quiet end of the hop levels, which spread by about +-0.5 dB around that (160 samples).
    EXPECT_NEAR(vad.level_dbfs(), -40.0, 1.5);
    EXPECT_NEAR(vad.weighted_level_dbfs(), -40.0 + kQuarterRateTiltDb, 1.5);
    EXPECT_LT(vad.noise_floor_dbfs(), -40.0 + kQuarterRateTiltDb);
    EXPECT_GT(vad.noise_floor_dbfs(), -40.0 + kQuarterRateTiltDb - 3.0);
}

TEST(EnergyVad, LevelIsTheMeanSquareOfTheHop) {
    EnergyVad vad;
    std::vector<float> hop(kHop, 0.25f);  // mean square 1/16
    vad.push_hop(hop);
    EXPECT_NEAR(vad.level_dbfs(), 10.0 * std::log10(1.0 / 16.0 + 1e-12), 1e-9);
    std::vector<float> zeros(kHop, 0.0f);
    vad.push_hop(zeros);
    EXPECT_DOUBLE_EQ(vad.level_dbfs(), -120.0);
    EXPECT_FALSE(vad.speech());
}

TEST(EnergyVad, FloorFollowsDownAtOnceAndRisesAtItsRate) {
    EnergyVad vad;  // margin 12 dB, rise 0.5 dB/s
    decisions(vad, quarter_rate_tone(2.0, -50.0));
    EXPECT_NEAR(vad.noise_floor_dbfs(), -50.0 + kQuarterRateTiltDb, 1e-4);

    // 6 dB up (under the margin): not speech, and the floor climbs 0.005 dB per 10 ms hop.
    const std::vector<bool> up = decisions(vad, quarter_rate_tone(4.0, -44.0));
    EXPECT_EQ(count_speech(up), 0u);
    EXPECT_NEAR(vad.noise_floor_dbfs(), -50.0 + kQuarterRateTiltDb + 4.0 * 0.5, 1e-4);

    // 16 dB down: the floor is there after one hop.
    EXPECT_FALSE(vad.push_hop(quarter_rate_tone(0.01, -60.0)));
    EXPECT_NEAR(vad.noise_floor_dbfs(), -60.0 + kQuarterRateTiltDb, 1e-4);

    // Back to -44: 16 dB over the floor and above -55 dBFS, speech from its first hop.
    const std::vector<bool> loud = decisions(vad, quarter_rate_tone(0.5, -44.0));
    EXPECT_EQ(count_speech(loud), loud.size());
}

TEST(EnergyVad, QuietSoundsBelowTheAbsoluteLevelAreNotSpeech) {
    EnergyVad vad;
    decisions(vad, test::white_noise(2.0, -85.0, 31));
    // 25 dB over the floor but under min_speech_dbfs (-55) even after the pre-emphasis gain.
    const std::vector<bool> faint = decisions(vad, quarter_rate_tone(1.0, -60.0));
    EXPECT_EQ(count_speech(faint), 0u);
    const std::vector<bool> louder = decisions(vad, quarter_rate_tone(1.0, -50.0));
    EXPECT_EQ(count_speech(louder), louder.size());
}

TEST(EnergyVad, DigitalSilenceLeavesTheFloorAlone) {
    EnergyVad vad;
    decisions(vad, test::room_noise(3.0, 41));
    const double floor_before = vad.noise_floor_dbfs();
    const std::vector<bool> gap = decisions(vad, test::digital_silence(5.0));
    EXPECT_EQ(count_speech(gap), 0u);
    EXPECT_DOUBLE_EQ(vad.noise_floor_dbfs(), floor_before);
    const std::vector<bool> after = decisions(vad, test::room_noise(5.0, 42));
    EXPECT_EQ(count_speech(after), 0u);
}

TEST(EnergyVad, ToneBurstSwitchesOnWithinOneHopAndOffAfterTheHangover) {
    // 5 s of room noise, a 1 kHz tone at -20 dBFS for 1 s (hops 500 to 599), 3 s more noise.
    std::vector<float> x = test::room_noise(9.0, 51);
    for (std::size_t n = 80000; n < 96000; ++n) {
        x[n] += static_cast<float>(
            std::sqrt(2.0) * 0.1 *
            std::sin(2 * std::numbers::pi * 1000.0 * static_cast<double>(n) / kSampleRateHz));
    }
    EnergyVad vad;  // hangover 0.3 s = 30 hops
    const std::vector<bool> speech = decisions(vad, x);
    EXPECT_EQ(count_speech(speech, 0, 500), 0u);
    EXPECT_TRUE(speech[500]);
    EXPECT_EQ(count_speech(speech, 500, 600), 100u);
    EXPECT_EQ(count_speech(speech, 600, 630), 30u);  // the hangover
    EXPECT_FALSE(speech[630]);
    EXPECT_EQ(count_speech(speech, 630), 0u);
}

TEST(EnergyVad, HangoverLengthFollowsTheOption) {
    EnergyVadOptions options;
    options.hangover_s = 0.0;
    EnergyVad vad(options);
    decisions(vad, quarter_rate_tone(1.0, -70.0));
    EXPECT_TRUE(vad.push_hop(quarter_rate_tone(0.01, -30.0)));
    EXPECT_FALSE(vad.push_hop(quarter_rate_tone(0.01, -70.0)));
}

TEST(EnergyVad, EmptyHopChangesNothingAndResetForgets) {
    EnergyVad vad;
    decisions(vad, quarter_rate_tone(1.0, -70.0));
    EXPECT_TRUE(vad.push_hop(quarter_rate_tone(0.01, -30.0)));
    const double level = vad.level_dbfs();
    EXPECT_TRUE(vad.push_hop({}));
    EXPECT_DOUBLE_EQ(vad.level_dbfs(), level);
    vad.reset();
    EXPECT_FALSE(vad.speech());
    EXPECT_DOUBLE_EQ(vad.noise_floor_dbfs(), EnergyVad::kSilenceDbfs);
    // After reset the first hop only sets the floor, however loud.
    EXPECT_FALSE(vad.push_hop(quarter_rate_tone(0.01, -30.0)));
}

TEST(EnergyVad, RejectsBadOptions) {
    EnergyVadOptions bad_hop;
    bad_hop.hop_samples = 0;
    EXPECT_THROW(EnergyVad{bad_hop}, std::invalid_argument);
    EnergyVadOptions bad_rate;
    bad_rate.sample_rate_hz = 0;
    EXPECT_THROW(EnergyVad{bad_rate}, std::invalid_argument);
    EnergyVadOptions bad_hangover;
    bad_hangover.hangover_s = -0.1;
    EXPECT_THROW(EnergyVad{bad_hangover}, std::invalid_argument);
}

// jfk.wav: 11 s, "And so my fellow Americans, ask not what your country can do for you, ask what
// you can do for your country." The words run from 0.32 s to about 10.6 s; between phrases the
// recording's own room tone sits near -40 dBFS, the words mostly between -8 and -30 dBFS.
class EnergyVadJfk : public ::testing::Test {
protected:
    void SetUp() override {
        if (!std::filesystem::exists(jfk_path())) {
            GTEST_SKIP() << "the jfk.wav speech sample is not available at " << jfk_path();
        }
        const test::WavPcm16 wav = test::read_wav_pcm16(jfk_path());
        ASSERT_EQ(wav.sample_rate_hz, 16000);
        ASSERT_EQ(wav.channels, 1);
        samples_ = wav.samples;
        for (std::size_t at = 0; at + kHop <= samples_.size(); at += kHop) {
            quiet_.push_back(test::rms_dbfs(std::span(samples_).subspan(at, kHop)) < kQuietDbfs);
        }
    }

    // Speech on the hops inside the words, and on the quiet hops (room tone between phrases)
    // among them, as fractions; printed.
    void report(const char* what, const std::vector<bool>& speech, double& inside,
                double& quiet) const {
        std::size_t quiet_hops = 0;
        std::size_t quiet_speech = 0;
        for (std::size_t i = kFirstSpeechHop; i < kEndSpeechHop; ++i) {
            quiet_hops += quiet_[i] ? 1u : 0u;
            quiet_speech += quiet_[i] && speech[i] ? 1u : 0u;
        }
        inside = static_cast<double>(count_speech(speech, kFirstSpeechHop, kEndSpeechHop)) /
                 static_cast<double>(kEndSpeechHop - kFirstSpeechHop);
        quiet = static_cast<double>(quiet_speech) / static_cast<double>(quiet_hops);
        std::printf(
            "%s: speech on %.1f%% of the %zu hops inside the speech, on %.1f%% of the %zu quiet "
            "hops among them (plain level under %.0f dBFS), %zu of %zu hops in all\n",
            what, 100.0 * inside, kEndSpeechHop - kFirstSpeechHop, 100.0 * quiet, quiet_hops,
            kQuietDbfs, count_speech(speech), speech.size());
    }

    static constexpr std::size_t kFirstSpeechHop = 32;
    static constexpr std::size_t kEndSpeechHop = 1060;
    static constexpr double kQuietDbfs = -36.0;
    std::vector<float> samples_;
    std::vector<bool> quiet_;  // per hop of jfk.wav alone
};

TEST_F(EnergyVadJfk, SpeechIsDetectedOnMostHopsInsideTheSpeech) {
    EnergyVad vad;
    const std::vector<bool> speech = decisions(vad, samples_);
    double inside = 0.0;
    double quiet = 0.0;
    report("jfk.wav", speech, inside, quiet);
    EXPECT_GT(inside, 0.5);
    EXPECT_EQ(count_speech(speech, 0, 6), 0u);  // leading digital silence
    EXPECT_TRUE(speech[80]);                    // "And so my..."
}

TEST_F(EnergyVadJfk, SpeechInRoomNoiseIsStillSpeech) {
    const std::vector<float> noise = test::room_noise(11.0, 61);
    std::vector<float> mixed = samples_;
    for (std::size_t n = 0; n < mixed.size() && n < noise.size(); ++n) mixed[n] += noise[n];
    EnergyVad vad;
    const std::vector<bool> speech = decisions(vad, mixed);
    double inside = 0.0;
    double quiet = 0.0;
    report("jfk.wav + room noise", speech, inside, quiet);
    EXPECT_GT(inside, 0.5);
    EXPECT_TRUE(speech[80]);
    // With the floor set by the room noise from the first hop, most pauses are not speech.
    EXPECT_LT(quiet, 0.5);
}

}  // namespace
}  // namespace earshot::audio
