// Moving the folders earlier releases wrote (~/.local/share/Earshot/Earshot, ~/.config/Earshot)
// to the ones Earshot uses now (data_root.h), once, at start, without losing a file: a file
// already at the new place with the same bytes drops the old copy; one with other bytes stays and
// the old one is kept beside it under another name; a failure puts back what was moved and leaves
// the old folder as it was.
#pragma once

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace earshot::app {

struct FolderMove {
    std::filesystem::path from;  // the old folder
    std::filesystem::path to;    // the new one (created when absent)
    // Files renamed on the way, relative paths under `from` -> under `to`
    // (Earshot.conf -> earshot.conf).
    std::vector<std::pair<std::filesystem::path, std::filesystem::path>> renames;
    // Removed too when the move leaves it empty (the organization folder above `from`).
    std::filesystem::path parent_to_remove;
};

struct FolderMoveResult {
    enum class Outcome {
        nothing_to_move,  // no old folder, the same folder, or moved by an earlier start
        moved,
        failed,  // nothing moved: the old folder is as it was
    };
    Outcome outcome = Outcome::nothing_to_move;
    int moved_files = 0;
    int duplicates = 0;  // already at the new place byte for byte: the old copy was dropped
    // Files both folders had with different bytes: the new place's file stays where it is (the
    // relative path), and the old one is kept beside it under the second name.
    std::vector<std::pair<std::filesystem::path, std::filesystem::path>> kept_both;
    int left_behind = 0;  // neither files, folders nor links (sockets, pipes): not moved
    std::string error;    // failed: what could not be moved, and why

    // One line for the move (and one per file kept under another name), without a trailing
    // newline; empty when there was nothing to move.
    std::vector<std::string> report(const FolderMove& move) const;
};

// The name that marks a finished move, in `to`: its text names the folder moved.
inline constexpr char kFolderMovedMarker[] = ".moved-from-earlier-folder";

// Moves `move.from` into `move.to`, once: after a finished move the marker in `to` says so, and
// a later call does nothing even if an older release wrote the old folder again. Two processes
// starting together take turns (a lock on the marker). Never throws.
FolderMoveResult move_folder(const FolderMove& move);

// The data and config folders of earlier releases, moved to data_root() and config_root();
// returns the lines to show ("earshot: ..."), none when there was nothing to move.
std::vector<std::string> move_legacy_folders();

}  // namespace earshot::app
