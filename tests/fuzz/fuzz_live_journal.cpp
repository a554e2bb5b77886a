// Fuzz target for parse_live_journal, which reads back the `earshot live --journal` file on the
// next start (the file may be torn by a crash or written by anything else). It never throws; every
// session holds valid UTF-8, and a journal written by the writer reads back exactly.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "core/files/live_journal.h"

namespace {

void require(bool condition, const char* what) {
    if (!condition) {
        std::fprintf(stderr, "live journal invariant broken: %s\n", what);
        std::abort();
    }
}

bool is_valid_utf8(std::string_view s) {
    std::size_t at = 0;
    while (at < s.size()) {
        const auto lead = static_cast<unsigned char>(s[at]);
        std::size_t length = lead < 0x80   ? 1
                             : lead < 0xC2 ? 0
                             : lead < 0xE0 ? 2
                             : lead < 0xF0 ? 3
                             : lead < 0xF5 ? 4
                                           : 0;
        if (length == 0 || at + length > s.size()) return false;
        uint32_t code = length == 1 ? lead : lead & (0x7Fu >> length);
        for (std::size_t i = 1; i < length; ++i) {
            const auto next = static_cast<unsigned char>(s[at + i]);
            if ((next & 0xC0) != 0x80) return false;
            code = (code << 6) | (next & 0x3Fu);
        }
        static constexpr uint32_t smallest[] = {0, 0, 0x80, 0x800, 0x10000};
        if (code < smallest[length] || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) {
            return false;
        }
        at += length;
    }
    return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using earshot::app::parse_live_journal;
    const std::string_view bytes(reinterpret_cast<const char*>(data), size);
    const auto sessions = parse_live_journal(bytes);
    std::size_t text_bytes = 0;
    for (const auto& session : sessions) {
        require(is_valid_utf8(session.text), "session text is valid UTF-8");
        require(is_valid_utf8(session.started_utc), "session start is valid UTF-8");
        require(session.started_utc.find('\n') == std::string::npos, "a start is one line");
        text_bytes += session.text.size();
    }
    require(text_bytes <= size, "sessions hold no more than the input");
    require(size == 0 || !sessions.empty(), "a non-empty journal has a session");

    // The input's text, cut into lines, written as two sessions by the writer's rules reads back
    // as those two sessions (when no line of it looks like a session line itself).
    const std::string text = sessions.empty() ? std::string() : sessions.front().text;
    if (text.find("--- earshot live ") == std::string::npos) {
        const std::string journal = earshot::app::live_journal_session_line("A") + text + "\n" +
                                    earshot::app::live_journal_session_line("B") + text;
        const auto again = parse_live_journal(journal);
        require(again.size() == 2, "two sessions written, two read");
        require(again[0].started_utc == "A" && again[1].started_utc == "B", "starts read back");
        require(again[0].text == text && again[1].text == text, "texts read back");
    }
    return 0;
}
