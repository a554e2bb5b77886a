// `earshot debug plan` through the real executable: large-v3's plan from a folder holding only
// its config.json, ending in the TOTAL line; the default model said on stderr; one-line errors
// with exit code 2 for a bad entry, backend or row count.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>

#include "large_v3_config.h"
#include "run_process.h"
#include "temp_dir.h"

namespace earshot::app {
namespace {

using test::run_earshot;
using test::run_shell;
using test::shell_quote;

class DebugPlan : public ::testing::Test {
protected:
    void SetUp() override {
        std::ofstream(dir_.path() / "config.json") << earshot::test::kLargeV3ConfigJson;
    }
    std::string plan(const std::string& options) const {
        return "debug plan --model " + shell_quote(dir_.path().string()) + " " + options;
    }
    static std::string last_line(const std::string& text) {
        const size_t end = text.size() - (text.ends_with('\n') ? 1 : 0);
        const size_t start = text.rfind('\n', end - 1);
        return text.substr(start == std::string::npos ? 0 : start + 1, end - (start + 1));
    }
    test::TempDir dir_{"earshot-debug-plan"};
};

// Which kernels a backend launches (and so their count) is the engine tests' business
// (PlanListing.*); here: the table, the scopes, and a TOTAL line that counts the table's rows.
TEST_F(DebugPlan, LargeV3FromItsConfigAloneEndsWithTheTotal) {
    for (const char* backend : {"cpu", "cuda"}) {
        for (const char* entry : {"step", "prefill", "listen", "encode"}) {
            const test::ProcessResult r =
                run_earshot(plan(std::string("--entry ") + entry + " --backend " + backend));
            ASSERT_EQ(r.exit_code, 0) << entry << " on " << backend << ": " << r.err;
            EXPECT_TRUE(r.err.empty()) << r.err;
            const std::regex total(
                R"(TOTAL: (\d+) kernels, \d+\.\d\d MiB read, \d+\.\d\d MiB written, )"
                R"(\d+\.\d\d\d GFLOP)");
            std::smatch match;
            const std::string last = last_line(r.out);
            ASSERT_TRUE(std::regex_match(last, match, total)) << last;
            // A header line, the column names, one line per kernel, the total.
            const auto lines = std::count(r.out.begin(), r.out.end(), '\n');
            EXPECT_EQ(std::stol(match[1].str()), lines - 3) << r.out.substr(0, 400);
            EXPECT_EQ(r.out.rfind(std::string("# ") + entry + " on " + backend + ", rows 1", 0), 0u)
                << r.out.substr(0, 200);
        }
    }
    const test::ProcessResult step = run_earshot(plan("--entry step --backend cuda"));
    EXPECT_NE(step.out.find("  decoder_layers[3].encoder_attn.attend  "), std::string::npos);
    EXPECT_NE(step.out.find("f16[5120, 1280]"), std::string::npos);  // fc1's f16 weight
}

TEST_F(DebugPlan, WithoutModelTheDefaultIsSaidOnStderr) {
    test::TempDir config("earshot-debug-plan-config");
    const test::ProcessResult r =
        run_shell("env XDG_CONFIG_HOME=" + shell_quote(config.path().string()) + " " +
                  shell_quote(EARSHOT_EXE) + " debug plan");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.err.find("earshot debug plan: no --model given; using the embedded micro model"),
              std::string::npos)
        << r.err;
    EXPECT_EQ(last_line(r.out).rfind("TOTAL: ", 0), 0u) << last_line(r.out);
}

// The man page is written from the CLI11 definitions (man_page.cpp): the command and its options.
TEST_F(DebugPlan, TheManPageDocumentsItsOptions) {
    const test::ProcessResult r = run_earshot("man-page");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find(".SS \"earshot debug plan\"\n"), std::string::npos);
    for (const char* option : {"model", "entry", "backend", "rows", "tokens"}) {
        EXPECT_NE(r.out.find(std::string("\\fB\\-\\-") + option + "\\fR"), std::string::npos)
            << option;
    }
}

TEST_F(DebugPlan, BadEntryBackendOrRowsAreOneLineWithExitCode2) {
    const auto expect_error = [&](const std::string& options, const std::string& part) {
        const test::ProcessResult r = run_earshot(plan(options));
        EXPECT_EQ(r.exit_code, 2) << options << ": " << r.out;
        EXPECT_TRUE(r.out.empty()) << r.out;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
        EXPECT_NE(r.err.find(part), std::string::npos) << r.err;
    };
    expect_error("--entry decode", "earshot debug plan: no entry \"decode\" to list");
    expect_error("--backend gpu", "earshot debug plan: --backend must be cpu or cuda");
    expect_error("--rows 0", "earshot debug plan: rows must be 1 or more");
    expect_error("--entry prefill --tokens 449", "prefill tokens must be 1 .. 448");
}

TEST_F(DebugPlan, AnOldKernelsNameTheBackendDoesNotKnowIsOneLineWithExitCode2) {
    const test::ProcessResult r =
        run_shell("EARSHOT_CUDA_OLD_KERNELS=gemv,gemm " + shell_quote(EARSHOT_EXE) + " " +
                  plan("--entry step --backend cuda"));
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_NE(r.err.find("earshot debug plan: EARSHOT_CUDA_OLD_KERNELS=gemv,gemm names `gemm`"),
              std::string::npos)
        << r.err;
}

}  // namespace
}  // namespace earshot::app
