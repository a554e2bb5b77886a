// The commands file: its format, the one-line errors naming file:line, and phrase matching.
#include "core/dictation/spoken_command_table.h"

#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "temp_dir.h"

namespace earshot::app {
namespace {

std::string parse_error(const std::string& text) {
    try {
        CommandTable::parse(text, "cmds.tsv");
    } catch (const CommandFileError& e) {
        return e.what();
    }
    return "no error";
}

TEST(SpokenCommandTable, ParsesPhrasesAndActions) {
    const CommandTable table = CommandTable::parse(
        "# mine\n\nNew  Note\tparagraph\r\nsmiley\tinsert::-)\ntab key\tinsert:\\t\n", "t");
    ASSERT_EQ(table.commands().size(), 3u);
    EXPECT_EQ(table.commands()[0].words, (std::vector<std::string>{"new", "note"}));
    EXPECT_EQ(table.commands()[0].action.kind, CommandActionKind::paragraph);
    EXPECT_EQ(table.commands()[1].action.text, ":-)");
    EXPECT_EQ(table.commands()[2].action.text, "\t");
}

TEST(SpokenCommandTable, BadLinesNameTheFileAndLine) {
    EXPECT_EQ(parse_error("comma\tinsert:,\nperiod insert:.\n"),
              "cmds.tsv:2: expected phrase<TAB>action, found no tab");
    EXPECT_EQ(parse_error("comma\tinsert:\n"),
              "cmds.tsv:1: insert: needs the text to insert (insert:TEXT)");
    EXPECT_EQ(parse_error("\n\nzap\tdelete\n").rfind("cmds.tsv:3: unknown action \"delete\"", 0),
              0u);
    EXPECT_EQ(parse_error("comma\tinsert:,\nComma\tinsert:;\n"),
              "cmds.tsv:2: the phrase is already in the table");
    EXPECT_EQ(parse_error(" \tnewline\n"), "cmds.tsv:1: the phrase before the tab is empty");
    EXPECT_EQ(parse_error("# nothing\n"), "cmds.tsv: no commands in the file");
}

TEST(SpokenCommandTable, LoadNamesAMissingFile) {
    const test::TempDir dir;
    try {
        CommandTable::load(dir.path() / "absent.tsv");
        FAIL() << "no error";
    } catch (const CommandFileError& e) {
        EXPECT_EQ(std::string(e.what()), (dir.path() / "absent.tsv").string() + ": cannot be read");
    }
    std::ofstream(dir.path() / "ok.tsv") << "over\tnewline\n";
    EXPECT_EQ(CommandTable::load(dir.path() / "ok.tsv").commands().size(), 1u);
}

TEST(SpokenCommandTable, MatchesTheLongestPhrase) {
    const CommandTable table = CommandTable::english_defaults();
    const std::vector<std::string> words{"new", "paragraph", "now"};
    ASSERT_NE(table.match(words), nullptr);
    EXPECT_EQ(table.match(words)->action.kind, CommandActionKind::paragraph);
    EXPECT_TRUE(table.could_extend(std::vector<std::string>{"new"}));
    EXPECT_FALSE(table.could_extend(std::vector<std::string>{"new", "york"}));
    EXPECT_EQ(table.match(std::vector<std::string>{"newline"}), nullptr);
}

}  // namespace
}  // namespace earshot::app
