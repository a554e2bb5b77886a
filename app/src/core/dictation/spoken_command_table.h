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
    // `determiners`: words after which a phrase reads as a noun of the sentence ("a comma");
    // empty: the English ones.
    explicit CommandTable(std::vector<SpokenCommand> commands,
                          std::vector<std::string> determiners = {});

    // new line, new paragraph, comma, period, full stop, question mark, exclamation mark / point,
    // colon, semicolon, open quote, close quote, scratch that, undo that, cap, all caps, end caps.
    static CommandTable english_defaults();
    // neue Zeile, neuer Absatz, Komma, Punkt, Fragezeichen, Ausrufezeichen, Doppelpunkt,
    // Semikolon, Anführungszeichen auf / zu, streich das, rückgängig, Großbuchstabe, alles groß,
    // Ende groß; with German determiners.
    static CommandTable german_defaults();
    // à la ligne / nouvelle ligne, nouveau paragraphe, virgule, point final, point
    // d'interrogation, point d'exclamation, deux-points, point-virgule, ouvrez / fermez les
    // guillemets, efface ça, annule ça, majuscule, tout en majuscules, fin des majuscules; with
    // French determiners.
    static CommandTable french_defaults();
    // The built-in table for the dictation language: "de" German, "fr" French, anything else
    // (English, "auto", other languages) English.
    static CommandTable defaults_for_language(std::string_view language);
    // One `phrase<TAB>action` per line; empty lines and lines starting with '#' are skipped.
    // `source` names the text in errors. Throws CommandFileError ("source:line: problem").
    static CommandTable parse(std::string_view text, const std::string& source);
    static CommandTable load(const std::filesystem::path& path);

    const std::vector<SpokenCommand>& commands() const { return commands_; }
    // Whether `word` (normalized, lower case) is one of the table's determiners.
    bool is_determiner(std::string_view word) const;
    // The longest command whose phrase is words[0, n); null when none.
    const SpokenCommand* match(std::span<const std::string> words) const;
    // Some command's phrase is longer than `words` and starts with all of them: the words may
    // still become a command when the next ones arrive.
    bool could_extend(std::span<const std::string> words) const;

private:
    std::vector<SpokenCommand> commands_;
    std::vector<std::string> determiners_;
};

}  // namespace earshot::app
