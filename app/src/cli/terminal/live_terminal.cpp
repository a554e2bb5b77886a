// Terminal rendering of live updates.
#include "cli/terminal/live_terminal.h"

#include <algorithm>
#include <ostream>

#include "core/dictation/text_edit.h"

namespace earshot::app {

namespace {

constexpr const char* kEraseLine = "\r\x1b[K";
constexpr const char* kDim = "\x1b[2m";
constexpr const char* kReset = "\x1b[0m";

// Columns a UTF-8 string takes, counting code points (continuation bytes take none).
std::size_t columns_of(const std::string& text) {
    std::size_t n = 0;
    for (char c : text) n += (static_cast<unsigned char>(c) & 0xC0U) == 0x80U ? 0 : 1;
    return n;
}

// The last `columns` code points of `text`, behind an ellipsis when cut.
std::string tail_of(const std::string& text, std::size_t columns) {
    if (columns_of(text) <= columns) return text;
    if (columns == 0) return "";
    std::size_t keep = columns - 1;
    std::size_t at = text.size();
    while (at > 0 && keep > 0) {
        --at;
        if ((static_cast<unsigned char>(text[at]) & 0xC0U) != 0x80U) --keep;
    }
    return "\xE2\x80\xA6" + text.substr(at);  // "…"
}

}  // namespace

std::string strip_leading_space(const std::string& text) {
    return !text.empty() && text.front() == ' ' ? text.substr(1) : text;
}

LiveTerminal::LiveTerminal(std::ostream& out, bool redraw, std::size_t columns)
    : out_(out), redraw_(redraw), columns_(columns < 20 ? 20 : columns) {}

void LiveTerminal::draw_line() {
    out_ << kEraseLine << line_;
    const std::size_t used = columns_of(line_);
    if (!tentative_.empty() && used + 2 < columns_) {
        std::string tail = tentative_;
        if (line_.empty()) tail = strip_leading_space(tail);
        out_ << kDim << tail_of(tail, columns_ - used - 1) << kReset;
    }
    out_.flush();
    line_started_ = true;
}

void LiveTerminal::show(const LiveUpdate& update) {
    std::string committed = update.update.committed_text;
    // Spoken commands took back earlier text ("scratch that").
    const std::size_t erased = std::min(update.erased_chars, columns_of(transcript_));
    apply_text_edit(transcript_, {erased, ""});
    if (transcript_.empty()) committed = strip_leading_space(committed);
    transcript_ += committed;
    tentative_ = update.update.tentative_text;
    if (!redraw_) {
        // A stream of typing: a backspace takes back one character.
        if (erased > 0) out_ << std::string(erased, '\b');
        if (!committed.empty()) out_ << committed;
        if (erased > 0 || !committed.empty()) out_.flush();
        return;
    }
    if (erased > 0) {
        const std::size_t on_line = std::min(erased, columns_of(line_));
        apply_text_edit(line_, {on_line, ""});
        if (erased > on_line) {
            // Lines already ended are not redrawn: say what they lost.
            out_ << kEraseLine << kDim << "[" << erased - on_line << " characters above taken back]"
                 << kReset << "\n";
        }
    }
    // Whole words onto the line; a full line is ended and a new one begun, as is a line break
    // the text itself holds.
    std::size_t at = 0;
    while (at < committed.size()) {
        if (committed[at] == '\n') {
            out_ << kEraseLine << line_ << "\n";
            line_.clear();
            ++at;
            continue;
        }
        std::size_t next = committed.find_first_of(" \n", at + 1);
        if (next == std::string::npos) next = committed.size();
        std::string word = committed.substr(at, next - at);
        if (!line_.empty() && columns_of(line_) + columns_of(word) >= columns_) {
            out_ << kEraseLine << line_ << "\n";
            line_.clear();
            word = strip_leading_space(word);
        }
        line_ += word;
        at = next;
    }
    draw_line();
}

void LiveTerminal::close() {
    if (redraw_) {
        tentative_.clear();
        if (line_started_) {
            out_ << kEraseLine << line_ << "\n";
        }
    } else if (!transcript_.empty()) {
        out_ << "\n";
    }
    out_.flush();
}

}  // namespace earshot::app
