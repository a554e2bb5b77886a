// LiveTerminal: piped output is the committed text alone; on a terminal the tentative tail is
// redrawn greyed after the committed text of the current line, and full lines are ended.
#include "cli/terminal/live_terminal.h"

#include <gtest/gtest.h>

#include <sstream>
#include <string>

namespace earshot::app {
namespace {

LiveUpdate update(const std::string& committed, const std::string& tentative) {
    LiveUpdate u;
    u.update.committed_text = committed;
    u.update.tentative_text = tentative;
    return u;
}

TEST(LiveTerminal, PipedOutputIsTheCommittedTextOnly) {
    std::ostringstream out;
    LiveTerminal terminal(out, false, 80);
    terminal.show(update("", " hello"));
    terminal.show(update(" Hello", " world how"));
    terminal.show(update(" world,", " how are"));
    terminal.close();
    EXPECT_EQ(out.str(), "Hello world,\n");
    EXPECT_EQ(terminal.transcript(), "Hello world,");
}

TEST(LiveTerminal, ATerminalRedrawsTheGreyTailAndWrapsWholeWords) {
    std::ostringstream out;
    LiveTerminal terminal(out, true, 24);
    terminal.show(update(" One two", " three"));
    EXPECT_EQ(out.str(), "\r\x1b[KOne two\x1b[2m three\x1b[0m");
    out.str("");
    terminal.show(update(" three four five six", " seven"));
    // "One two three four five" is 23 columns: " six" goes to a new line.
    EXPECT_EQ(out.str(), "\r\x1b[KOne two three four five\n\r\x1b[Ksix\x1b[2m seven\x1b[0m");
    out.str("");
    terminal.close();
    EXPECT_EQ(out.str(), "\r\x1b[Ksix\n");
    EXPECT_EQ(terminal.transcript(), "One two three four five six");
}

TEST(LiveTerminal, ALongTentativeTailShowsItsEnd) {
    std::ostringstream out;
    LiveTerminal terminal(out, true, 20);
    terminal.show(update(" Hi", " a very long tentative tail here"));
    const std::string shown = out.str();
    EXPECT_NE(shown.find("\xE2\x80\xA6"), std::string::npos) << shown;
    EXPECT_NE(shown.find("tail here"), std::string::npos) << shown;
}

}  // namespace
}  // namespace earshot::app
