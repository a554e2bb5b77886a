// The `earshot live --journal FILE` transcript: committed text appended and fsynced as it is
// committed, one session after another, so that SIGKILL or a power cut loses none of it; and the
// reader that reopens it.
#pragma once

#include <cstddef>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace earshot::app {

// A journal that cannot be opened or written; the message names the file and the reason.
class LiveJournalError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Format (UTF-8 text): each run starts a session with a line of its own,
//   --- earshot live 2026-12-01T07:15:00Z ---
// followed by the committed text exactly as it was committed (the pieces concatenated, usually
// each with its leading space). A backspace (U+0008) takes back the character before it: spoken
// commands ("scratch that") erase what was journaled, and the reader applies it. A file written by
// anything else is read as one session without a start time; a session torn by a crash in the
// middle of a character loses only that character.
struct LiveJournalSession {
    std::string started_utc;  // "2026-12-01T07:15:00Z"; empty for text before any session line
    std::string text;         // the committed text, valid UTF-8
};

// The session line for `started_utc`, newline included.
std::string live_journal_session_line(std::string_view started_utc);

// Every session of a journal's bytes, in order. Never throws: invalid UTF-8 is dropped (a torn
// last character) and an empty input has no sessions.
std::vector<LiveJournalSession> parse_live_journal(std::string_view bytes);

// An open journal: the constructor reads what is there (sessions()), then appends a new session
// line, never truncating. append() writes and fsyncs before it returns.
class LiveJournal {
public:
    // Creates the file (and nothing else: the folder must exist). Throws LiveJournalError.
    LiveJournal(std::filesystem::path path, std::string_view started_utc);
    ~LiveJournal();
    LiveJournal(const LiveJournal&) = delete;
    LiveJournal& operator=(const LiveJournal&) = delete;

    // Appends `erased_chars` backspaces and `committed`, and fsyncs the file. Throws
    // LiveJournalError.
    void append(std::string_view committed, std::size_t erased_chars = 0);

    const std::filesystem::path& path() const { return path_; }
    // The sessions the file held when it was opened (earlier runs).
    const std::vector<LiveJournalSession>& earlier_sessions() const { return earlier_; }

private:
    void write_all(std::string_view bytes);

    std::filesystem::path path_;
    int fd_ = -1;
    std::vector<LiveJournalSession> earlier_;
};

// Now as "YYYY-MM-DDTHH:MM:SSZ".
std::string utc_now_iso8601();

}  // namespace earshot::app
