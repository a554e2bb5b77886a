// `earshot live` through the real executable on a file paced like a microphone: JSON Lines of
// every update ending with the final one, stdout holding exactly the committed text, a summary
// on stderr, Ctrl-C flushing with exit 0, and one-line errors with exit 2 for bad arguments.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "earshot/engine/model/random_checkpoint.h"
#include "run_process.h"
#include "small_checkpoint.h"
#include "temp_dir.h"

namespace earshot::test {
namespace {

namespace fs = std::filesystem;

const fs::path kShared(EARSHOT_SHARED_DIR);
const fs::path kJfk = kShared / "whisper-assets" / "jfk.wav";
const fs::path kVocab = kShared / "whisper-assets" / "multilingual.tiktoken";

std::vector<nlohmann::json> read_json_lines(const fs::path& path) {
    std::ifstream in(path);
    std::vector<nlohmann::json> lines;
    std::string line;
    while (std::getline(in, line)) lines.push_back(nlohmann::json::parse(line));
    return lines;
}

class LiveCommand : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        if (!fs::exists(kJfk) || !fs::exists(kVocab)) return;
        dir_ = std::make_unique<TempDir>("earshot-live-cli");
        model::write_random_checkpoint(dir_->path() / "ck", small_checkpoint_options());
    }
    static void TearDownTestSuite() { dir_.reset(); }
    void SetUp() override {
        if (!dir_) GTEST_SKIP() << "shared whisper assets are absent (" << kJfk << ")";
    }
    static std::string model_args(const std::string& language = "en") {
        return "--model " + shell_quote((dir_->path() / "ck").string()) + " --vocab " +
               shell_quote(kVocab.string()) + " --language " + language;
    }
    static inline std::unique_ptr<TempDir> dir_;
};

TEST_F(LiveCommand, AFileAtSpeedWritesEveryUpdateAndTheCommittedText) {
    const fs::path json = dir_->path() / "updates.jsonl";
    const ProcessResult r =
        run_earshot("live " + model_args() + " --input " + shell_quote(kJfk.string()) +
                    " --speed 40 --updates-json " + shell_quote(json.string()));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto lines = read_json_lines(json);
    ASSERT_GE(lines.size(), 2u);
    std::string committed;
    double last_end = 0.0;
    for (size_t i = 0; i < lines.size(); ++i) {
        const auto& u = lines[i];
        EXPECT_EQ(u["index"].get<int64_t>(), static_cast<int64_t>(i));
        EXPECT_GE(u["audio_end_s"].get<double>(), last_end);
        last_end = u["audio_end_s"].get<double>();
        EXPECT_EQ(u["final"].get<bool>(), i + 1 == lines.size());
        EXPECT_EQ(u["dropped_frames"].get<uint64_t>(), 0u);
        committed += u["committed_text"].get<std::string>();
        for (const auto& w : u["committed_words"]) {
            EXPECT_LE(w["start_s"].get<double>(), w["end_s"].get<double>());
            EXPECT_LE(w["end_s"].get<double>(), 11.0 + 1e-9);
        }
    }
    EXPECT_NEAR(last_end, 11.0, 1e-9);
    EXPECT_TRUE(lines.back()["tentative_text"].get<std::string>().empty());
    // stdout: the committed text, its very first space dropped, and a newline when any.
    if (!committed.empty() && committed.front() == ' ') committed.erase(0, 1);
    EXPECT_EQ(r.out, committed.empty() ? "" : committed + "\n");
    EXPECT_NE(r.err.find("earshot live: 11.0 s of audio"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("0 dropped frames"), std::string::npos) << r.err;
}

TEST_F(LiveCommand, CtrlCHearsWhatIsQueuedCommitsItAndExitsZero) {
    const fs::path json = dir_->path() / "interrupted.jsonl";
    const std::string args = "live " + model_args() + " --input " + shell_quote(kJfk.string()) +
                             " --updates-json " + shell_quote(json.string());
    // Interrupt once three updates (1.5 s of jfk.wav, paced in real time) are written; the wait
    // is bounded (2 minutes) and ends early if the command exits on its own.
    const std::string lines_file = shell_quote(json.string());
    const ProcessResult r = run_shell(
        "( " + shell_quote(EARSHOT_EXE) + " " + args +
        " & pid=$!; i=0; while kill -0 $pid 2>/dev/null && [ $i -lt 2400 ] && "
        "[ \"$(cat " +
        lines_file +
        " 2>/dev/null | wc -l)\" -lt 3 ]; "
        "do sleep 0.05; i=$((i + 1)); done; kill -INT $pid; wait $pid; echo \"status=$?\" )");
    EXPECT_NE(r.out.find("status=0"), std::string::npos) << r.out << r.err;
    const auto lines = read_json_lines(json);
    ASSERT_GE(lines.size(), 4u);  // the three waited for, then the final one
    EXPECT_TRUE(lines.back()["final"].get<bool>());
    const double end = lines.back()["audio_end_s"].get<double>();
    EXPECT_GE(end, lines[2]["audio_end_s"].get<double>());
    EXPECT_LT(end, 11.0);  // interrupted before the end of jfk.wav
}

TEST_F(LiveCommand, BadArgumentsAreOneLineErrorsWithExit2) {
    struct Case {
        std::string args;
        std::string message;
    };
    const std::vector<Case> cases = {
        {"live " + model_args() + " --speed 3", "--speed needs --input"},
        {"live " + model_args() + " --input /nonexistent/talk.flac", "/nonexistent/talk.flac"},
        {"live --model /nonexistent/model --input " + shell_quote(kJfk.string()),
         "/nonexistent/model"},
        {"live " + model_args("xx") + " --input " + shell_quote(kJfk.string()),
         "unknown language \"xx\""},
        {"live " + model_args() + " --device nomic --input " + shell_quote(kJfk.string()),
         "--device and --input exclude each other"},
    };
    for (const Case& c : cases) {
        const ProcessResult r = run_earshot(c.args);
        EXPECT_EQ(r.exit_code, 2) << c.args << "\n" << r.err;
        EXPECT_NE(r.err.find(c.message), std::string::npos) << c.args << "\n" << r.err;
        EXPECT_EQ(r.err.rfind("earshot live: ", 0), 0u) << r.err;
        EXPECT_EQ(r.out, "");
    }
}

}  // namespace
}  // namespace earshot::test
