// WatchFolder: which recordings in a folder are ready to transcribe. A file is ready once its
// size and modification time have stayed the same for the settle time (a recorder or a copy has
// stopped writing it); temporary and partial files (dot files, .part, .tmp, .crdownload, ...) and
// files that are not audio or video by their extension are reported once each and never handed
// out. Polling, not inotify: "stopped growing" needs a clock anyway, and polling also sees files
// written over NFS or SMB by another machine, which inotify does not. No Qt: `earshot watch` and
// the Files page's watch folder both use it.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace earshot::app {

enum class WatchVerdict {
    ready,      // settled: transcribe it (handed out once, again only after it changes)
    temporary,  // a partial or temporary file: ignored
    not_audio,  // not an audio or video file by its extension: ignored
};

struct WatchEvent {
    std::filesystem::path path;
    WatchVerdict verdict = WatchVerdict::ready;
    std::string reason;  // for the ignored ones: one line saying why
};

class WatchFolder {
public:
    using Clock = std::chrono::steady_clock;

    // `settle`: how long a file's size and mtime must stay the same before it is ready.
    WatchFolder(std::filesystem::path folder, std::chrono::milliseconds settle);

    // One look at the folder (not its subfolders) at `now`: the files that became ready since
    // the last look and the files ignored for the first time, in name order. A folder that cannot
    // be read gives nothing (error_message() says why).
    std::vector<WatchEvent> scan(Clock::time_point now);

    const std::filesystem::path& folder() const { return folder_; }
    const std::string& error_message() const { return error_; }

private:
    struct Seen {
        std::uintmax_t size_bytes = 0;
        std::filesystem::file_time_type mtime;
        Clock::time_point stable_since;
        bool handed_out = false;  // ready was reported for this size and mtime
        bool reported = false;    // an ignored file was reported
    };

    std::filesystem::path folder_;
    std::chrono::milliseconds settle_;
    std::map<std::filesystem::path, Seen> seen_;
    std::string error_;
};

// Whether `name` is a temporary or partial file by its name (editors', browsers', rsync's,
// earshot's own atomic writes).
bool is_temporary_name(const std::string& name);

// Whether `path`'s extension is one of the audio and video formats FFmpeg reads that people
// record in (.wav .mp3 .flac .ogg .opus .m4a .aac .mp4 .mkv .webm ...), any case.
bool has_audio_extension(const std::filesystem::path& path);

// The name, without folder or format extension, that `earshot watch` gives `recording`'s
// transcripts: its stem; or, when another recording in the same folder has the same stem (a.mp3
// beside a.wav), its whole file name (a.mp3.txt, a.wav.txt), so that neither recording's
// transcripts overwrite the other's or make it look done.
std::string transcript_name(const std::filesystem::path& recording);

}  // namespace earshot::app
