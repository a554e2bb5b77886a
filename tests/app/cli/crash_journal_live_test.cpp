// `earshot live --journal` survives SIGKILL: the real executable dictates a spoken file at real
// time, is killed mid-dictation, and its journal holds every word stdout showed committed (all
// of it, so certainly what came a second before the kill); the next run reopens the journal and
// appends a session after it.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include "core/files/live_journal.h"
#include "crash_journal_process.h"
#include "micro_model.h"
#include "micro_speech_file.h"
#include "run_process.h"
#include "temp_dir.h"

namespace earshot::test {
namespace {

namespace fs = std::filesystem;

// stdout shows the transcript without the space the first committed piece starts with; the
// journal keeps the pieces as committed.
std::string as_shown(const std::string& journal_text) {
    return !journal_text.empty() && journal_text.front() == ' ' ? journal_text.substr(1)
                                                                : journal_text;
}

TEST(CrashJournalLive, SigkillMidDictationKeepsEveryCommittedWordAndTheNextRunReopens) {
    const TempDir dir("earshot-crash-journal-live");
    std::string why;
    const fs::path wav = write_three_sentences(dir, why);
    if (wav.empty()) GTEST_SKIP() << "no spoken test file: " << why;
    const fs::path journal = dir.path() / "journal.txt";
    const fs::path err_path = dir.path() / "live.err";
    // A short pause commits each sentence soon after it ends, well before the file does.
    const std::vector<std::string> args = {"live",          "--model", micro_model_dir().string(),
                                           "--language",    "en",      "--input",
                                           wav.string(),    "--speed", "1",
                                           "--pause-ms",    "300",     "--journal",
                                           journal.string()};
    RunningEarshot live(args, err_path);
    ASSERT_TRUE(live.started());

    // Wait for the first committed text, then let dictation go on for 2 s more and kill it.
    const Clock::time_point deadline = Clock::now() + std::chrono::seconds(60);
    while (live.arrivals().empty() && Clock::now() < deadline) {
        ASSERT_TRUE(live.read_for(50)) << "stdout ended before any text was committed:\n"
                                       << read_text(err_path);
    }
    ASSERT_FALSE(live.arrivals().empty()) << read_text(err_path);
    const Clock::time_point kill_at = live.arrivals().front().at + std::chrono::seconds(2);
    while (Clock::now() < kill_at) {
        ASSERT_TRUE(live.read_for(20)) << "dictation ended before the kill:\n"
                                       << read_text(err_path);
    }
    ASSERT_TRUE(live.running()) << "dictation ended before the kill";
    const Clock::time_point killed = Clock::now();
    live.kill();
    while (live.read_for(100)) {
    }  // to the end of what it wrote: the pipe closes with the process

    const std::string shown_a_second_before = live.text_until(killed - std::chrono::seconds(1));
    const std::string shown = live.text_until(killed);
    ASSERT_FALSE(shown_a_second_before.empty());
    const auto sessions = app::parse_live_journal(read_text(journal));
    ASSERT_EQ(sessions.size(), 1u) << read_text(journal);
    EXPECT_FALSE(sessions[0].started_utc.empty());
    // Journal first, then stdout: every word shown is in the journal, in order.
    const std::string journaled = as_shown(sessions[0].text);
    EXPECT_EQ(journaled.substr(0, shown_a_second_before.size()), shown_a_second_before);
    EXPECT_EQ(journaled.substr(0, shown.size()), shown);

    // The next run (the whole file, fast) keeps the killed session and appends its own.
    const ProcessResult next = run_earshot(
        "live --model " + shell_quote(micro_model_dir().string()) + " --language en --input " +
        shell_quote(wav.string()) + " --speed 40 --journal " + shell_quote(journal.string()));
    ASSERT_EQ(next.exit_code, 0) << next.err;
    EXPECT_NE(next.err.find("(1 earlier session kept)"), std::string::npos) << next.err;
    const auto reopened = app::parse_live_journal(read_text(journal));
    ASSERT_EQ(reopened.size(), 2u) << read_text(journal);
    EXPECT_EQ(reopened[0].text, sessions[0].text);
    std::string committed = next.out;
    while (!committed.empty() && committed.back() == '\n') committed.pop_back();
    EXPECT_FALSE(committed.empty());
    EXPECT_EQ(as_shown(reopened[1].text), committed);
}

}  // namespace
}  // namespace earshot::test
