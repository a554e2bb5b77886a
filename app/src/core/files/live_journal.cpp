// LiveJournal: an O_APPEND file descriptor, one write() and one fsync() per committed piece, so
// that what append() returned from is on disk whatever happens to the process next.
#include "core/files/live_journal.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>

#include "core/dictation/text_edit.h"

namespace earshot::app {
namespace {

constexpr char kBackspace = '\b';
constexpr std::string_view kSessionPrefix = "--- earshot live ";
constexpr std::string_view kSessionSuffix = " ---";

// Length of the valid UTF-8 sequence starting at `at`, 0 when it is not one (RFC 3629: no
// overlong forms, no surrogates, nothing above U+10FFFF).
std::size_t utf8_sequence_length(std::string_view s, std::size_t at) {
    const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(s[at + i]); };
    const unsigned char lead = byte(0);
    std::size_t length = 0;
    unsigned char low = 0x80;
    unsigned char high = 0xBF;
    if (lead < 0x80) return 1;
    if (lead >= 0xC2 && lead <= 0xDF) {
        length = 2;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
        length = 3;
        if (lead == 0xE0) low = 0xA0;
        if (lead == 0xED) high = 0x9F;
    } else if (lead >= 0xF0 && lead <= 0xF4) {
        length = 4;
        if (lead == 0xF0) low = 0x90;
        if (lead == 0xF4) high = 0x8F;
    } else {
        return 0;
    }
    if (at + length > s.size()) return 0;
    if (byte(1) < low || byte(1) > high) return 0;
    for (std::size_t i = 2; i < length; ++i) {
        if (byte(i) < 0x80 || byte(i) > 0xBF) return 0;
    }
    return length;
}

std::string valid_utf8(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    for (std::size_t at = 0; at < s.size();) {
        const std::size_t length = utf8_sequence_length(s, at);
        if (length == 0) {
            ++at;  // a torn or foreign byte: dropped
        } else {
            out.append(s.substr(at, length));
            at += length;
        }
    }
    return out;
}

// The start time of a session line (without its newline), or nothing when `line` is not one.
bool session_line_stamp(std::string_view line, std::string_view& stamp) {
    if (line.size() <= kSessionPrefix.size() + kSessionSuffix.size()) return false;
    if (line.substr(0, kSessionPrefix.size()) != kSessionPrefix) return false;
    if (line.substr(line.size() - kSessionSuffix.size()) != kSessionSuffix) return false;
    stamp = line.substr(kSessionPrefix.size(),
                        line.size() - kSessionPrefix.size() - kSessionSuffix.size());
    return true;
}

// Each backspace takes back the character before it (spoken commands' erasures).
std::string with_backspaces_applied(const std::string& text) {
    if (text.find(kBackspace) == std::string::npos) return text;
    std::string out;
    for (const char c : text) {
        if (c == kBackspace) {
            apply_text_edit(out, {1, ""});
        } else {
            out += c;
        }
    }
    return out;
}

std::string system_reason(int error_number) { return std::strerror(error_number); }

}  // namespace

std::string live_journal_session_line(std::string_view started_utc) {
    std::string line(kSessionPrefix);
    line += started_utc;
    line += kSessionSuffix;
    line += '\n';
    return line;
}

std::vector<LiveJournalSession> parse_live_journal(std::string_view bytes) {
    std::vector<LiveJournalSession> sessions;
    // Text since the last session line (or the start), as raw bytes.
    std::size_t text_begin = 0;
    bool open = false;  // a session line (or leading foreign text) is being collected
    std::string stamp_of_open;
    auto close = [&](std::size_t text_end) {
        if (!open && text_end == text_begin) return;  // nothing before the first session line
        sessions.push_back({stamp_of_open, with_backspaces_applied(valid_utf8(
                                               bytes.substr(text_begin, text_end - text_begin)))});
    };
    for (std::size_t line_begin = 0; line_begin < bytes.size();) {
        const std::size_t newline = bytes.find('\n', line_begin);
        const std::size_t line_end = newline == std::string_view::npos ? bytes.size() : newline;
        std::string_view stamp;
        // A session line always follows a newline the writer put there (or starts the file).
        if (session_line_stamp(bytes.substr(line_begin, line_end - line_begin), stamp)) {
            // The newline before it is the writer's separator, not text; a session line right
            // after another one ends an empty session.
            close(line_begin > text_begin ? line_begin - 1 : text_begin);
            open = true;
            stamp_of_open = valid_utf8(stamp);
            text_begin = newline == std::string_view::npos ? bytes.size() : newline + 1;
        }
        if (newline == std::string_view::npos) break;
        line_begin = newline + 1;
    }
    close(bytes.size());
    return sessions;
}

LiveJournal::LiveJournal(std::filesystem::path path, std::string_view started_utc)
    : path_(std::move(path)) {
    fd_ = ::open(path_.c_str(), O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC, 0666);
    if (fd_ < 0) {
        throw LiveJournalError("cannot open journal " + path_.string() + ": " +
                               system_reason(errno));
    }
    std::string existing;
    char buffer[65536];
    for (;;) {
        const ssize_t n = ::pread(fd_, buffer, sizeof(buffer), static_cast<off_t>(existing.size()));
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            const int error = errno;
            ::close(fd_);
            throw LiveJournalError("cannot read journal " + path_.string() + ": " +
                                   system_reason(error));
        }
        if (n == 0) break;
        existing.append(buffer, static_cast<std::size_t>(n));
    }
    earlier_ = parse_live_journal(existing);
    try {
        append((existing.empty() ? std::string() : std::string("\n")) +
               live_journal_session_line(started_utc));
    } catch (...) {
        ::close(fd_);
        throw;
    }
}

LiveJournal::~LiveJournal() {
    if (fd_ >= 0) ::close(fd_);
}

void LiveJournal::write_all(std::string_view bytes) {
    while (!bytes.empty()) {
        const ssize_t n = ::write(fd_, bytes.data(), bytes.size());
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            throw LiveJournalError("cannot write journal " + path_.string() + ": " +
                                   system_reason(errno));
        }
        bytes.remove_prefix(static_cast<std::size_t>(n));
    }
}

void LiveJournal::append(std::string_view committed, std::size_t erased_chars) {
    if (committed.empty() && erased_chars == 0) return;
    // One write: a crash keeps the erasure and its replacement together or neither.
    std::string bytes(erased_chars, kBackspace);
    bytes += committed;
    write_all(bytes);
    if (::fsync(fd_) != 0) {
        throw LiveJournalError("cannot write journal " + path_.string() +
                               " to disk: " + system_reason(errno));
    }
}

std::string utc_now_iso8601() {
    const std::time_t now = std::time(nullptr);
    std::tm utc{};
    gmtime_r(&now, &utc);
    char text[32];
    std::strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%SZ", &utc);
    return text;
}

}  // namespace earshot::app
