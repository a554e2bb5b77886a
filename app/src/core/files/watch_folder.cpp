// WatchFolder: a poll of a folder's files, their settling, and the ones ignored.
#include "core/files/watch_folder.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <set>
#include <string_view>
#include <system_error>

namespace earshot::app {

namespace fs = std::filesystem;

namespace {

std::string lower(std::string text) {
    std::transform(text.begin(), text.end(), text.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return text;
}

bool ends_with(std::string_view text, std::string_view end) {
    return text.size() >= end.size() && text.substr(text.size() - end.size()) == end;
}

}  // namespace

bool is_temporary_name(const std::string& name) {
    if (name.empty() || name.front() == '.' || name.front() == '~' || name.back() == '~') {
        return true;  // dot files (rsync's, earshot's own .<name>.tmp-*), editors' backups
    }
    const std::string l = lower(name);
    static constexpr std::array<std::string_view, 8> kEnds = {
        ".part", ".partial", ".tmp", ".temp", ".crdownload", ".download", ".filepart", ".swp"};
    return std::any_of(kEnds.begin(), kEnds.end(),
                       [&](std::string_view e) { return ends_with(l, e); });
}

bool has_audio_extension(const fs::path& path) {
    static const std::set<std::string, std::less<>> kAudio = {
        ".wav", ".wave", ".mp3",  ".flac", ".ogg", ".oga", ".opus", ".m4a",  ".aac",
        ".wma", ".aiff", ".aif",  ".caf",  ".amr", ".3gp", ".mp4",  ".m4v",  ".mkv",
        ".mka", ".mov",  ".webm", ".avi",  ".ts",  ".spx", ".ac3",  ".mpga", ".mpeg"};
    return kAudio.count(lower(path.extension().string())) > 0;
}

WatchFolder::WatchFolder(fs::path folder, std::chrono::milliseconds settle)
    : folder_(std::move(folder)), settle_(settle) {}

std::vector<WatchEvent> WatchFolder::scan(Clock::time_point now) {
    std::vector<WatchEvent> events;
    std::error_code error;
    fs::directory_iterator it(folder_, error);
    if (error) {
        error_ = folder_.string() + ": " + error.message();
        return events;
    }
    error_.clear();
    std::set<fs::path> present;
    for (; it != fs::directory_iterator(); it.increment(error)) {
        if (error) break;
        const fs::directory_entry& entry = *it;
        std::error_code stat_error;
        if (!entry.is_regular_file(stat_error)) continue;
        const fs::path path = entry.path();
        present.insert(path);
        const std::uintmax_t size = entry.file_size(stat_error);
        const fs::file_time_type mtime = entry.last_write_time(stat_error);
        if (stat_error) continue;  // gone between the listing and the look
        auto [at, inserted] = seen_.try_emplace(path);
        Seen& seen = at->second;
        const std::string name = path.filename().string();
        const bool temporary = is_temporary_name(name);
        if (temporary || !has_audio_extension(path)) {
            if (!seen.reported) {
                seen.reported = true;
                events.push_back({path,
                                  temporary ? WatchVerdict::temporary : WatchVerdict::not_audio,
                                  temporary ? "a temporary or partial file"
                                            : "not an audio or video file (by its extension)"});
            }
            continue;
        }
        if (inserted || seen.size_bytes != size || seen.mtime != mtime) {
            seen.size_bytes = size;
            seen.mtime = mtime;
            seen.stable_since = now;
            seen.handed_out = false;
            continue;
        }
        // An empty file is a recording that has not started: wait for its first bytes.
        if (!seen.handed_out && size > 0 && now - seen.stable_since >= settle_) {
            seen.handed_out = true;
            events.push_back({path, WatchVerdict::ready, {}});
        }
    }
    for (auto at = seen_.begin(); at != seen_.end();) {
        at = present.count(at->first) ? std::next(at) : seen_.erase(at);
    }
    std::sort(events.begin(), events.end(),
              [](const WatchEvent& a, const WatchEvent& b) { return a.path < b.path; });
    return events;
}

std::string transcript_name(const fs::path& recording) {
    const fs::path stem = recording.stem();
    std::error_code error;
    fs::directory_iterator it(
        recording.parent_path().empty() ? fs::path(".") : recording.parent_path(), error);
    for (; !error && it != fs::directory_iterator(); it.increment(error)) {
        const fs::path& other = it->path();
        if (other.filename() == recording.filename()) continue;
        if (other.stem() != stem || !has_audio_extension(other)) continue;
        if (is_temporary_name(other.filename().string())) continue;
        return recording.filename().string();  // a.mp3 beside a.wav: "a.mp3"
    }
    return stem.string();
}

}  // namespace earshot::app
