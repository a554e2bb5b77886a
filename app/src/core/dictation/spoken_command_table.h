// The spoken-command table of dictation: phrases ("new line", "comma", "scratch that") and the
// action each stands for, the built-in English defaults, and the `phrase<TAB>action` file that
// replaces them (`earshot live --commands FILE`).
#pragma once

#include <cstddef>
#include <filesystem>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace earshot::app {

enum class CommandActionKind {
    insert,                 // `insert:TEXT`: TEXT, spaced as punctuation or as a word
    newline,                // `newline`
    paragraph,              // `paragraph`: a blank line
    delete_last_utterance,  // `delete-last-utterance`: "scratch that"
    undo,                   // `undo`: takes back the last step (a command, or the words since one)
    capitalize_next,        // `capitalize-next`: "cap hello" -> "Hello"
    all_caps_on,            // `all-caps-on`: words in capitals until all-caps-off
    all_caps_off,           // `all-caps-off`
};

struct CommandAction {
    CommandActionKind kind = CommandActionKind::insert;
    std::string text;  // what `insert` inserts; empty for the other kinds
};

struct SpokenCommand {
    std::vector<std::string> words;  // the phrase, lower case, one entry per word
    CommandAction action;
};

// A commands file that cannot be used: "FILE:LINE: the problem" (or "FILE: ..." when it cannot be
// read), one line.
class CommandFileError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// `action` as a file writes it ("insert:,", "newline", ...); empty `why` on success, else the
// problem in words.
CommandAction parse_command_action(std::string_view action, std::string& why);
// A phrase as the table keeps it: lower case ASCII, split at spaces.
std::vector<std::string> phrase_words(std::string_view phrase);

class CommandTable {
public:
    CommandTable() = default;
    explicit CommandTable(std::vector<SpokenCommand> commands);

    // new line, new paragraph, comma, period, full stop, question mark, exclamation mark / point,
    // colon, semicolon, open quote, close quote, scratch that, undo that, cap, all caps, end caps.
    static CommandTable english_defaults();
    // One `phrase<TAB>action` per line; empty lines and lines starting with '#' are skipped.
    // `source` names the text in errors. Throws CommandFileError ("source:line: problem").
    static CommandTable parse(std::string_view text, const std::string& source);
    static CommandTable load(const std::filesystem::path& path);

    const std::vector<SpokenCommand>& commands() const { return commands_; }
    // The longest command whose phrase is words[0, n); null when none.
    const SpokenCommand* match(std::span<const std::string> words) const;
    // Some command's phrase is longer than `words` and starts with all of them: the words may
    // still become a command when the next ones arrive.
    bool could_extend(std::span<const std::string> words) const;

private:
    std::vector<SpokenCommand> commands_;
};

}  // namespace earshot::app
