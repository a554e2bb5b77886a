// The command table: the defaults, the file format and phrase matching.
#include "core/dictation/spoken_command_table.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <sstream>
#include <utility>

namespace earshot::app {

namespace {

struct ActionName {
    std::string_view name;
    CommandActionKind kind;
};

constexpr ActionName kActionNames[] = {
    {"newline", CommandActionKind::newline},
    {"paragraph", CommandActionKind::paragraph},
    {"delete-last-utterance", CommandActionKind::delete_last_utterance},
    {"undo", CommandActionKind::undo},
    {"capitalize-next", CommandActionKind::capitalize_next},
    {"all-caps-on", CommandActionKind::all_caps_on},
    {"all-caps-off", CommandActionKind::all_caps_off},
};

// `insert:` text with \n, \t and \\ spelled out.
std::string unescape(std::string_view text) {
    std::string out;
    for (size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '\\' && i + 1 < text.size()) {
            const char next = text[i + 1];
            if (next == 'n' || next == 't' || next == '\\') {
                out += next == 'n' ? '\n' : next == 't' ? '\t' : '\\';
                ++i;
                continue;
            }
        }
        out += text[i];
    }
    return out;
}

bool prefix_of(std::span<const std::string> words, const std::vector<std::string>& phrase) {
    return words.size() <= phrase.size() && std::equal(words.begin(), words.end(), phrase.begin());
}

}  // namespace

CommandAction parse_command_action(std::string_view action, std::string& why) {
    why.clear();
    constexpr std::string_view kInsert = "insert:";
    if (action.substr(0, kInsert.size()) == kInsert) {
        std::string text = unescape(action.substr(kInsert.size()));
        if (text.empty()) why = "insert: needs the text to insert (insert:TEXT)";
        return {CommandActionKind::insert, std::move(text)};
    }
    for (const ActionName& known : kActionNames) {
        if (action == known.name) return {known.kind, {}};
    }
    why = "unknown action \"" + std::string(action) +
          "\" (insert:TEXT, newline, paragraph, delete-last-utterance, undo, capitalize-next, "
          "all-caps-on, all-caps-off)";
    return {};
}

std::vector<std::string> phrase_words(std::string_view phrase) {
    std::vector<std::string> words;
    std::string word;
    for (const char c : phrase) {
        if (std::isspace(static_cast<unsigned char>(c)) != 0) {
            if (!word.empty()) words.push_back(std::move(word));
            word.clear();
        } else {
            word += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        }
    }
    if (!word.empty()) words.push_back(std::move(word));
    return words;
}

namespace {

using PhraseTable = std::span<const std::pair<std::string_view, std::string_view>>;

std::vector<SpokenCommand> built_in(PhraseTable table) {
    std::vector<SpokenCommand> commands;
    for (const auto& [phrase, action] : table) {
        std::string why;
        commands.push_back({phrase_words(phrase), parse_command_action(action, why)});
    }
    return commands;
}

std::vector<std::string> words_of(std::span<const std::string_view> words) {
    return {words.begin(), words.end()};
}

// Words after which a command phrase reads as a noun of the sentence ("a comma", "den Punkt",
// "un point").
constexpr std::string_view kEnglishDeterminers[] = {
    "a",   "an",  "the",   "this", "that", "these", "those", "my", "your", "his",
    "her", "our", "their", "its",  "one",  "every", "each",  "no", "any",  "another"};
constexpr std::string_view kGermanDeterminers[] = {
    "der",   "die",   "das",   "den",    "dem",   "des",    "ein",    "eine",
    "einen", "einem", "einer", "eines",  "kein",  "keine",  "mein",   "meine",
    "dein",  "deine", "sein",  "seine",  "ihr",   "ihre",   "unser",  "unsere",
    "jeder", "jede",  "jedes", "dieser", "diese", "dieses", "diesen", "diesem"};
constexpr std::string_view kFrenchDeterminers[] = {
    "le",  "la",    "les",   "un",    "une",  "des",   "du",     "au",    "aux",   "ce",
    "cet", "cette", "ces",   "mon",   "ma",   "mes",   "ton",    "ta",    "tes",   "son",
    "sa",  "ses",   "notre", "votre", "leur", "leurs", "chaque", "aucun", "aucune"};

}  // namespace

CommandTable::CommandTable(std::vector<SpokenCommand> commands,
                           std::vector<std::string> determiners)
    : commands_(std::move(commands)),
      determiners_(determiners.empty() ? words_of(kEnglishDeterminers) : std::move(determiners)) {}

bool CommandTable::is_determiner(std::string_view word) const {
    return std::find(determiners_.begin(), determiners_.end(), word) != determiners_.end();
}

CommandTable CommandTable::english_defaults() {
    const std::pair<std::string_view, std::string_view> table[] = {
        {"new line", "newline"},
        {"new paragraph", "paragraph"},
        {"comma", "insert:,"},
        {"period", "insert:."},
        {"full stop", "insert:."},
        {"question mark", "insert:?"},
        {"exclamation mark", "insert:!"},
        {"exclamation point", "insert:!"},
        {"colon", "insert::"},
        {"semicolon", "insert:;"},
        {"open quote", "insert:\""},
        {"close quote", "insert:\""},
        {"scratch that", "delete-last-utterance"},
        {"undo that", "undo"},
        {"cap", "capitalize-next"},
        {"all caps", "all-caps-on"},
        {"end caps", "all-caps-off"},
    };
    return CommandTable(built_in(table), words_of(kEnglishDeterminers));
}

CommandTable CommandTable::german_defaults() {
    const std::pair<std::string_view, std::string_view> table[] = {
        {"neue zeile", "newline"},
        {"neuer absatz", "paragraph"},
        {"komma", "insert:,"},
        {"punkt", "insert:."},
        {"fragezeichen", "insert:?"},
        {"ausrufezeichen", "insert:!"},
        {"doppelpunkt", "insert::"},
        {"semikolon", "insert:;"},
        {"anführungszeichen auf", "insert:\u201e"},
        {"anführungszeichen zu", "insert:\u201c"},
        {"streich das", "delete-last-utterance"},
        {"lösch das", "delete-last-utterance"},
        {"rückgängig", "undo"},
        {"großbuchstabe", "capitalize-next"},
        {"alles groß", "all-caps-on"},
        {"ende groß", "all-caps-off"},
    };
    return CommandTable(built_in(table), words_of(kGermanDeterminers));
}

CommandTable CommandTable::french_defaults() {
    const std::pair<std::string_view, std::string_view> table[] = {
        {"à la ligne", "newline"},
        {"nouvelle ligne", "newline"},
        {"nouveau paragraphe", "paragraph"},
        {"virgule", "insert:,"},
        {"point final", "insert:."},
        {"point d'interrogation", "insert:?"},
        {"point d'exclamation", "insert:!"},
        {"point d\u2019interrogation", "insert:?"},  // Whisper writes either apostrophe
        {"point d\u2019exclamation", "insert:!"},
        {"deux-points", "insert::"},
        {"deux points", "insert::"},
        {"point-virgule", "insert:;"},
        {"point virgule", "insert:;"},
        {"ouvrez les guillemets", "insert:\u00ab"},
        {"fermez les guillemets", "insert:\u00bb"},
        {"efface ça", "delete-last-utterance"},
        {"annule ça", "undo"},
        {"majuscule", "capitalize-next"},
        {"tout en majuscules", "all-caps-on"},
        {"fin des majuscules", "all-caps-off"},
    };
    return CommandTable(built_in(table), words_of(kFrenchDeterminers));
}

CommandTable CommandTable::defaults_for_language(std::string_view language) {
    if (language == "de") return german_defaults();
    if (language == "fr") return french_defaults();
    return english_defaults();
}

CommandTable CommandTable::parse(std::string_view text, const std::string& source) {
    std::vector<SpokenCommand> commands;
    size_t line_number = 0;
    size_t at = 0;
    while (at < text.size()) {
        size_t end = text.find('\n', at);
        if (end == std::string_view::npos) end = text.size();
        std::string_view line = text.substr(at, end - at);
        at = end + 1;
        ++line_number;
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        const auto fail = [&](const std::string& problem) {
            throw CommandFileError(source + ":" + std::to_string(line_number) + ": " + problem);
        };
        if (line.find_first_not_of(" \t") == std::string_view::npos || line.front() == '#') {
            continue;
        }
        const size_t tab = line.find('\t');
        if (tab == std::string_view::npos) fail("expected phrase<TAB>action, found no tab");
        std::vector<std::string> words = phrase_words(line.substr(0, tab));
        if (words.empty()) fail("the phrase before the tab is empty");
        std::string why;
        CommandAction action = parse_command_action(line.substr(tab + 1), why);
        if (!why.empty()) fail(why);
        for (const SpokenCommand& earlier : commands) {
            if (earlier.words == words) fail("the phrase is already in the table");
        }
        commands.push_back({std::move(words), std::move(action)});
    }
    if (commands.empty()) throw CommandFileError(source + ": no commands in the file");
    return CommandTable(std::move(commands));
}

CommandTable CommandTable::load(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw CommandFileError(path.string() + ": cannot be read");
    std::ostringstream text;
    text << in.rdbuf();
    return parse(text.str(), path.string());
}

const SpokenCommand* CommandTable::match(std::span<const std::string> words) const {
    const SpokenCommand* best = nullptr;
    for (const SpokenCommand& command : commands_) {
        const size_t n = command.words.size();
        if (n > words.size() || (best != nullptr && n <= best->words.size())) continue;
        if (std::equal(command.words.begin(), command.words.end(), words.begin())) best = &command;
    }
    return best;
}

bool CommandTable::could_extend(std::span<const std::string> words) const {
    return std::any_of(commands_.begin(), commands_.end(), [&](const SpokenCommand& command) {
        return command.words.size() > words.size() && prefix_of(words, command.words);
    });
}

}  // namespace earshot::app
