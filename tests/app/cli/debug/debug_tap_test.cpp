// `earshot debug tap` and `earshot debug compare` through the real executable: --list names every
// value with its symbolic type and shape, a tapped value equals the CPU backend's tap in process,
// a comparison of a model with itself is all zero and with its f16 copy is sorted worst first,
// and bad input is one line and exit 2 (the closest edge names; both mel shapes).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <regex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "cli/debug/npy_file.h"
#include "earshot/engine/backend/cpu_whisper.h"
#include "earshot/engine/backend/tap.h"
#include "earshot/engine/model/random_checkpoint.h"
#include "earshot/engine/model/whisper_checkpoint.h"
#include "run_process.h"
#include "small_checkpoint.h"
#include "temp_dir.h"

namespace {

namespace fs = std::filesystem;
using earshot::app::read_npy;
using earshot::app::write_npy;
using earshot::backend::HostTensor;
using earshot::test::run_earshot;
using earshot::test::TempDir;

std::string q(const fs::path& p) { return earshot::test::shell_quote(p.string()); }

size_t lines(const std::string& text) {
    return static_cast<size_t>(std::count(text.begin(), text.end(), '\n'));
}

class DebugTap : public ::testing::Test {
protected:
    void SetUp() override {
        earshot::model::RandomCheckpointOptions options = earshot::test::small_checkpoint_options();
        options.frames = 200;
        options.max_tokens = 32;
        options.dtype = "f32";
        earshot::model::write_random_checkpoint(model_, options);
        options.dtype = "f16";  // the same values rounded to half precision
        earshot::model::write_random_checkpoint(half_, options);
        mel_values_.resize(80 * 200);
        for (size_t i = 0; i < mel_values_.size(); ++i) {
            const size_t frame = i % 200;
            mel_values_[i] = frame < 3 ? 3.0F : static_cast<float>(frame) / 200.0F - 0.5F;
        }
        write_npy(mel_, mel_values_, std::vector<int64_t>{80, 200});
    }

    std::string tap(const std::string& options) const {
        return "debug tap --model " + q(model_) + " " + options;
    }

    TempDir temp_{"earshot-debug-tap"};
    fs::path model_ = temp_.path() / "model";
    fs::path half_ = temp_.path() / "half";
    fs::path mel_ = temp_.path() / "mel.npy";
    std::vector<float> mel_values_;
};

TEST_F(DebugTap, ListNamesEveryValueWithItsTypeAndShape) {
    const auto r = run_earshot(tap("--entry encode --list"));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("\nencoder_layers[1].forward  T[B, 1 + (-1 + Frames) / 2, D]  "
                         "f32[1, 100, 64]\n"),
              std::string::npos)
        << r.out;
    const auto edges = earshot::backend::list_tappable_edges(
        earshot::model::load_whisper_checkpoint(model_).binding, "encode");
    EXPECT_EQ(lines(r.out), edges.size() + 1);  // one per value and a count
    const auto step = run_earshot(tap("--entry step --list"));
    ASSERT_EQ(step.exit_code, 0) << step.err;
    EXPECT_NE(step.out.find("\ndecoder_layers[1].encoder_attn.attend  T[Batch, 1, D]  "
                            "f32[1, 1, 64]\n"),
              std::string::npos)
        << step.out.substr(0, 2000);
}

TEST_F(DebugTap, TheWrittenValueIsTheBackendsTap) {
    const fs::path out = temp_.path() / "layer.npy";
    const auto r = run_earshot(tap(
        "--mel " + q(mel_) + " --entry encode --edge 'encoder_layers[0].forward' --out " + q(out)));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(
        r.out.find("encoder_layers[0].forward T[B, 1 + (-1 + Frames) / 2, D] f32[1, 100, 64]"),
        std::string::npos)
        << r.out;
    EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(min -?[0-9.e+-]+, max [0-9.e+-]+, mean )"
                                                    R"(-?[0-9.e+-]+, std [0-9.e+-]+, rms )"
                                                    R"([0-9.e+-]+; NaN 0, Inf 0, outside f16 0)")))
        << r.out;
    const auto written = read_npy(out);
    ASSERT_EQ(written.shape, (std::vector<int64_t>{1, 100, 64}));
    earshot::backend::CpuWhisper whisper(earshot::model::load_whisper_checkpoint(model_));
    earshot::backend::TapSet taps({"encoder_layers[0].forward"});
    whisper.set_taps(&taps);
    whisper.encode(HostTensor::f32({1, 80, 200}, mel_values_));
    const auto want = taps.values().front().tensor.f32_values();
    ASSERT_EQ(written.f32.size(), want.size());
    for (size_t i = 0; i < want.size(); ++i) ASSERT_FLOAT_EQ(written.f32[i], want[i]) << i;
}

TEST_F(DebugTap, AStepTapSaysItsPosition) {
    const fs::path out = temp_.path() / "cross.npy";
    const auto r = run_earshot(tap("--mel " + q(mel_) +
                                   " --entry step --edge 'decoder_layers[1].encoder_attn.attend' " +
                                   "--tokens 50258,50259,50359,50363 --out " + q(out)));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("f32[1, 1, 64] at position 3"), std::string::npos) << r.out;
    EXPECT_EQ(read_npy(out).shape, (std::vector<int64_t>{1, 1, 64}));
}

TEST_F(DebugTap, BadInputIsOneLineAndExitTwo) {
    const fs::path out = temp_.path() / "x.npy";
    const auto unknown = run_earshot(tap(
        "--mel " + q(mel_) + " --entry encode --edge 'encoder_layers[0].forwad' --out " + q(out)));
    EXPECT_EQ(unknown.exit_code, 2);
    EXPECT_EQ(lines(unknown.err), 1U) << unknown.err;
    EXPECT_NE(unknown.err.find("earshot debug tap: no edge 'encoder_layers[0].forwad' in encode; "
                               "closest: 'encoder_layers[0].forward'"),
              std::string::npos)
        << unknown.err;

    const fs::path short_mel = temp_.path() / "short.npy";
    write_npy(short_mel, std::vector<float>(80 * 100, 0.0F), std::vector<int64_t>{80, 100});
    const auto shape =
        run_earshot(tap("--mel " + q(short_mel) +
                        " --entry encode --edge 'encoder_layers[0].forward' --out " + q(out)));
    EXPECT_EQ(shape.exit_code, 2);
    EXPECT_EQ(lines(shape.err), 1U) << shape.err;
    EXPECT_NE(shape.err.find("the mel is [80, 100], the model takes [80, 200]"), std::string::npos)
        << shape.err;

    const auto backend = run_earshot(tap("--entry encode --list --backend tpu"));
    EXPECT_EQ(backend.exit_code, 2);
    EXPECT_NE(backend.err.find("unknown backend 'tpu' (cpu or cuda)"), std::string::npos)
        << backend.err;

    const auto missing =
        run_earshot("debug tap --model " + q(temp_.path() / "nowhere") + " --entry encode --list");
    EXPECT_EQ(missing.exit_code, 2);
    EXPECT_EQ(lines(missing.err), 1U) << missing.err;
    EXPECT_NE(missing.err.find("nowhere"), std::string::npos) << missing.err;

    const auto entry = run_earshot(tap("--entry decode --list"));
    EXPECT_EQ(entry.exit_code, 2);
    EXPECT_NE(entry.err.find("unknown entry 'decode' (encode, listen, prefill or step)"),
              std::string::npos)
        << entry.err;
}

TEST_F(DebugTap, CompareWithItselfIsZeroAndWithItsHalfCopyWorstFirst) {
    const auto same = run_earshot("debug compare --model " + q(model_) + " --mel " + q(mel_));
    ASSERT_EQ(same.exit_code, 0) << same.err;
    EXPECT_NE(same.out.find("block outputs, largest relative error first"), std::string::npos)
        << same.out;
    // Every row: relative L2 and max-abs both zero.
    EXPECT_TRUE(std::regex_search(same.out, std::regex(R"(\n  0\.000e\+00   0\.000e\+00   )")))
        << same.out;
    EXPECT_FALSE(std::regex_search(same.out, std::regex(R"(\n  [1-9]\.[0-9]{3}e)"))) << same.out;

    const auto half = run_earshot("debug compare --model " + q(model_) + " --model " + q(half_) +
                                  " --mel " + q(mel_) + " --json");
    ASSERT_EQ(half.exit_code, 0) << half.err;
    const std::regex error(R"("relative_l2": ([0-9.e+-]+))");
    std::vector<double> errors;
    for (auto it = std::sregex_iterator(half.out.begin(), half.out.end(), error);
         it != std::sregex_iterator(); ++it) {
        errors.push_back(std::stod((*it)[1].str()));
    }
    // Every block of the encoder: the stem's convolutions, each layer and its parts, the norm.
    ASSERT_GE(errors.size(), 10U) << half.out;
    EXPECT_TRUE(std::is_sorted(errors.rbegin(), errors.rend())) << half.out;
    EXPECT_GT(errors.front(), 1e-5) << half.out;  // f16 rounding shows
    EXPECT_LT(errors.front(), 5e-2) << half.out;
    EXPECT_NE(half.out.find("\"name\": \"encoder_layers[1].forward\""), std::string::npos);

    const fs::path short_mel = temp_.path() / "short.npy";
    write_npy(short_mel, std::vector<float>(80 * 100, 0.0F), std::vector<int64_t>{80, 100});
    const auto shape = run_earshot("debug compare --model " + q(model_) + " --mel " + q(short_mel));
    EXPECT_EQ(shape.exit_code, 2);
    EXPECT_NE(shape.err.find("the mel is [80, 100], the model takes [80, 200]"), std::string::npos)
        << shape.err;
}

TEST_F(DebugTap, CompareThreadsAndBudgetKeepTheJson) {
    const std::string base =
        "debug compare --model " + q(model_) + " --model " + q(half_) + " --mel " + q(mel_);
    const auto wide = run_earshot(base + " --json");
    ASSERT_EQ(wide.exit_code, 0) << wide.err;
    EXPECT_NE(wide.err.find("(1 of 2)"), std::string::npos) << wide.err;
    // A budget of 1 MiB: several passes (stderr counts the runs), the same JSON byte for byte.
    const auto bounded = run_earshot(base + " --json --budget-mib 1");
    ASSERT_EQ(bounded.exit_code, 0) << bounded.err;
    EXPECT_EQ(bounded.out, wide.out);
    EXPECT_EQ(bounded.err.find("(1 of 2)"), std::string::npos) << bounded.err;
    EXPECT_TRUE(std::regex_search(bounded.err, std::regex(R"(\(1 of ([4-9]|[1-9][0-9]+)\))")))
        << bounded.err;

    // One thread against this machine's count (at least 1): every block the same, labelled.
    const unsigned cores = std::max(1U, std::thread::hardware_concurrency());
    const auto threads = run_earshot("debug compare --model " + q(model_) + " --mel " + q(mel_) +
                                     " --threads 1 --threads " + std::to_string(cores));
    ASSERT_EQ(threads.exit_code, 0) << threads.err;
    EXPECT_NE(threads.out.find("# cpu x" + std::to_string(cores)), std::string::npos)
        << threads.out;
    EXPECT_FALSE(std::regex_search(threads.out, std::regex(R"(\n  [1-9]\.[0-9]{3}e)")))
        << threads.out;

    // Bad values: one line each, exit 2.
    for (const auto& [options, message] : std::vector<std::pair<std::string, std::string>>{
             {"--threads 0", "--threads 0: give 1 to " + std::to_string(cores)},
             {"--threads " + std::to_string(cores + 1),
              "--threads " + std::to_string(cores + 1) + ": give 1 to"},
             {"--threads 1 --threads 1 --threads 1", "give at most two --threads"},
             {"--budget-mib 0", "--budget-mib 0: give at least 1"}}) {
        const auto bad = run_earshot(base + " " + options);
        EXPECT_EQ(bad.exit_code, 2) << options;
        EXPECT_NE(bad.err.find(message), std::string::npos) << options << ": " << bad.err;
        EXPECT_EQ(std::count(bad.err.begin(), bad.err.end(), '\n'), 1) << bad.err;
    }
}

}  // namespace
