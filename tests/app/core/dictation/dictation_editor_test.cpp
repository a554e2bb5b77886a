// DictationEditor with the English defaults on dictated sentences as the decoder writes them
// (leading spaces, its own capitals and punctuation), one piece or several.
#include "core/dictation/dictation_editor.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace earshot::app {
namespace {

// Words of `sentence` 0.3 s long with 0.1 s between them; "|" is a 1.5 s pause (a new
// utterance), "~" a 0.7 s one.
std::vector<DictatedWord> spoken(const std::string& sentence, double& clock_s) {
    std::vector<DictatedWord> words;
    size_t at = 0;
    while (at < sentence.size()) {
        size_t end = sentence.find(' ', at + 1);
        if (end == std::string::npos) end = sentence.size();
        const std::string word = sentence.substr(at, end - at);
        at = end;
        if (word == " |" || word == " ~") {
            clock_s += word == " |" ? 1.5 : 0.7;
            continue;
        }
        words.push_back({word, clock_s, clock_s + 0.3});
        clock_s += 0.4;
    }
    return words;
}

// The text after the pieces are committed in turn, the last one final.
std::string dictate(const std::vector<std::string>& pieces,
                    const CommandTable& table = CommandTable::english_defaults()) {
    DictationEditor editor(table);
    std::string shown;
    double clock_s = 0.0;
    for (size_t i = 0; i < pieces.size(); ++i) {
        const auto words = spoken(pieces[i], clock_s);
        apply_text_edit(shown, editor.commit(words, i + 1 == pieces.size()));
    }
    EXPECT_EQ(shown, editor.text());  // the edits rebuild the text exactly
    return shown;
}

TEST(DictationEditor, PunctuationCommandsAttachToTheWordBefore) {
    EXPECT_EQ(dictate({" Hello comma how are you question mark"}), "Hello, how are you?");
    EXPECT_EQ(dictate({" Great work exclamation mark"}), "Great work!");
    EXPECT_EQ(dictate({" Bring three things colon milk comma bread semicolon coffee"}),
              "Bring three things: milk, bread; coffee");
    EXPECT_EQ(dictate({" It is ready full stop see you soon period"}),
              "It is ready. See you soon.");
}

TEST(DictationEditor, LineAndParagraphBreaksCapitalizeWhatFollows) {
    EXPECT_EQ(dictate({" I need milk period new line buy bread"}), "I need milk.\nBuy bread");
    EXPECT_EQ(dictate({" Dear team, new paragraph the report is ready full stop"}),
              "Dear team,\n\nThe report is ready.");
}

TEST(DictationEditor, TheModelsOwnPunctuationBeforeACommandIsReplaced) {
    EXPECT_EQ(dictate({" Hello, comma world."}), "Hello, world.");
    EXPECT_EQ(dictate({" Is it late? question mark"}), "Is it late?");
}

TEST(DictationEditor, PhrasesInsideOrdinarySentencesStayWords) {
    // Hyphenated by the model into a longer word.
    EXPECT_EQ(dictate({" Send me a comma-separated list."}), "Send me a comma-separated list.");
    // After a determiner: a noun of the sentence.
    EXPECT_EQ(dictate({" Put a comma here."}), "Put a comma here.");
    EXPECT_EQ(dictate({" That period was long."}), "That period was long.");
    // The rule looks at the one word before: an adjective between hides the determiner (README).
    EXPECT_EQ(dictate({" It was a long period"}), "It was a long.");
    EXPECT_EQ(dictate({" Start the new line with a capital."}),
              "Start the new line with a capital.");
    // ... unless the speaker stopped before it.
    EXPECT_EQ(dictate({" The last word is the ~ period"}), "The last word is the.");
}

TEST(DictationEditor, ScratchThatTakesBackTheLastUtterance) {
    EXPECT_EQ(dictate({" Hello there. How are you scratch that"}), "Hello there.");
    EXPECT_EQ(dictate({" Call me tomorrow comma please scratch that email me"}), "email me");
    // A pause starts an utterance too; twice takes back two.
    EXPECT_EQ(dictate({" Buy milk | and bread | and coffee scratch that scratch that"}),
              "Buy milk");
}

TEST(DictationEditor, UndoThatTakesBackTheLastStep) {
    EXPECT_EQ(dictate({" Open the door new line undo that and the window"}),
              "Open the door and the window");
    // Undo after a scratch brings the utterance back.
    EXPECT_EQ(dictate({" Hello there. How are you scratch that undo that"}),
              "Hello there. How are you");
}

TEST(DictationEditor, CapitalsAndQuotes) {
    EXPECT_EQ(dictate({" cap hello world"}), "Hello world");
    EXPECT_EQ(dictate({" all caps warning end caps do not enter"}), "WARNING do not enter");
    EXPECT_EQ(dictate({" He said open quote hello close quote and left period"}),
              "He said \"hello\" and left.");
}

TEST(DictationEditor, APhraseSplitAcrossPiecesWaitsForItsEnd) {
    DictationEditor editor(CommandTable::english_defaults());
    double clock_s = 0.0;
    TextEdit first = editor.commit(spoken(" Hello new", clock_s), false);
    EXPECT_EQ(first.text, "Hello");
    EXPECT_EQ(editor.held_words(), 1u);
    TextEdit second = editor.commit(spoken(" line world", clock_s), false);
    EXPECT_EQ(second.erase_chars, 0u);
    EXPECT_EQ(second.text, "\nWorld");
    EXPECT_EQ(editor.held_words(), 0u);
    EXPECT_EQ(editor.commands_applied(), 1);
    // The end of the session lets held words out as words.
    EXPECT_EQ(dictate({" Hello new"}), "Hello new");
    EXPECT_EQ(dictate({" Hello new", " York"}), "Hello new York");
}

TEST(DictationEditor, ScratchOfAnEarlierPieceErasesItsCharacters) {
    DictationEditor editor(CommandTable::english_defaults());
    double clock_s = 0.0;
    editor.commit(spoken(" Hello there.", clock_s), false);
    editor.commit(spoken(" How are you", clock_s), false);
    const TextEdit scratch = editor.commit(spoken(" scratch that", clock_s), false);
    EXPECT_EQ(scratch.erase_chars, 12u);  // " How are you"
    EXPECT_EQ(scratch.text, "");
    EXPECT_EQ(editor.text(), "Hello there.");
}

TEST(DictationEditor, AFileTableReplacesTheDefaults) {
    const CommandTable table = CommandTable::parse(
        "new note\tparagraph\nfull stop\tinsert:.\nforget that\tdelete-last-utterance\n", "t");
    EXPECT_EQ(dictate({" call the doctor full stop new note buy milk | forget that"}, table),
              "call the doctor.\n\n");
    // "comma" is not in that table.
    EXPECT_EQ(dictate({" milk comma bread"}, table), "milk comma bread");
}

// The German and French tables, chosen by the dictation language; their determiners keep a
// phrase used as a noun ("den Punkt", "une virgule") as words.
TEST(DictationEditor, GermanAndFrenchTablesFollowTheLanguage) {
    const CommandTable german = CommandTable::defaults_for_language("de");
    EXPECT_EQ(dictate({" Hallo Komma wie geht es dir Fragezeichen"}, german),
              "Hallo, wie geht es dir?");
    EXPECT_EQ(dictate({" Ich brauche Milch Punkt neue Zeile Brot kaufen Ausrufezeichen"}, german),
              "Ich brauche Milch.\nBrot kaufen!");
    EXPECT_EQ(dictate({" Er sagte Anführungszeichen auf ja Anführungszeichen zu"}, german),
              "Er sagte \u201eja\u201c");
    EXPECT_EQ(dictate({" Bringen wir es auf den Punkt"}, german), "Bringen wir es auf den Punkt");
    EXPECT_EQ(dictate({" Termin morgen Punkt | Und noch etwas | streich das"}, german),
              "Termin morgen.");
    // "comma" is English: words here.
    EXPECT_EQ(dictate({" Milch comma Brot"}, german), "Milch comma Brot");

    const CommandTable french = CommandTable::defaults_for_language("fr");
    EXPECT_EQ(dictate({" Bonjour virgule comment allez-vous point d'interrogation"}, french),
              "Bonjour, comment allez-vous?");
    EXPECT_EQ(dictate({" Acheter du lait point final nouveau paragraphe merci"}, french),
              "Acheter du lait.\n\nMerci");
    EXPECT_EQ(dictate({" Trois choses deux-points pain point-virgule café"}, french),
              "Trois choses: pain; café");
    EXPECT_EQ(dictate({" Ajoutez une virgule ici"}, french), "Ajoutez une virgule ici");
    EXPECT_EQ(dictate({" C'est fini point d\u2019exclamation"}, french), "C'est fini!");

    // Every other language, and auto, gets the English table.
    for (const char* language : {"en", "auto", "", "es"}) {
        EXPECT_EQ(dictate({" Hello comma world"}, CommandTable::defaults_for_language(language)),
                  "Hello, world")
            << language;
    }
}

TEST(TextEdit, ErasesWholeCharacters) {
    const TextEdit edit = text_edit_between("caf\xC3\xA9 ok", "caf\xC3\xA8");
    EXPECT_EQ(edit.erase_chars, 4u);  // "é ok"
    EXPECT_EQ(edit.text, "\xC3\xA8");
    std::string text = "caf\xC3\xA9 ok";
    apply_text_edit(text, edit);
    EXPECT_EQ(text, "caf\xC3\xA8");
}

}  // namespace
}  // namespace earshot::app
