// `--backend auto|cpu|cuda` and `earshot gpus` through the real executable, on the embedded micro
// model and espeak-ng speech. Without a usable GPU: auto runs on the CPU with the CPU's text and
// one stderr line giving the reason `earshot gpus` gives; cuda exits 2 with one line naming it; an
// executable copied away from its CUDA module (empty LD_LIBRARY_PATH) still transcribes and says
// the module was not found. Suites named *OnCudaDevice need a GPU (label cuda); they skip only
// without a driver or device.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "cuda_test_device.h"
#include "earshot/engine/backend/cuda_devices.h"
#include "micro_model.h"
#include "run_process.h"
#include "spoken_words.h"
#include "temp_dir.h"
#include "value_difference.h"

namespace earshot::test {
namespace {

namespace fs = std::filesystem;

constexpr int kExitBadInput = 2;
constexpr const char* kModuleName = "libearshot_cuda.so";

std::string read_text(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

// The lines of `text` that mention CUDA.
std::vector<std::string> cuda_lines(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream stream(text);
    for (std::string line; std::getline(stream, line);) {
        if (line.find("CUDA") != std::string::npos) lines.push_back(line);
    }
    return lines;
}

// What `earshot gpus` answers with `environment` before the executable (e.g. "VAR=value ").
struct GpusAnswer {
    bool devices = false;  // it listed devices
    std::string kind;      // otherwise the CudaError's kind ("no driver") ...
    std::string message;   // ... and its message
    std::string out;
};

GpusAnswer ask_gpus(const std::string& environment = "",
                    const std::string& executable = EARSHOT_EXE) {
    const ProcessResult result = run_shell(environment + shell_quote(executable) + " gpus");
    EXPECT_EQ(result.exit_code, 0) << result.err;  // "no GPU" is an answer
    GpusAnswer answer;
    answer.out = result.out;
    std::istringstream lines(result.out);
    std::string first;
    std::getline(lines, first);
    static const std::regex none(R"(No CUDA device \(([a-z ]+)\): (.+))");
    std::smatch match;
    if (std::regex_match(first, match, none)) {
        answer.kind = match[1];
        answer.message = match[2];
    } else {
        answer.devices = first == "  index  total_gib  free_gib  compute  name";
        EXPECT_TRUE(answer.devices) << result.out;
    }
    return answer;
}

// Why CUDA cannot run, as the commands say it.
std::string unavailable(const GpusAnswer& gpus) {
    return "CUDA is not available (" + gpus.kind + ": " + gpus.message + ")";
}

// The line `auto` prints when it runs on the CPU instead of CUDA.
std::string fallback_line(const GpusAnswer& gpus) {
    return "earshot: " + unavailable(gpus) + "; running on the CPU";
}

// One espeak-ng sentence the micro model knows, and its CPU transcript, made once for the suite.
class BackendChoiceCommand : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        dir_ = std::make_unique<TempDir>("earshot-backend-choice");
        const auto audio =
            speak_sentences({{"you", "today", "a", "stay", "book", "garden"}}, {}, &skip_);
        if (!audio) return;
        speech_ = dir_->path() / "speech.wav";
        write_wav_pcm16(speech_, audio->samples);
        const ProcessResult cpu = transcribe("--backend cpu", dir_->path() / "cpu");
        cpu_err_ = cpu.err;
        if (cpu.exit_code == 0) cpu_text_ = read_text(dir_->path() / "cpu" / "speech.txt");
    }
    static void TearDownTestSuite() { dir_.reset(); }

    void SetUp() override {
        if (!skip_.empty()) GTEST_SKIP() << skip_;
        ASSERT_FALSE(cpu_text_.empty()) << cpu_err_;
    }

    // `earshot transcribe` of the speech with `options`, TXT into `out`; `prefix` goes before
    // the command (environment variables, another executable).
    static ProcessResult transcribe(const std::string& options, const fs::path& out,
                                    const std::string& environment = "",
                                    const std::string& executable = EARSHOT_EXE) {
        fs::create_directories(out);
        return run_shell(environment + shell_quote(executable) + " transcribe " +
                         shell_quote(speech_.string()) + " --model " +
                         shell_quote(micro_model_dir().string()) + " --format txt --output-dir " +
                         shell_quote(out.string()) + " " + options);
    }

    static std::unique_ptr<TempDir> dir_;
    static fs::path speech_;
    static std::string skip_;
    static std::string cpu_text_;
    static std::string cpu_err_;
};

std::unique_ptr<TempDir> BackendChoiceCommand::dir_;
fs::path BackendChoiceCommand::speech_;
std::string BackendChoiceCommand::skip_;
std::string BackendChoiceCommand::cpu_text_;
std::string BackendChoiceCommand::cpu_err_;

TEST_F(BackendChoiceCommand, TheCpuRunSaysNothingAboutCuda) {
    EXPECT_TRUE(cuda_lines(cpu_err_).empty()) << cpu_err_;
    // The micro model hears its own words.
    EXPECT_NE(cpu_text_.find("garden"), std::string::npos) << cpu_text_;
}

TEST_F(BackendChoiceCommand, AutoWithoutAGpuRunsOnTheCpuAndSaysWhyOnce) {
    const GpusAnswer gpus = ask_gpus();
    if (gpus.devices) GTEST_SKIP() << "a CUDA device is usable here: auto runs on it";
    const fs::path out = dir_->path() / "auto";
    const ProcessResult result = transcribe("--backend auto", out);
    ASSERT_EQ(result.exit_code, 0) << result.err;
    EXPECT_EQ(read_text(out / "speech.txt"), cpu_text_);
    EXPECT_EQ(cuda_lines(result.err), std::vector<std::string>{fallback_line(gpus)}) << result.err;
    // auto is the default.
    const ProcessResult plain = transcribe("", dir_->path() / "default");
    ASSERT_EQ(plain.exit_code, 0) << plain.err;
    EXPECT_EQ(cuda_lines(plain.err), cuda_lines(result.err));
}

TEST_F(BackendChoiceCommand, CudaWithoutAGpuExitsTwoWithOneLineNamingWhy) {
    const GpusAnswer gpus = ask_gpus();
    if (gpus.devices) GTEST_SKIP() << "a CUDA device is usable here";
    const fs::path out = dir_->path() / "cuda";
    const ProcessResult result = transcribe("--backend cuda", out);
    EXPECT_EQ(result.exit_code, kExitBadInput);
    EXPECT_EQ(result.err, "earshot transcribe: --backend cuda: " + unavailable(gpus) + "\n");
    EXPECT_TRUE(result.out.empty()) << result.out;
    EXPECT_FALSE(fs::exists(out / "speech.txt"));
}

// The issue's hidden-libraries check: the executable alone in a folder (no CUDA module beside it
// or in ../lib/earshot or ../lib), EARSHOT_CUDA_MODULE unset and LD_LIBRARY_PATH empty.
TEST_F(BackendChoiceCommand, AnExecutableWithoutItsModuleTranscribesOnTheCpu) {
    const TempDir dir("earshot-hidden-cuda");
    const fs::path bin = dir.path() / "bin";
    fs::create_directories(bin);
    const fs::path exe = bin / "earshot";
    fs::copy_file(EARSHOT_EXE, exe);
    const std::string environment = "env -u EARSHOT_CUDA_MODULE LD_LIBRARY_PATH= ";

    std::string kind = "not built";
    std::string reason = "this build of Earshot has no CUDA backend";
    if (backend::cuda_backend_built()) {
        kind = "module missing";
        reason = std::string("the CUDA module ") + kModuleName + " was not found (looked for " +
                 (bin / kModuleName).string() + ", " +
                 (dir.path() / "lib" / "earshot" / kModuleName).string() + ", " +
                 (dir.path() / "lib" / kModuleName).string() + ")";
    }
    const GpusAnswer gpus = ask_gpus(environment, exe.string());
    EXPECT_EQ(gpus.kind, kind) << gpus.out;
    EXPECT_TRUE(gpus.message.starts_with(reason)) << gpus.out;
    if (backend::cuda_backend_built()) {
        EXPECT_NE(gpus.out.find("\n  " + (bin / kModuleName).string() + "\n"), std::string::npos)
            << gpus.out;
    }

    const ProcessResult automatic =
        transcribe("--backend auto", dir.path() / "auto", environment, exe.string());
    ASSERT_EQ(automatic.exit_code, 0) << automatic.err;
    EXPECT_EQ(read_text(dir.path() / "auto" / "speech.txt"), cpu_text_);
    EXPECT_EQ(cuda_lines(automatic.err), std::vector<std::string>{fallback_line(gpus)})
        << automatic.err;
    EXPECT_NE(automatic.err.find(reason), std::string::npos) << automatic.err;

    const ProcessResult cuda =
        transcribe("--backend cuda", dir.path() / "cuda", environment, exe.string());
    EXPECT_EQ(cuda.exit_code, kExitBadInput);
    EXPECT_EQ(cuda.err, "earshot transcribe: --backend cuda: " + unavailable(gpus) + "\n");
    EXPECT_NE(cuda.err.find(reason), std::string::npos) << cuda.err;
}

TEST_F(BackendChoiceCommand, LiveTakesTheBackendToo) {
    const GpusAnswer gpus = ask_gpus();
    if (gpus.devices) GTEST_SKIP() << "a CUDA device is usable here";
    const std::string live = shell_quote(EARSHOT_EXE) + " live --model " +
                             shell_quote(micro_model_dir().string()) + " --input " +
                             shell_quote(speech_.string()) + " --speed 20";
    const ProcessResult automatic = run_shell(live + " --backend auto");
    ASSERT_EQ(automatic.exit_code, 0) << automatic.err;
    EXPECT_EQ(cuda_lines(automatic.err), std::vector<std::string>{fallback_line(gpus)})
        << automatic.err;
    EXPECT_NE(automatic.out.find("garden"), std::string::npos) << automatic.out;

    const ProcessResult cuda = run_shell(live + " --backend cuda");
    EXPECT_EQ(cuda.exit_code, kExitBadInput);
    EXPECT_EQ(cuda.err, "earshot live: --backend cuda: " + unavailable(gpus) + "\n");
}

TEST_F(BackendChoiceCommand, DebugEncodeTakesTheBackendToo) {
    const GpusAnswer gpus = ask_gpus();
    if (gpus.devices) GTEST_SKIP() << "a CUDA device is usable here";
    const fs::path dir = dir_->path() / "debug";
    fs::create_directories(dir);
    const fs::path mel = dir / "mel.npy";
    const ProcessResult made =
        run_earshot("debug mel --in " + shell_quote(speech_.string()) +
                    " --mels 80 --frames 600 --out " + shell_quote(mel.string()));
    ASSERT_EQ(made.exit_code, 0) << made.err;
    auto encode = [&](const std::string& backend, const fs::path& out) {
        return run_earshot("debug encode --model " + shell_quote(micro_model_dir().string()) +
                           " --mel " + shell_quote(mel.string()) + " --out " +
                           shell_quote(out.string()) + " --backend " + backend);
    };
    const ProcessResult cpu = encode("cpu", dir / "cpu.npy");
    ASSERT_EQ(cpu.exit_code, 0) << cpu.err;
    EXPECT_TRUE(cuda_lines(cpu.err).empty()) << cpu.err;
    const ProcessResult automatic = encode("auto", dir / "auto.npy");
    ASSERT_EQ(automatic.exit_code, 0) << automatic.err;
    EXPECT_EQ(automatic.err, fallback_line(gpus) + "\n");
    EXPECT_EQ(read_text(dir / "auto.npy"), read_text(dir / "cpu.npy"));
    const ProcessResult cuda = encode("cuda", dir / "cuda.npy");
    EXPECT_EQ(cuda.exit_code, kExitBadInput);
    EXPECT_EQ(cuda.err, "earshot debug encode: --backend cuda: " + unavailable(gpus) + "\n");
    EXPECT_FALSE(fs::exists(dir / "cuda.npy"));
}

TEST(GpusCommand, ReportsAMissingModuleAndWhereItLooked) {
    const GpusAnswer gpus = ask_gpus("EARSHOT_CUDA_MODULE=/nonexistent/libearshot_cuda.so ");
    if (!backend::cuda_backend_built()) {
        EXPECT_EQ(gpus.kind, "not built") << gpus.out;
        return;
    }
    EXPECT_EQ(gpus.out,
              "No CUDA device (module missing): the CUDA module libearshot_cuda.so was not found "
              "(looked for /nonexistent/libearshot_cuda.so)\n"
              "The CUDA module was looked for at (EARSHOT_CUDA_MODULE overrides):\n"
              "  /nonexistent/libearshot_cuda.so\n"
              "--backend auto runs on the CPU; --backend cuda stops with this reason.\n");
}

TEST(GpusCommand, HelpAndDevicesPointToIt) {
    const ProcessResult help = run_earshot("--help");
    EXPECT_NE(help.out.find("\n  gpus "), std::string::npos) << help.out;
    const ProcessResult devices = run_earshot("devices");
    if (devices.exit_code != 0) GTEST_SKIP() << "no audio system here: " << devices.err;
    EXPECT_TRUE(devices.out.ends_with("CUDA devices (for --backend cuda): earshot gpus\n"))
        << devices.out;
}

// With a GPU: cuda and auto run on it, say nothing about falling back, and hear the same words
// as the CPU.
class TranscribeOnCudaDevice : public BackendChoiceCommand {
protected:
    void SetUp() override {
        BackendChoiceCommand::SetUp();
        if (IsSkipped() || HasFatalFailure()) return;
        EARSHOT_CUDA_TEST_GATE(cuda_test_gate_from_gpus_output(ask_gpus().out));
    }
};

TEST_F(TranscribeOnCudaDevice, CudaAndAutoRunOnTheGpuWithTheCpusText) {
    for (const char* backend : {"cuda", "auto"}) {
        const fs::path out = dir_->path() / (std::string("gpu-") + backend);
        const ProcessResult result = transcribe(std::string("--backend ") + backend, out);
        ASSERT_EQ(result.exit_code, 0) << result.err;
        EXPECT_TRUE(cuda_lines(result.err).empty()) << result.err;
        EXPECT_EQ(read_text(out / "speech.txt"), cpu_text_) << backend;
    }
}

// With a GPU: live dictation from a file and the debug encoder run on it too, and agree with the
// CPU (the committed words; the encoder states within the backend tests' f16 tolerance).
TEST_F(TranscribeOnCudaDevice, LiveAndDebugEncodeRunOnTheGpu) {
    const std::string live = shell_quote(EARSHOT_EXE) + " live --model " +
                             shell_quote(micro_model_dir().string()) + " --input " +
                             shell_quote(speech_.string()) + " --speed 20";
    // Updates as often as the GPU allows, the way people dictate.
    const ProcessResult paced = run_shell(live + " --backend cuda");
    ASSERT_EQ(paced.exit_code, 0) << paced.err;
    EXPECT_TRUE(cuda_lines(paced.err).empty()) << paced.err;
    EXPECT_NE(paced.out.find("garden"), std::string::npos) << paced.out;
    // Which windows an update decodes depends on how fast the engine is (a late engine's updates
    // are coalesced), so the CPU and the GPU are compared on one schedule that timing cannot
    // change: no update is due within the sentence (under 10 s), and the end of the input
    // decodes it all at once.
    const std::string once = live + " --fixed-step --step-ms 10000";
    const ProcessResult cpu = run_shell(once + " --backend cpu");
    ASSERT_EQ(cpu.exit_code, 0) << cpu.err;
    const ProcessResult gpu = run_shell(once + " --backend cuda");
    ASSERT_EQ(gpu.exit_code, 0) << gpu.err;
    EXPECT_TRUE(cuda_lines(gpu.err).empty()) << gpu.err;
    EXPECT_NE(gpu.err.find(" 1 update (1 decoded, 0 dropped"), std::string::npos) << gpu.err;
    EXPECT_NE(gpu.out.find("garden"), std::string::npos) << gpu.out;
    // The last line holds every committed word.
    auto last_line = [](const std::string& text) {
        const std::string trimmed = text.substr(0, text.find_last_not_of('\n') + 1);
        return trimmed.substr(trimmed.find_last_of('\n') + 1);
    };
    EXPECT_EQ(last_line(gpu.out), last_line(cpu.out));

    const fs::path dir = dir_->path() / "debug-gpu";
    fs::create_directories(dir);
    const fs::path mel = dir / "mel.npy";
    ASSERT_EQ(run_earshot("debug mel --in " + shell_quote(speech_.string()) +
                          " --mels 80 --frames 600 --out " + shell_quote(mel.string()))
                  .exit_code,
              0);
    for (const char* backend : {"cpu", "cuda"}) {
        const ProcessResult encoded =
            run_earshot("debug encode --model " + shell_quote(micro_model_dir().string()) +
                        " --mel " + shell_quote(mel.string()) + " --out " +
                        shell_quote((dir / backend).string() + ".npy") + " --backend " + backend);
        ASSERT_EQ(encoded.exit_code, 0) << encoded.err;
    }
    const std::string cpu_npy = read_text(dir / "cpu.npy");
    const std::string gpu_npy = read_text(dir / "cuda.npy");
    ASSERT_EQ(cpu_npy.size(), gpu_npy.size());
    // The header (dtype, shape) matches; the f32 values differ by f16 rounding only.
    const size_t header = cpu_npy.find('\n') + 1;  // .npy: the data follows the header's newline
    EXPECT_EQ(gpu_npy.substr(0, header), cpu_npy.substr(0, header));
    double worst = 0.0;
    double largest = 0.0;
    for (size_t at = header; at + 4 <= cpu_npy.size(); at += 4) {
        float want = 0.0F;
        float got = 0.0F;
        std::memcpy(&want, cpu_npy.data() + at, 4);
        std::memcpy(&got, gpu_npy.data() + at, 4);
        worst = std::max(worst, value_difference(got, want));
        largest = std::max(largest, static_cast<double>(std::fabs(want)));
    }
    EXPECT_GT(largest, 0.0);
    EXPECT_LE(worst / largest, 2e-3) << "encoder states, relative";
}

}  // namespace
}  // namespace earshot::test
