// The Slaney mel filterbank against Whisper's mel_filters.npz and the reference's check values.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "earshot/audio/mel_filterbank.h"
#include "npz_reader.h"

namespace earshot::audio {
namespace {

std::filesystem::path mel_filters_npz() {
    return std::filesystem::path(EARSHOT_SHARED_DIR) / "whisper-assets" / "mel_filters.npz";
}

void expect_matches_asset(int mels) {
    const auto path = mel_filters_npz();
    if (!std::filesystem::exists(path)) {
        GTEST_SKIP() << "Whisper's mel_filters.npz is not available at " << path;
    }
    const auto entries = test::read_npz(path);
    const auto& asset = entries.at("mel_" + std::to_string(mels));
    ASSERT_EQ(asset.descr, "<f4");
    ASSERT_EQ(asset.shape, (std::vector<std::int64_t>{mels, kWhisperBins}));
    const std::vector<float> expected = asset.as_f32();

    const MelFilterbank filters(mels);
    ASSERT_EQ(filters.mels(), mels);
    ASSERT_EQ(filters.bins(), kWhisperBins);
    double max_diff_f64 = 0.0;
    float max_diff_f32 = 0.0f;
    for (std::size_t i = 0; i < expected.size(); ++i) {
        max_diff_f64 = std::max(
            max_diff_f64, std::abs(filters.weights_f64()[i] - static_cast<double>(expected[i])));
        max_diff_f32 = std::max(max_diff_f32, std::abs(filters.weights_f32()[i] - expected[i]));
    }
    EXPECT_LT(max_diff_f64, 1e-6) << mels << " mels, double";
    EXPECT_LT(max_diff_f32, 1e-6f) << mels << " mels, float";
    // Rebuilt in double as librosa does, the filters round to the asset within about one ulp.
    EXPECT_LT(max_diff_f64, 1e-8) << mels << " mels, double";
}

TEST(MelFilterbank, Matches80MelAsset) { expect_matches_asset(80); }

TEST(MelFilterbank, Matches128MelAsset) { expect_matches_asset(128); }

TEST(MelFilterbank, SlaneyScaleCheckValues) {
    EXPECT_DOUBLE_EQ(slaney_hz_to_mel(1000.0), 15.0);
    EXPECT_NEAR(slaney_hz_to_mel(8000.0), 45.245640471924965, 1e-12);
    EXPECT_NEAR(slaney_hz_to_mel(500.0), 7.5, 1e-12);
    for (double hz : {0.0, 120.0, 999.0, 1000.0, 2500.0, 8000.0}) {
        EXPECT_NEAR(slaney_mel_to_hz(slaney_hz_to_mel(hz)), hz, 1e-9) << hz;
    }
}

TEST(MelFilterbank, ShapeOfTheFilters) {
    // Reference §1.4: DC and Nyquist carry no weight; filter 0 has only bin 1; the last filter
    // covers bins 186..199 (80 mels) or 191..199 (128 mels); no row is empty.
    for (auto [mels, bin1, last_first] :
         {std::tuple{80, 0.02486259, 186}, std::tuple{128, 0.01237399, 191}}) {
        const MelFilterbank filters(mels);
        for (int m = 0; m < mels; ++m) {
            EXPECT_EQ(filters.weight(m, 0), 0.0) << m;
            EXPECT_EQ(filters.weight(m, kWhisperBins - 1), 0.0) << m;
            EXPECT_LT(filters.first_bin(m), filters.last_bin(m)) << m;
        }
        EXPECT_EQ(filters.first_bin(0), 1);
        EXPECT_EQ(filters.last_bin(0), 2);
        EXPECT_NEAR(filters.weight(0, 1), bin1, 1e-8);
        EXPECT_EQ(filters.first_bin(mels - 1), last_first);
        EXPECT_EQ(filters.last_bin(mels - 1), 200);
    }
}

TEST(MelFilterbank, RejectsNoMels) { EXPECT_THROW(MelFilterbank(0), std::invalid_argument); }

}  // namespace
}  // namespace earshot::audio
