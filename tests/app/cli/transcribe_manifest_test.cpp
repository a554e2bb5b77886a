// `earshot transcribe --manifest LIST --shard K/N --skip-done` on the micro model: the shards
// together transcribe every listed file once, each under the name the whole list gives it, and a
// rerun with --skip-done transcribes nothing that is done.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "file_bytes.h"
#include "micro_command.h"

namespace earshot::test {
namespace {

namespace fs = std::filesystem;

class TranscribeManifest : public MicroModelCommand {
protected:
    // `sentence` said by espeak-ng into <audio>/<name>.wav.
    void say(const std::string& name, const std::string& sentence) {
        fs::create_directories(audio_);
        const ProcessResult spoken =
            run_shell("espeak-ng -v en-us -s 160 -w " + shell_quote((audio_ / name).string()) +
                      ".wav " + shell_quote(sentence));
        ASSERT_EQ(spoken.exit_code, 0) << spoken.err;
    }

    std::string text_of(const std::string& name) {
        std::string text = read_file_text(dir_.path() / (name + ".txt"));
        while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
        while (!text.empty() && text.front() == ' ') text.erase(0, 1);
        return text;
    }

    fs::path audio_ = dir_.path() / "audio";
};

TEST_F(TranscribeManifest, ShardsTakeEveryFileOnceAndSkipDoneSkipsThem) {
    say("one", "please call me tomorrow");
    say("two", "see you tomorrow");
    say("three", "please call me");
    const fs::path manifest = audio_ / "list.txt";
    std::ofstream(manifest) << "# three files, relative to the list\n\none.wav\n  two.wav  \n"
                            << (audio_ / "three.wav").string() << "\n";

    const std::string list = "--manifest " + shell_quote(manifest.string()) + " --format txt";
    const ProcessResult first = transcribe({}, list + " --shard 0/2");
    ASSERT_EQ(first.exit_code, 0) << first.err;
    EXPECT_TRUE(fs::exists(dir_.path() / "one.txt"));
    EXPECT_FALSE(fs::exists(dir_.path() / "two.txt"));
    EXPECT_TRUE(fs::exists(dir_.path() / "three.txt"));
    const ProcessResult second = transcribe({}, list + " --shard 1/2");
    ASSERT_EQ(second.exit_code, 0) << second.err;
    EXPECT_EQ(text_of("one"), "please call me tomorrow");
    EXPECT_EQ(text_of("two"), "see you tomorrow");
    EXPECT_EQ(text_of("three"), "please call me");

    const auto written = fs::last_write_time(dir_.path() / "two.txt");
    const ProcessResult again = transcribe({}, list + " --skip-done");
    ASSERT_EQ(again.exit_code, 0) << again.err;
    EXPECT_NE(again.out.find("Skipped " + (audio_ / "one.wav").string()), std::string::npos)
        << again.out;
    EXPECT_EQ(again.out.find("Wrote"), std::string::npos) << again.out;
    EXPECT_EQ(fs::last_write_time(dir_.path() / "two.txt"), written);

    // Outputs an interrupted run left (marked `<name>.incomplete`) are not done: the file is
    // transcribed again and the marker goes.
    std::ofstream(dir_.path() / "three.incomplete") << "interrupted\n";
    const ProcessResult redo = transcribe({}, list + " --skip-done");
    ASSERT_EQ(redo.exit_code, 0) << redo.err;
    EXPECT_NE(redo.out.find("Wrote " + (dir_.path() / "three.txt").string()), std::string::npos)
        << redo.out;
    EXPECT_EQ(redo.out.find("Wrote " + (dir_.path() / "one.txt").string()), std::string::npos)
        << redo.out;
    EXPECT_FALSE(fs::exists(dir_.path() / "three.incomplete"));
    EXPECT_EQ(text_of("three"), "please call me");

    // A format not written yet is not done.
    const ProcessResult json = transcribe({}, "--manifest " + shell_quote(manifest.string()) +
                                                  " --format txt,json --skip-done --shard 1/2");
    ASSERT_EQ(json.exit_code, 0) << json.err;
    EXPECT_TRUE(fs::exists(dir_.path() / "two.json"));
    EXPECT_FALSE(fs::exists(dir_.path() / "one.json"));
}

// --summary: every input of the run with its status, outputs and error, and the counts; a
// missing file fails alone (exit 1) while the others are written.
TEST_F(TranscribeManifest, TheSummaryNamesEachInputsOutcome) {
    say("one", "please call me tomorrow");
    const fs::path manifest = audio_ / "list.txt";
    std::ofstream(manifest) << "one.wav\nmissing.wav\n";
    const fs::path summary_path = dir_.path() / "summary.json";
    const std::string args = "--manifest " + shell_quote(manifest.string()) +
                             " --format txt --summary " + shell_quote(summary_path.string());
    const ProcessResult first = transcribe({}, args);
    EXPECT_EQ(first.exit_code, 1) << first.err;
    auto summary = nlohmann::json::parse(read_file_text(summary_path));
    EXPECT_TRUE(summary["shard"].is_null());
    EXPECT_EQ(summary["counts"]["done"], 1);
    EXPECT_EQ(summary["counts"]["failed"], 1);
    EXPECT_EQ(summary["counts"]["skipped"], 0);
    ASSERT_EQ(summary["files"].size(), 2U);
    EXPECT_EQ(summary["files"][0]["status"], "done");
    EXPECT_EQ(summary["files"][0]["outputs"][0], (dir_.path() / "one.txt").string());
    EXPECT_EQ(summary["files"][1]["status"], "failed");
    EXPECT_NE(summary["files"][1]["error"].get<std::string>().find("missing.wav"),
              std::string::npos);

    const ProcessResult again = transcribe({}, args + " --skip-done --shard 0/1");
    EXPECT_EQ(again.exit_code, 2) << again.err;  // the only file it tried failed
    summary = nlohmann::json::parse(read_file_text(summary_path));
    EXPECT_EQ(summary["shard"], "0/1");
    EXPECT_EQ(summary["counts"]["skipped"], 1);
    EXPECT_EQ(summary["counts"]["failed"], 1);

    // A folder inside the test's own directory: a fixed path such as /nonexistent may exist on
    // some machines (it is the home of Debian's nobody user, created by some images).
    const fs::path no_folder = dir_.path() / "no such folder";
    const ProcessResult nowhere =
        run_earshot("transcribe x.wav --summary " + shell_quote((no_folder / "s.json").string()));
    EXPECT_EQ(nowhere.exit_code, 2);
    EXPECT_NE(nowhere.err.find("there is no folder " + no_folder.string()), std::string::npos)
        << nowhere.err;
}

TEST_F(TranscribeManifest, BadShardsAndManifestsAreRefused) {
    for (const char* shard : {"2/2", "-1/2", "1", "a/b", "0/0", "1/2x"}) {
        const ProcessResult result = run_earshot(std::string("transcribe x.wav --shard ") + shard);
        EXPECT_EQ(result.exit_code, 2) << shard;
        EXPECT_NE(result.err.find("expected K/N with 0 <= K < N"), std::string::npos) << result.err;
    }
    const ProcessResult missing = run_earshot("transcribe --manifest /nonexistent/list.txt");
    EXPECT_EQ(missing.exit_code, 2);
    EXPECT_NE(missing.err.find("cannot read the manifest /nonexistent/list.txt"), std::string::npos)
        << missing.err;
    const ProcessResult none = run_earshot("transcribe");
    EXPECT_EQ(none.exit_code, 2);
    EXPECT_NE(none.err.find("no input files"), std::string::npos) << none.err;
}

}  // namespace
}  // namespace earshot::test
