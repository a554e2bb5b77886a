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

CommandTable::CommandTable(std::vector<SpokenCommand> commands) : commands_(std::move(commands)) {}

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
    std::vector<SpokenCommand> commands;
    for (const auto& [phrase, action] : table) {
        std::string why;
        commands.push_back({phrase_words(phrase), parse_command_action(action, why)});
    }
    return CommandTable(std::move(commands));
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
