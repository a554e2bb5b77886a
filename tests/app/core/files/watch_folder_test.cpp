// WatchFolder on a real folder with its own clock: a file is ready once its size and mtime have
// held for the settle time, handed out once, again after it changes; temporary names and
// non-audio files are reported once each; an empty file waits for its first bytes; a folder that
// cannot be read says so.
#include "core/files/watch_folder.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "temp_dir.h"

namespace earshot::app {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using test::TempDir;

std::vector<std::string> names(const std::vector<WatchEvent>& events, WatchVerdict verdict) {
    std::vector<std::string> out;
    for (const WatchEvent& e : events) {
        if (e.verdict == verdict) out.push_back(e.path.filename().string());
    }
    return out;
}

void write(const fs::path& path, const std::string& bytes) {
    std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

TEST(WatchFolder, AFileIsReadyOnceItHasHeldStillForTheSettleTime) {
    const TempDir dir("earshot-watch-folder");
    WatchFolder watch(dir.path(), 2000ms);
    const auto t0 = WatchFolder::Clock::now();
    write(dir.path() / "talk.wav", "RIFF1");
    EXPECT_TRUE(watch.scan(t0).empty());  // first seen
    EXPECT_TRUE(watch.scan(t0 + 1999ms).empty());
    // It grew: the settle time starts again.
    write(dir.path() / "talk.wav", "RIFF1-and-more");
    EXPECT_TRUE(watch.scan(t0 + 2500ms).empty());
    EXPECT_TRUE(watch.scan(t0 + 4000ms).empty());
    EXPECT_EQ(names(watch.scan(t0 + 4500ms), WatchVerdict::ready),
              std::vector<std::string>{"talk.wav"});
    EXPECT_TRUE(watch.scan(t0 + 9000ms).empty());  // handed out once
    // Written again: handed out again after it settles.
    write(dir.path() / "talk.wav", "RIFF2-a-new-take");
    EXPECT_TRUE(watch.scan(t0 + 9100ms).empty());
    EXPECT_EQ(names(watch.scan(t0 + 11100ms), WatchVerdict::ready),
              std::vector<std::string>{"talk.wav"});
}

TEST(WatchFolder, TemporaryAndNonAudioFilesAreReportedOnceAndNeverReady) {
    const TempDir dir("earshot-watch-folder");
    for (const char* name : {".talk.wav.tmp-12-0", "talk.wav.part", "talk.WAV.crdownload",
                             "notes.txt", "cover.jpg", "backup.wav~"}) {
        write(dir.path() / name, "bytes");
    }
    write(dir.path() / "Song.MP3", "ID3");
    WatchFolder watch(dir.path(), 100ms);
    const auto t0 = WatchFolder::Clock::now();
    const auto first = watch.scan(t0);
    EXPECT_EQ(names(first, WatchVerdict::temporary),
              (std::vector<std::string>{".talk.wav.tmp-12-0", "backup.wav~", "talk.WAV.crdownload",
                                        "talk.wav.part"}));
    EXPECT_EQ(names(first, WatchVerdict::not_audio),
              (std::vector<std::string>{"cover.jpg", "notes.txt"}));
    for (const WatchEvent& e : first) EXPECT_FALSE(e.reason.empty()) << e.path;
    const auto later = watch.scan(t0 + 1s);
    EXPECT_EQ(names(later, WatchVerdict::ready), std::vector<std::string>{"Song.MP3"});
    EXPECT_EQ(later.size(), 1u);  // the ignored ones are not reported again
}

TEST(WatchFolder, AnEmptyFileWaitsForItsFirstBytesAndSubfoldersAreNotEntered) {
    const TempDir dir("earshot-watch-folder");
    write(dir.path() / "starting.wav", "");
    fs::create_directories(dir.path() / "transcripts");
    write(dir.path() / "transcripts" / "old.wav", "RIFF");
    WatchFolder watch(dir.path(), 100ms);
    const auto t0 = WatchFolder::Clock::now();
    watch.scan(t0);
    EXPECT_TRUE(watch.scan(t0 + 1s).empty());
    write(dir.path() / "starting.wav", "RIFF");
    watch.scan(t0 + 2s);
    EXPECT_EQ(names(watch.scan(t0 + 3s), WatchVerdict::ready),
              std::vector<std::string>{"starting.wav"});
}

TEST(WatchFolder, AFolderThatCannotBeReadSaysWhy) {
    const TempDir dir("earshot-watch-folder");
    WatchFolder watch(dir.path() / "missing", 100ms);
    EXPECT_TRUE(watch.scan(WatchFolder::Clock::now()).empty());
    EXPECT_NE(watch.error_message().find("missing"), std::string::npos) << watch.error_message();
}

TEST(WatchFolder, NamesAndExtensions) {
    EXPECT_TRUE(is_temporary_name(".hidden.wav"));
    EXPECT_TRUE(is_temporary_name("x.wav.partial"));
    EXPECT_FALSE(is_temporary_name("meeting.wav"));
    EXPECT_TRUE(has_audio_extension("a/b/c.Opus"));
    EXPECT_TRUE(has_audio_extension("c.mkv"));
    EXPECT_FALSE(has_audio_extension("c.pdf"));
    EXPECT_FALSE(has_audio_extension("wav"));
}

TEST(WatchFolder, RecordingsThatShareAStemAreNamedWithTheirExtension) {
    const TempDir dir("earshot-watch-names");
    write(dir.path() / "talk.wav", "RIFF");
    write(dir.path() / "talk.txt", "notes");     // not a recording
    write(dir.path() / "talk.mp3.part", "ID3");  // not yet a recording
    EXPECT_EQ(transcript_name(dir.path() / "talk.wav"), "talk");
    write(dir.path() / "talk.MP3", "ID3");
    EXPECT_EQ(transcript_name(dir.path() / "talk.wav"), "talk.wav");
    EXPECT_EQ(transcript_name(dir.path() / "talk.MP3"), "talk.MP3");
    write(dir.path() / "other.flac", "fLaC");
    EXPECT_EQ(transcript_name(dir.path() / "other.flac"), "other");
}

}  // namespace
}  // namespace earshot::app
