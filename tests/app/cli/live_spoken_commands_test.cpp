// `earshot live --commands FILE` on espeak-ng speech through the embedded micro model: a table of
// phrases from the micro model's words (it knows no "comma" or "period") edits what is printed
// and journaled, exactly as the DictationEditor edits the words the run committed; with
// --no-commands the phrases stay words; a bad table is one line naming file and line.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/dictation/dictation_editor.h"
#include "core/files/live_journal.h"
#include "file_bytes.h"
#include "micro_model.h"
#include "run_process.h"
#include "spoken_words.h"
#include "temp_dir.h"

namespace earshot::test {
namespace {

namespace fs = std::filesystem;

// Said with 1.5 s between the sentences: three utterances.
const std::vector<std::vector<std::string>> kSaid = {
    {"call", "the", "doctor", "today", "full", "stop"},
    {"new", "note", "buy", "milk", "and", "bread"},
    {"send", "the", "report", "forget", "that"},
};
constexpr const char* kTable =
    "# phrases of the micro model's words\n"
    "full stop\tinsert:.\n"
    "new note\tparagraph\n"
    "forget that\tdelete-last-utterance\n";

std::vector<nlohmann::json> read_json_lines(const fs::path& path) {
    std::ifstream in(path);
    std::vector<nlohmann::json> lines;
    std::string line;
    while (std::getline(in, line)) lines.push_back(nlohmann::json::parse(line));
    return lines;
}

// What a typing stream shows: each backspace takes back the character before it.
std::string typed(const std::string& stream) {
    std::string text;
    for (const char c : stream) {
        if (c == '\b') {
            app::apply_text_edit(text, {1, ""});
        } else {
            text += c;
        }
    }
    return text;
}

class LiveSpokenCommands : public ::testing::Test {
protected:
    void SetUp() override {
        ASSERT_EQ(run_shell("command -v espeak-ng").exit_code, 0)
            << "espeak-ng is not installed (packaging/setup.sh installs it)";
        SpeechOptions speech;
        speech.whole_sentences = true;
        speech.sentence_gap_s = 1.5;
        std::string why;
        const auto audio = speak_sentences(kSaid, speech, &why);
        ASSERT_TRUE(audio) << why;
        wav_ = dir_.path() / "commands.wav";
        write_wav_pcm16(wav_, audio->samples);
        std::ofstream(dir_.path() / "commands.tsv") << kTable;
    }

    ProcessResult live(const std::string& args) const {
        return run_earshot("live --model " + shell_quote(micro_model_dir().string()) + " --input " +
                           shell_quote(wav_.string()) + " --speed 2 " + args);
    }

    TempDir dir_;
    fs::path wav_;
};

TEST_F(LiveSpokenCommands, AFileTableEditsThePrintedAndJournaledText) {
    const fs::path json = dir_.path() / "updates.jsonl";
    const fs::path journal = dir_.path() / "journal.txt";
    const ProcessResult r = live(
        "--commands " + shell_quote((dir_.path() / "commands.tsv").string()) + " --updates-json " +
        shell_quote(json.string()) + " --journal " + shell_quote(journal.string()));
    ASSERT_EQ(r.exit_code, 0) << r.err;

    // The run's own committed words through the same table, piece by piece.
    const auto lines = read_json_lines(json);
    ASSERT_FALSE(lines.empty());
    app::DictationEditor editor(app::CommandTable::parse(kTable, "table"));
    std::string heard;
    size_t erased = 0;
    for (const auto& u : lines) {
        std::vector<app::DictatedWord> words;
        for (const auto& w : u["committed_words"]) {
            words.push_back({w["text"].get<std::string>(), w["start_s"].get<double>(),
                             w["end_s"].get<double>()});
            heard += w["text"].get<std::string>();
        }
        const app::TextEdit edit = editor.commit(words, u["final"].get<bool>());
        EXPECT_EQ(u["committed_text"].get<std::string>(), edit.text);
        EXPECT_EQ(u["erased_chars"].get<size_t>(), edit.erase_chars);
        erased += edit.erase_chars;
    }
    std::cout << "heard:" << heard << "\nshown: " << editor.text() << "\n";
    EXPECT_EQ(lines.back()["commands_applied"].get<int64_t>(), editor.commands_applied());
    EXPECT_EQ(lines.back()["held_words"].get<int64_t>(), 0);
    // Real speech: the invented-words guard held nothing back.
    EXPECT_EQ(lines.back()["held_back_words"].get<int64_t>(), 0);

    // The micro model heard the three phrases, and each did its work.
    EXPECT_NE(heard.find(" full stop"), std::string::npos) << heard;
    EXPECT_NE(heard.find(" new note"), std::string::npos) << heard;
    EXPECT_NE(heard.find(" forget that"), std::string::npos) << heard;
    EXPECT_EQ(editor.commands_applied(), 3);
    EXPECT_GT(erased, 0u);  // "forget that" took back text already printed
    // What each command did, whatever the model made of the other words ("and" it often
    // misses): a full stop, a paragraph with a capital after it, the last utterance gone.
    const std::string& text = editor.text();
    EXPECT_EQ(text.rfind("call the doctor today.\n\nBuy milk", 0), 0u) << text;
    for (const char* gone : {"full", "stop", "note", "send", "report", "forget"}) {
        EXPECT_EQ(text.find(gone), std::string::npos) << gone << " in " << text;
    }

    // stdout is a typing stream (backspaces), the journal applies its backspaces.
    EXPECT_EQ(typed(r.out), editor.text() + "\n");
    const auto sessions = app::parse_live_journal(read_file_text(journal));
    ASSERT_EQ(sessions.size(), 1u);
    EXPECT_EQ(sessions[0].text, editor.text());
}

TEST_F(LiveSpokenCommands, NoCommandsLeavesThePhrasesAsWords) {
    const ProcessResult r = live("--no-commands");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out.find('\b'), std::string::npos);
    EXPECT_NE(r.out.find("full stop"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("forget that"), std::string::npos) << r.out;
}

TEST_F(LiveSpokenCommands, ABadTableIsOneLineNamingFileAndLineWithExit2) {
    const fs::path bad = dir_.path() / "bad.tsv";
    std::ofstream(bad) << "full stop\tinsert:.\nnew note paragraph\n";
    const ProcessResult r = live("--commands " + shell_quote(bad.string()));
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(r.err,
              "earshot live: " + bad.string() + ":2: expected phrase<TAB>action, found no tab\n");
    EXPECT_EQ(r.out, "");
    const ProcessResult both = live("--no-commands --commands " + shell_quote(bad.string()));
    EXPECT_EQ(both.exit_code, 2);
    EXPECT_EQ(both.err, "earshot live: --commands and --no-commands exclude each other\n");
}

}  // namespace
}  // namespace earshot::test
