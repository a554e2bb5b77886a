// DictationEditor: matching phrases in committed words, and what each action does to the text.
#include "core/dictation/dictation_editor.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <string_view>
#include <utility>

namespace earshot::app {

namespace {

constexpr std::string_view kTrimmed = " \t\n.,?!:;\"'()";
constexpr std::string_view kClosing = ".,?!:;)]}%";
constexpr std::string_view kSentenceEnd = ".?!";
constexpr std::string_view kOpening = "([{";

// German quotation marks (the German table's): the opening one joins the next word, the closing
// one the word before.
constexpr std::string_view kLowOpeningQuote = "\u201e";
constexpr std::string_view kClosingQuote = "\u201c";

bool ends_sentence(const std::string& text) {
    size_t end = text.find_last_not_of("\"')");
    return end != std::string::npos && kSentenceEnd.find(text[end]) != std::string_view::npos;
}

void strip_trailing_blanks(std::string& text) {
    while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.pop_back();
}

std::string upper(std::string text) {
    for (char& c : text) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return text;
}

std::string capitalized(std::string text) {
    for (char& c : text) {
        if (std::isalpha(static_cast<unsigned char>(c)) != 0) {
            c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
            break;
        }
        if (static_cast<unsigned char>(c) >= 0x80U) break;  // not ASCII: left as written
    }
    return text;
}

}  // namespace

std::string normalized_word(const std::string& word) {
    const size_t begin = word.find_first_not_of(kTrimmed);
    if (begin == std::string::npos) return {};
    const size_t end = word.find_last_not_of(kTrimmed);
    std::string out = word.substr(begin, end - begin + 1);
    for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

DictationEditor::DictationEditor(CommandTable table, DictationEditorOptions options)
    : table_(std::move(table)), options_(options) {}

TextEdit DictationEditor::commit(std::span<const DictatedWord> words, bool final) {
    const std::string before = state_.text;
    std::vector<DictatedWord> all = std::move(held_);
    held_.clear();
    all.insert(all.end(), words.begin(), words.end());
    std::vector<std::string> norm;
    norm.reserve(all.size());
    for (const DictatedWord& word : all) norm.push_back(normalized_word(word.text));

    size_t at = 0;
    while (at < all.size()) {
        const std::span<const std::string> rest(norm.data() + at, norm.size() - at);
        if (!final && table_.could_extend(rest)) {
            held_.assign(all.begin() + static_cast<std::ptrdiff_t>(at), all.end());
            break;
        }
        const SpokenCommand* command = table_.match(rest);
        if (command != nullptr && is_command_here(all, at, previous_word_)) {
            apply(*command);
            at += command->words.size();
            previous_word_.clear();
            previous_end_s_ = all[at - 1].end_s;
            continue;
        }
        emit_word(all[at]);
        previous_word_ = norm[at];
        previous_end_s_ = all[at].end_s;
        ++at;
    }
    return text_edit_between(before, state_.text);
}

bool DictationEditor::is_command_here(const std::vector<DictatedWord>& words, size_t at,
                                      const std::string& previous_word) const {
    if (!table_.is_determiner(previous_word)) return true;
    // "a comma": a noun, unless the speaker stopped before it.
    return previous_end_s_ >= 0.0 &&
           words[at].start_s - previous_end_s_ >= options_.command_pause_s;
}

void DictationEditor::begin_step() {
    history_.push_back(state_);
    if (history_.size() > options_.undo_steps) history_.erase(history_.begin());
}

void DictationEditor::emit_word(const DictatedWord& word) {
    const size_t begin = word.text.find_first_not_of(" \t");
    if (begin == std::string::npos) return;
    std::string text = word.text.substr(begin);
    State& s = state_;
    const bool paused =
        previous_end_s_ >= 0.0 && word.start_s - previous_end_s_ >= options_.utterance_gap_s;
    if (s.utterance_pending || paused || s.utterance_starts.empty()) {
        begin_step();
        s.utterance_starts.push_back(s.text.size());
        s.utterance_pending = false;
        s.in_word_step = true;
    } else if (!s.in_word_step) {
        begin_step();
        s.in_word_step = true;
    }
    const bool joined = s.text.empty() || s.text.back() == '\n' || s.glue_next;
    if (s.all_caps) {
        text = upper(std::move(text));
    } else if (s.capitalize_next) {
        text = capitalized(std::move(text));
    }
    s.capitalize_next = false;
    s.glue_next = false;
    s.text += (joined ? "" : " ") + text;
    if (ends_sentence(text)) s.utterance_pending = true;
}

void DictationEditor::insert(const std::string& inserted) {
    State& s = state_;
    const bool quote = inserted == "\"";
    const bool closing_quote = (quote && std::count(s.text.begin(), s.text.end(), '"') % 2 == 1) ||
                               inserted == kClosingQuote;
    if (closing_quote || kClosing.find(inserted.front()) != std::string_view::npos) {
        strip_trailing_blanks(s.text);
        // The command's punctuation replaces what the model wrote there itself ("Hello," comma).
        const bool punctuation = kClosing.substr(0, 6).find(inserted.front()) != std::string::npos;
        if (punctuation && !s.text.empty() &&
            kClosing.substr(0, 6).find(s.text.back()) != std::string_view::npos) {
            s.text.pop_back();
        }
        s.text += inserted;
        s.glue_next = false;
        if (ends_sentence(inserted)) {
            s.capitalize_next = true;
            s.utterance_pending = true;
        }
        return;
    }
    const bool joined = s.text.empty() || s.text.back() == '\n' || s.glue_next;
    s.text += (joined ? "" : " ") + inserted;
    s.glue_next = quote || inserted == kLowOpeningQuote ||
                  kOpening.find(inserted.back()) != std::string_view::npos;
}

void DictationEditor::apply(const SpokenCommand& command) {
    ++commands_applied_;
    if (command.action.kind == CommandActionKind::undo) {
        if (!history_.empty()) {
            state_ = std::move(history_.back());
            history_.pop_back();
        }
        state_.in_word_step = false;
        return;
    }
    begin_step();
    State& s = state_;
    s.in_word_step = false;
    switch (command.action.kind) {
        case CommandActionKind::insert:
            insert(command.action.text);
            break;
        case CommandActionKind::newline:
        case CommandActionKind::paragraph:
            strip_trailing_blanks(s.text);
            s.text += command.action.kind == CommandActionKind::newline ? "\n" : "\n\n";
            s.capitalize_next = true;
            s.glue_next = false;
            s.utterance_pending = true;
            break;
        case CommandActionKind::delete_last_utterance:
            if (!s.utterance_starts.empty()) {
                s.text.resize(s.utterance_starts.back());
                s.utterance_starts.pop_back();
            }
            s.glue_next = false;
            s.utterance_pending = true;
            break;
        case CommandActionKind::capitalize_next:
            s.capitalize_next = true;
            break;
        case CommandActionKind::all_caps_on:
            s.all_caps = true;
            break;
        case CommandActionKind::all_caps_off:
            s.all_caps = false;
            break;
        case CommandActionKind::undo:
            break;
    }
}

}  // namespace earshot::app
