// The `earshot live --journal` file format (app/src/core/files/live_journal.h): sessions appended
// and read back, a torn last character dropped, text from elsewhere kept as a session without a
// start.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "core/files/live_journal.h"
#include "crash_journal_process.h"
#include "temp_dir.h"

namespace earshot::test {
namespace {

namespace fs = std::filesystem;
using app::LiveJournal;
using app::parse_live_journal;

TEST(CrashJournalFormat, EachRunAppendsASessionAndKeepsTheEarlierOnes) {
    const TempDir dir("earshot-journal-format");
    const fs::path path = dir.path() / "journal.txt";
    {
        LiveJournal journal(path, "2026-12-01T07:00:00Z");
        EXPECT_TRUE(journal.earlier_sessions().empty());
        journal.append(" And so my");
        journal.append(" fellow Americans,");
        // What append() returned from is in the file, not in a buffer.
        EXPECT_EQ(read_text(path),
                  "--- earshot live 2026-12-01T07:00:00Z ---\n And so my fellow Americans,");
    }
    {
        LiveJournal journal(path, "2026-12-01T07:05:00Z");
        ASSERT_EQ(journal.earlier_sessions().size(), 1u);
        EXPECT_EQ(journal.earlier_sessions()[0].started_utc, "2026-12-01T07:00:00Z");
        EXPECT_EQ(journal.earlier_sessions()[0].text, " And so my fellow Americans,");
        journal.append(" ask not");
    }
    const auto sessions = parse_live_journal(read_text(path));
    ASSERT_EQ(sessions.size(), 2u);
    EXPECT_EQ(sessions[0].text, " And so my fellow Americans,");
    EXPECT_EQ(sessions[1].started_utc, "2026-12-01T07:05:00Z");
    EXPECT_EQ(sessions[1].text, " ask not");
}

// Spoken commands take back journaled text: backspaces in the file, applied by the reader (a
// whole character each, never past the session's start).
TEST(CrashJournalFormat, BackspacesTakeBackJournaledCharacters) {
    const TempDir dir("earshot-journal-erase");
    const fs::path path = dir.path() / "journal.txt";
    {
        LiveJournal journal(path, "2026-12-01T07:00:00Z");
        journal.append("Caf\xC3\xA9 open.");
        journal.append(" Scratch me", 0);
        journal.append("", 11);
        journal.append(" Bye.", 0);
    }
    EXPECT_EQ(read_text(path),
              "--- earshot live 2026-12-01T07:00:00Z ---\nCaf\xC3\xA9 open. Scratch me" +
                  std::string(11, '\b') + " Bye.");
    const auto sessions =
        parse_live_journal(read_text(path) + "\n--- earshot live b ---\nx\b\b\bY");
    ASSERT_EQ(sessions.size(), 2u);
    EXPECT_EQ(sessions[0].text, "Caf\xC3\xA9 open. Bye.");
    EXPECT_EQ(sessions[1].text, "Y");
}

TEST(CrashJournalFormat, ATornCharacterIsDroppedAndForeignTextKept) {
    const std::string torn =
        "notes\n--- earshot live 2026-12-01T07:10:00Z ---\n caf\xc3\xa9 caf\xc3";
    const auto sessions = parse_live_journal(torn);
    ASSERT_EQ(sessions.size(), 2u);
    EXPECT_EQ(sessions[0].started_utc, "");
    EXPECT_EQ(sessions[0].text, "notes");
    EXPECT_EQ(sessions[1].started_utc, "2026-12-01T07:10:00Z");
    EXPECT_EQ(sessions[1].text, " caf\xc3\xa9 caf");
    EXPECT_TRUE(parse_live_journal("").empty());
    // A run killed before it committed anything leaves a session line alone (found by fuzzing:
    // the empty session took the rest of the file as its text).
    const auto empty_first =
        parse_live_journal("--- earshot live a ---\n--- earshot live b ---\n word");
    ASSERT_EQ(empty_first.size(), 2u);
    EXPECT_EQ(empty_first[0].text, "");
    EXPECT_EQ(empty_first[1].started_utc, "b");
    EXPECT_EQ(empty_first[1].text, " word");
    // A header-like line inside text is only a session line when it is a whole line.
    const auto inline_marker = parse_live_journal("x --- earshot live now ---\ny");
    ASSERT_EQ(inline_marker.size(), 1u);
    EXPECT_EQ(inline_marker[0].text, "x --- earshot live now ---\ny");
}

TEST(CrashJournalFormat, AJournalThatCannotBeOpenedSaysWhichAndWhy) {
    const TempDir dir("earshot-journal-format-error");
    try {
        LiveJournal journal(dir.path() / "missing-folder" / "journal.txt", "t");
        FAIL() << "opened a journal in a folder that does not exist";
    } catch (const app::LiveJournalError& e) {
        EXPECT_NE(std::string(e.what()).find("missing-folder/journal.txt"), std::string::npos);
        EXPECT_NE(std::string(e.what()).find("No such file or directory"), std::string::npos);
    }
}

}  // namespace
}  // namespace earshot::test
