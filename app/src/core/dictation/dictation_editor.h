// DictationEditor: applies the spoken-command table to committed dictation, piece by piece, before
// the text is shown, journaled or typed. Commands become punctuation, line breaks, capitals, or
// take back earlier text ("scratch that", "undo that"); each piece comes out as a TextEdit.
//
// A phrase inside an ordinary sentence stays words (README, "Spoken commands"):
//   - it matches whole words only, the model's punctuation around them aside, so a phrase the
//     model hyphenated into a longer word ("comma-separated", "new-line") is a word;
//   - a phrase right after a determiner ("a comma", "the period", "a new line") is a noun in a
//     sentence, unless the speaker paused at least command_pause_s before it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/dictation/spoken_command_table.h"
#include "core/dictation/text_edit.h"

namespace earshot::app {

// A committed word as the decoder wrote it (leading space, its own punctuation) and its times.
struct DictatedWord {
    std::string text;
    double start_s = 0.0;
    double end_s = 0.0;
};

struct DictationEditorOptions {
    // A pause this long between two words starts a new utterance ("scratch that" takes back one).
    double utterance_gap_s = 1.0;
    // A pause this long before a phrase makes it a command even after a determiner.
    double command_pause_s = 0.5;
    size_t undo_steps = 100;  // steps "undo that" can take back
};

class DictationEditor {
public:
    explicit DictationEditor(CommandTable table, DictationEditorOptions options = {});

    // The words one update committed. The last words that may still begin a longer command
    // ("new" before "line") wait for the next piece, unless `final`. Returns how the text changed.
    TextEdit commit(std::span<const DictatedWord> words, bool final);

    const std::string& text() const { return state_.text; }  // everything as it stands now
    int64_t commands_applied() const { return commands_applied_; }
    size_t held_words() const { return held_.size(); }  // waiting for the next piece

private:
    struct State {
        std::string text;
        std::vector<size_t> utterance_starts;  // byte offsets in text, oldest first
        bool capitalize_next = false;
        bool all_caps = false;
        bool glue_next = false;         // no space before the next word (after an open quote)
        bool utterance_pending = true;  // the next word starts an utterance
        bool in_word_step = false;      // the last step was words: more words join it
    };

    bool is_command_here(const std::vector<DictatedWord>& words, size_t at,
                         const std::string& previous_word) const;
    void apply(const SpokenCommand& command);
    void emit_word(const DictatedWord& word);
    void insert(const std::string& inserted);
    void begin_step();

    CommandTable table_;
    DictationEditorOptions options_;
    State state_;
    std::vector<State> history_;  // the state before each step, newest last
    std::vector<DictatedWord> held_;
    std::string previous_word_;  // the last word emitted, normalized; "" after a command
    double previous_end_s_ = -1.0;
    int64_t commands_applied_ = 0;
};

// A decoder's word as the table compares it: lower case, without the spaces, quotes and
// punctuation around it (inner hyphens and apostrophes stay).
std::string normalized_word(const std::string& word);

}  // namespace earshot::app
