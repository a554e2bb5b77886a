// move_folder(): plan every entry of the old folder, move file by file (a rename, or a copy across
// file systems), put everything back on the first failure, then drop the old copies and folders.
#include "core/files/legacy_folders.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <system_error>

#include "core/files/data_root.h"

namespace earshot::app {

namespace fs = std::filesystem;

namespace {

// The marker file, open and locked for as long as the object lives.
class MarkerLock {
public:
    explicit MarkerLock(const fs::path& path) {
        fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
        if (fd_ >= 0 && ::flock(fd_, LOCK_EX) != 0) {
            ::close(fd_);
            fd_ = -1;
        }
        if (fd_ < 0) error_ = std::strerror(errno);
    }
    ~MarkerLock() {
        if (fd_ >= 0) ::close(fd_);  // releases the lock
    }
    MarkerLock(const MarkerLock&) = delete;
    MarkerLock& operator=(const MarkerLock&) = delete;

    bool locked() const { return fd_ >= 0; }
    const std::string& error() const { return error_; }
    bool written() const {
        struct stat info {};
        return ::fstat(fd_, &info) == 0 && info.st_size > 0;
    }
    void write(const std::string& text) {
        if (::ftruncate(fd_, 0) != 0) return;
        std::size_t done = 0;
        while (done < text.size()) {
            const ssize_t n =
                ::pwrite(fd_, text.data() + done, text.size() - done, static_cast<off_t>(done));
            if (n <= 0) return;
            done += static_cast<std::size_t>(n);
        }
        ::fsync(fd_);
    }

private:
    int fd_ = -1;
    std::string error_;
};

bool same_bytes(const fs::path& a, const fs::path& b) {
    std::error_code error;
    if (!fs::is_regular_file(b, error) || fs::file_size(a, error) != fs::file_size(b, error)) {
        return false;
    }
    std::ifstream in_a(a, std::ios::binary);
    std::ifstream in_b(b, std::ios::binary);
    std::array<char, 1 << 16> buffer_a{};
    std::array<char, 1 << 16> buffer_b{};
    while (in_a && in_b) {
        in_a.read(buffer_a.data(), buffer_a.size());
        in_b.read(buffer_b.data(), buffer_b.size());
        if (in_a.gcount() != in_b.gcount() ||
            !std::equal(buffer_a.begin(), buffer_a.begin() + in_a.gcount(), buffer_b.begin())) {
            return false;
        }
    }
    return !in_a.bad() && !in_b.bad() && in_a.eof() && in_b.eof();
}

// A name beside `taken` for the old folder's copy: name.old-location.ext, then .old-location-2...
fs::path free_name_beside(const fs::path& taken) {
    std::error_code error;
    for (int n = 1;; ++n) {
        fs::path candidate = taken.parent_path() / taken.stem();
        candidate += n == 1 ? std::string(".old-location") : ".old-location-" + std::to_string(n);
        candidate += taken.extension();
        if (!fs::exists(fs::symlink_status(candidate, error))) return candidate;
    }
}

struct Step {
    fs::path from;
    fs::path to;
    enum class Kind { renamed, copied } kind = Kind::renamed;
};

// Moves one file or link: a rename, or (across file systems) a copy whose original is removed
// only once every file has arrived.
bool move_one(const fs::path& from, const fs::path& to, bool is_link, Step& step,
              std::string& why) {
    std::error_code error;
    fs::rename(from, to, error);
    if (!error) {
        step = {from, to, Step::Kind::renamed};
        return true;
    }
    if (error != std::errc::cross_device_link) {
        why = error.message();
        return false;
    }
    error.clear();
    if (is_link) {
        fs::copy_symlink(from, to, error);
    } else {
        fs::copy_file(from, to, fs::copy_options::none, error);
        if (!error) {
            fs::permissions(to, fs::status(from).permissions(), error);
        }
    }
    if (error) {
        why = error.message();
        std::error_code ignored;
        fs::remove(to, ignored);
        return false;
    }
    step = {from, to, Step::Kind::copied};
    return true;
}

// Removes `folder`'s empty subfolders, deepest first, then `folder` itself when empty.
void remove_empty_folders(const fs::path& folder) {
    std::error_code error;
    std::vector<fs::path> folders;
    for (fs::recursive_directory_iterator it(folder, error), end; !error && it != end;
         it.increment(error)) {
        if (it->is_directory(error) && !it->is_symlink(error)) folders.push_back(it->path());
    }
    std::sort(folders.begin(), folders.end(),
              [](const fs::path& a, const fs::path& b) { return a.native() > b.native(); });
    for (const fs::path& path : folders) fs::remove(path, error);  // only when empty
    fs::remove(folder, error);
}

}  // namespace

FolderMoveResult move_folder(const FolderMove& move) {
    FolderMoveResult result;
    std::error_code error;
    if (!fs::is_directory(move.from, error)) return result;
    if (fs::exists(move.to, error) && fs::equivalent(move.from, move.to, error)) return result;
    const fs::path marker = move.to / kFolderMovedMarker;
    if (fs::exists(marker, error) && fs::file_size(marker, error) > 0) return result;

    auto fail = [&](const std::string& why) {
        result.outcome = FolderMoveResult::Outcome::failed;
        result.error = why;
        return result;
    };
    fs::create_directories(move.to, error);
    if (error) return fail("cannot create " + move.to.string() + ": " + error.message());
    MarkerLock lock(marker);
    if (!lock.locked()) return fail("cannot write " + marker.string() + ": " + lock.error());
    if (lock.written() || !fs::is_directory(move.from, error))
        return result;  // another start did it

    // The plan: every entry, before anything moves.
    std::vector<fs::path> folders;
    struct Entry {
        fs::path from;
        fs::path relative;
        bool is_link = false;
    };
    std::vector<Entry> files;
    for (fs::recursive_directory_iterator it(move.from, error), end; it != end;
         it.increment(error)) {
        if (error) break;
        const fs::path relative = it->path().lexically_relative(move.from);
        const fs::file_status status = it->symlink_status(error);
        if (fs::is_directory(status)) {
            folders.push_back(relative);
        } else if (fs::is_regular_file(status) || fs::is_symlink(status)) {
            files.push_back({it->path(), relative, fs::is_symlink(status)});
        } else {
            ++result.left_behind;
        }
    }
    if (error) return fail("cannot read " + move.from.string() + ": " + error.message());
    // In path order, folders before what they hold.
    std::sort(folders.begin(), folders.end());
    std::sort(files.begin(), files.end(),
              [](const Entry& a, const Entry& b) { return a.relative < b.relative; });

    std::vector<fs::path> created;
    std::vector<Step> done;
    std::vector<fs::path> duplicates;
    auto undo = [&] {
        std::error_code ignored;
        for (auto step = done.rbegin(); step != done.rend(); ++step) {
            if (step->kind == Step::Kind::renamed) {
                fs::rename(step->to, step->from, ignored);
            } else {
                fs::remove(step->to, ignored);
            }
        }
        for (auto folder = created.rbegin(); folder != created.rend(); ++folder) {
            fs::remove(*folder, ignored);
        }
    };
    for (const fs::path& relative : folders) {
        const fs::path target = move.to / relative;
        if (fs::is_directory(target, error)) continue;
        if (!fs::create_directory(target, error) || error) {
            undo();
            return fail("cannot create " + target.string() + ": " +
                        (error ? error.message() : std::string("a file of that name is there")));
        }
        created.push_back(target);
    }
    for (const Entry& file : files) {
        fs::path relative = file.relative;
        for (const auto& [old_name, new_name] : move.renames) {
            if (relative == old_name) relative = new_name;
        }
        fs::path target = move.to / relative;
        if (fs::exists(fs::symlink_status(target, error))) {
            if (!file.is_link && same_bytes(file.from, target)) {
                duplicates.push_back(file.from);
                continue;
            }
            const fs::path beside = free_name_beside(target);
            result.kept_both.emplace_back(relative, beside.lexically_relative(move.to));
            target = beside;
        }
        Step step;
        std::string why;
        if (!move_one(file.from, target, file.is_link, step, why)) {
            undo();
            result.kept_both.clear();
            return fail("cannot move " + file.from.string() + " to " + target.string() + ": " +
                        why);
        }
        done.push_back(step);
        ++result.moved_files;
    }

    // Everything arrived: the old copies go, then the old folders that are left empty.
    lock.write(move.from.string() + "\n");
    for (const Step& step : done) {
        if (step.kind == Step::Kind::copied) fs::remove(step.from, error);
    }
    for (const fs::path& path : duplicates) fs::remove(path, error);
    result.duplicates = static_cast<int>(duplicates.size());
    remove_empty_folders(move.from);
    if (!move.parent_to_remove.empty()) fs::remove(move.parent_to_remove, error);  // when empty
    result.outcome = FolderMoveResult::Outcome::moved;
    return result;
}

std::vector<std::string> FolderMoveResult::report(const FolderMove& move) const {
    std::vector<std::string> lines;
    switch (outcome) {
        case Outcome::nothing_to_move:
            return lines;
        case Outcome::failed:
            lines.push_back("earshot: could not move " + move.from.string() + " to " +
                            move.to.string() + " (" + error +
                            "); the old folder is left as it was");
            return lines;
        case Outcome::moved:
            break;
    }
    std::string line = "earshot: moved " + std::to_string(moved_files) +
                       (moved_files == 1 ? " file" : " files") + " from " + move.from.string() +
                       " to " + move.to.string();
    if (duplicates > 0) {
        line += " (" + std::to_string(duplicates) + (duplicates == 1 ? " was" : " were") +
                " already there, byte for byte)";
    }
    if (left_behind > 0) {
        line += "; " + std::to_string(left_behind) +
                " entries that are neither files nor folders stayed in the old folder";
    }
    lines.push_back(line);
    for (const auto& [kept, beside] : kept_both) {
        lines.push_back("earshot: both folders had " + kept.string() + "; " +
                        (move.to / kept).string() + " is the one in use, and the old folder's is " +
                        (move.to / beside).string());
    }
    return lines;
}

std::vector<std::string> move_legacy_folders() {
    std::vector<std::string> lines;
    const FolderMove data{
        legacy_data_folder(), data_root(), {}, legacy_data_folder().parent_path()};
    for (std::string& line : move_folder(data).report(data)) lines.push_back(std::move(line));
    const FolderMove config{
        legacy_config_folder(), config_root(), {{"Earshot.conf", settings_file().filename()}}, {}};
    for (std::string& line : move_folder(config).report(config)) lines.push_back(std::move(line));
    return lines;
}

}  // namespace earshot::app
