// Moving the folders of earlier releases to the data root and config folder: every file arrives
// with its bytes, a file both folders hold is kept twice (the new place's under its name), a
// failure puts back what had moved, and a finished move is not repeated.
#include "core/files/legacy_folders.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "core/files/data_root.h"
#include "temp_dir.h"

namespace {

namespace fs = std::filesystem;
using earshot::app::FolderMove;
using earshot::app::FolderMoveResult;
using earshot::app::move_folder;
using earshot::test::TempDir;
using Outcome = FolderMoveResult::Outcome;

void write(const fs::path& path, const std::string& text) {
    fs::create_directories(path.parent_path());
    std::ofstream(path, std::ios::binary) << text;
}

std::string read(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

// Every regular file under `root` (relative path -> bytes), the marker left out.
std::map<std::string, std::string> tree(const fs::path& root) {
    std::map<std::string, std::string> files;
    if (!fs::exists(root)) return files;
    for (const auto& entry : fs::recursive_directory_iterator(root)) {
        if (!entry.is_regular_file() || entry.path().filename() == earshot::app::kFolderMovedMarker)
            continue;
        files[entry.path().lexically_relative(root).string()] = read(entry.path());
    }
    return files;
}

// The old data folder as an earlier release left it: the journal, what it cleared, two Files
// results (one binary, with every byte value).
std::map<std::string, std::string> old_data() {
    std::string binary;
    for (int i = 0; i < 256; ++i) binary.push_back(static_cast<char>(i));
    return {{"session-transcript.txt", "--- earshot live 2026-11-30T09:00:00Z ---\n Hello."},
            {"session-transcript.cleared.txt", "cleared text\n"},
            {"file-results/1.json", "{\"text\":\"one\"}"},
            {"file-results/audio.bin", binary}};
}

class LegacyFolders : public ::testing::Test {
protected:
    void SetUp() override {
        m_move.from = m_dir.path() / "share" / "Earshot" / "Earshot";
        m_move.to = m_dir.path() / "share" / "earshot";
        m_move.parent_to_remove = m_move.from.parent_path();
        for (const auto& [name, bytes] : old_data()) write(m_move.from / name, bytes);
    }

    TempDir m_dir{"earshot-legacy-folders"};
    FolderMove m_move;
};

TEST_F(LegacyFolders, EveryFileArrivesWithItsBytesAndTheOldFoldersGo) {
    const FolderMoveResult result = move_folder(m_move);
    ASSERT_EQ(result.outcome, Outcome::moved) << result.error;
    EXPECT_EQ(result.moved_files, 4);
    EXPECT_EQ(tree(m_move.to), old_data());
    EXPECT_FALSE(fs::exists(m_move.from));
    EXPECT_FALSE(fs::exists(m_move.from.parent_path()));  // the organization folder, left empty
    EXPECT_EQ(read(m_move.to / earshot::app::kFolderMovedMarker), m_move.from.string() + "\n");
    const std::vector<std::string> lines = result.report(m_move);
    ASSERT_EQ(lines.size(), 1u);
    EXPECT_EQ(lines[0],
              "earshot: moved 4 files from " + m_move.from.string() + " to " + m_move.to.string());
}

TEST_F(LegacyFolders, ItRunsOnceEvenIfAnOlderReleaseWritesTheOldFolderAgain) {
    ASSERT_EQ(move_folder(m_move).outcome, Outcome::moved);
    write(m_move.from / "session-transcript.txt", "written by an older release");
    const FolderMoveResult again = move_folder(m_move);
    EXPECT_EQ(again.outcome, Outcome::nothing_to_move);
    EXPECT_TRUE(again.report(m_move).empty());
    EXPECT_EQ(read(m_move.from / "session-transcript.txt"), "written by an older release");
    EXPECT_EQ(tree(m_move.to), old_data());
}

TEST_F(LegacyFolders, NoOldFolderIsNothingToMoveAndCreatesNothing) {
    fs::remove_all(m_move.from.parent_path());
    EXPECT_EQ(move_folder(m_move).outcome, Outcome::nothing_to_move);
    EXPECT_FALSE(fs::exists(m_move.to));
}

// The new root already holds the models, a Files result with the same bytes and a journal of its
// own: the models stay, the same result is kept once, the two journals are both kept.
TEST_F(LegacyFolders, IntoAnExistingRootNothingIsOverwritten) {
    write(m_move.to / "models" / "tiny" / "model.bin", "weights");
    write(m_move.to / "file-results" / "1.json", "{\"text\":\"one\"}");
    write(m_move.to / "session-transcript.txt", "the new place's journal");
    write(m_move.to / "session-transcript.old-location.txt", "an earlier kept copy");

    const FolderMoveResult result = move_folder(m_move);
    ASSERT_EQ(result.outcome, Outcome::moved) << result.error;
    EXPECT_EQ(result.moved_files, 3);
    EXPECT_EQ(result.duplicates, 1);
    std::map<std::string, std::string> expected = old_data();
    expected["models/tiny/model.bin"] = "weights";
    expected["session-transcript.txt"] = "the new place's journal";
    expected["session-transcript.old-location.txt"] = "an earlier kept copy";
    expected["session-transcript.old-location-2.txt"] = old_data()["session-transcript.txt"];
    EXPECT_EQ(tree(m_move.to), expected);
    EXPECT_FALSE(fs::exists(m_move.from));
    const std::vector<std::string> lines = result.report(m_move);
    ASSERT_EQ(lines.size(), 2u);
    EXPECT_EQ(lines[0], "earshot: moved 3 files from " + m_move.from.string() + " to " +
                            m_move.to.string() + " (1 was already there, byte for byte)");
    EXPECT_EQ(lines[1], "earshot: both folders had session-transcript.txt; " +
                            (m_move.to / "session-transcript.txt").string() +
                            " is the one in use, and the old folder's is " +
                            (m_move.to / "session-transcript.old-location-2.txt").string());
}

// The last file cannot arrive (its new name's folder does not exist): the files moved before it
// go back, the old folder is as it was, the line says what failed, and the next start tries again.
TEST_F(LegacyFolders, AFailureLeavesTheOldFolderAsItWas) {
    write(m_move.from / "zz.conf", "[settings]\n");
    m_move.renames = {{"zz.conf", "missing/zz.conf"}};
    std::map<std::string, std::string> before = old_data();
    before["zz.conf"] = "[settings]\n";

    const FolderMoveResult result = move_folder(m_move);
    ASSERT_EQ(result.outcome, Outcome::failed);
    EXPECT_EQ(tree(m_move.from), before);
    EXPECT_EQ(tree(m_move.to), (std::map<std::string, std::string>{}));
    const std::vector<std::string> lines = result.report(m_move);
    ASSERT_EQ(lines.size(), 1u);
    EXPECT_EQ(lines[0], "earshot: could not move " + m_move.from.string() + " to " +
                            m_move.to.string() + " (cannot move " +
                            (m_move.from / "zz.conf").string() + " to " +
                            (m_move.to / "missing" / "zz.conf").string() +
                            ": No such file or directory); the old folder is left as it was");

    m_move.renames.clear();
    const FolderMoveResult retried = move_folder(m_move);
    ASSERT_EQ(retried.outcome, Outcome::moved) << retried.error;
    EXPECT_EQ(tree(m_move.to), before);
}

// A file where the old folder has a folder: nothing moves.
TEST_F(LegacyFolders, AFileInTheWayOfAFolderMovesNothing) {
    write(m_move.to / "file-results", "not a folder");
    const FolderMoveResult result = move_folder(m_move);
    ASSERT_EQ(result.outcome, Outcome::failed);
    EXPECT_NE(result.error.find("cannot create " + (m_move.to / "file-results").string()),
              std::string::npos)
        << result.error;
    EXPECT_EQ(tree(m_move.from), old_data());
    EXPECT_EQ(read(m_move.to / "file-results"), "not a folder");
}

// The whole layout from a temporary HOME with no XDG variables: the data folder and the
// settings file (renamed earshot.conf) move to the XDG defaults.
TEST(LegacyFoldersAtStart, MoveFromTheDefaultsUnderHome) {
    const TempDir home("earshot-legacy-home");
    std::map<std::string, std::string> saved;
    for (const char* name : {"HOME", "XDG_DATA_HOME", "XDG_CONFIG_HOME"}) {
        if (const char* value = std::getenv(name)) saved[name] = value;
    }
    ::setenv("HOME", home.path().c_str(), 1);
    ::unsetenv("XDG_DATA_HOME");
    ::unsetenv("XDG_CONFIG_HOME");
    write(home.path() / ".local/share/Earshot/Earshot/session-transcript.txt", " Hi.");
    write(home.path() / ".config/Earshot/Earshot.conf", "[model]\npath=/m\n");

    EXPECT_EQ(earshot::app::data_root(), home.path() / ".local/share/earshot");
    EXPECT_EQ(earshot::app::settings_file(), home.path() / ".config/earshot/earshot.conf");
    const std::vector<std::string> lines = earshot::app::move_legacy_folders();
    EXPECT_EQ(read(home.path() / ".local/share/earshot/session-transcript.txt"), " Hi.");
    EXPECT_EQ(read(home.path() / ".config/earshot/earshot.conf"), "[model]\npath=/m\n");
    EXPECT_FALSE(fs::exists(home.path() / ".local/share/Earshot"));
    EXPECT_FALSE(fs::exists(home.path() / ".config/Earshot"));
    ASSERT_EQ(lines.size(), 2u);
    EXPECT_EQ(lines[1], "earshot: moved 1 file from " + (home.path() / ".config/Earshot").string() +
                            " to " + (home.path() / ".config/earshot").string());
    EXPECT_TRUE(earshot::app::move_legacy_folders().empty());

    for (const char* name : {"HOME", "XDG_DATA_HOME", "XDG_CONFIG_HOME"}) {
        if (saved.count(name) != 0) {
            ::setenv(name, saved[name].c_str(), 1);
        } else {
            ::unsetenv(name);
        }
    }
}

}  // namespace
