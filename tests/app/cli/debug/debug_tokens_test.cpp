// `earshot debug tokens` through the real executable: ids out for --encode, text with special
// names for --decode, the size option, and one-line errors with exit code 2.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>

#include "run_process.h"
#include "tokenizer_assets.h"

namespace earshot::app {
namespace {

using test::run_earshot;
using test::shell_quote;

class DebugTokens : public ::testing::Test {
protected:
    void SetUp() override {
        if (!std::filesystem::exists(test::multilingual_tiktoken()) ||
            !std::filesystem::exists(test::gpt2_tiktoken())) {
            GTEST_SKIP() << "the openai .tiktoken vocabularies are not available at "
                         << test::multilingual_tiktoken().parent_path();
        }
    }
    static std::string vocab(const std::filesystem::path& path) {
        return "debug tokens --vocab " + shell_quote(path.string());
    }
};

TEST_F(DebugTokens, EncodePrintsCommaSeparatedIds) {
    auto r = run_earshot(vocab(test::multilingual_tiktoken()) + " --encode 'Hello world'");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, "15947,1002\n");
    r = run_earshot(vocab(test::gpt2_tiktoken()) + " --encode ' Hello world'");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, "18435,995\n");
}

TEST_F(DebugTokens, DecodeShowsSpecialNamesAndDropsTimestamps) {
    auto r = run_earshot(vocab(test::multilingual_tiktoken()) +
                         " --decode 50258,50259,50359,50364,15947,1002,50464,50257");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, "<|startoftranscript|><|en|><|transcribe|>Hello world<|endoftext|>\n");
    // Under large-v3's size the same ids mean other specials: 50359 translate, 50364 notimestamps.
    r = run_earshot(vocab(test::multilingual_tiktoken()) +
                    " --n-vocab 51866 --decode '50258, 50358, 50359, 50364, 15947'");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, "<|startoftranscript|><|yue|><|translate|><|notimestamps|>Hello\n");
}

TEST_F(DebugTokens, ErrorsAreOneLineWithExitCode2) {
    const auto expect_one_line_error = [](const test::ProcessResult& r, const std::string& part) {
        EXPECT_EQ(r.exit_code, 2) << r.out;
        EXPECT_TRUE(r.out.empty()) << r.out;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
        EXPECT_NE(r.err.find(part), std::string::npos) << r.err;
    };
    const std::string multi = vocab(test::multilingual_tiktoken());
    expect_one_line_error(run_earshot(multi + " --decode 1,x,3"), "1,x,3");
    expect_one_line_error(run_earshot(multi + " --decode 1,-5"), "-5");
    expect_one_line_error(run_earshot(multi), "--encode");
    expect_one_line_error(run_earshot(multi + " --encode a --decode 1"), "--decode");
    expect_one_line_error(run_earshot(vocab(test::gpt2_tiktoken()) + " --n-vocab 51865 --encode a"),
                          "51865");
    expect_one_line_error(run_earshot("debug tokens --vocab /nonexistent/v.tiktoken --encode a"),
                          "v.tiktoken");
}

}  // namespace
}  // namespace earshot::app
