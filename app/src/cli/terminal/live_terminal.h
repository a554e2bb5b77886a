// LiveTerminal: the terminal front end of live dictation. Committed text is printed as it is
// committed; on a terminal the tentative tail is redrawn greyed after it on the current line.
#pragma once

#include <cstddef>
#include <iosfwd>
#include <string>

#include "earshot/core/live_controller.h"

namespace earshot::app {

class LiveTerminal {
public:
    // `redraw`: the stream is a terminal of `columns` columns that understands ANSI (CR, erase
    // line, dim); otherwise only committed text is written, as it comes.
    LiveTerminal(std::ostream& out, bool redraw, std::size_t columns);

    void show(const LiveUpdate& update);
    // Clears the tentative tail and ends the line.
    void close();

    const std::string& transcript() const { return transcript_; }

private:
    void draw_line();

    std::ostream& out_;
    bool redraw_;
    std::size_t columns_;
    std::string transcript_;  // all committed text
    std::string line_;        // committed text on the current terminal line
    std::string tentative_;
    bool line_started_ = false;  // something was written on the current line
};

// Committed text with its leading space removed at the very start of a transcript.
std::string strip_leading_space(const std::string& text);

}  // namespace earshot::app
