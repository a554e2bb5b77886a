// InventedWordsGuard on committed words as the decoder writes them: loops and over-compressible
// text are held back, known phrases only without speech or certainty under them.
#include "core/dictation/invented_words_guard.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace earshot::app {
namespace {

// " a b c" -> words 0.3 s long, back to back from `start_s`, all speech, sure.
std::vector<GuardedWord> words(const std::string& text, double start_s = 0.0, double speech = 1.0,
                               double probability = 0.95) {
    std::vector<GuardedWord> out;
    size_t at = 0;
    while (at < text.size()) {
        size_t end = text.find(' ', at + 1);
        if (end == std::string::npos) end = text.size();
        out.push_back({text.substr(at, end - at), speech, probability, start_s, start_s + 0.3});
        start_s += 0.3;
        at = end;
    }
    return out;
}

TEST(InventedWordsGuard, OrdinarySentencesPass) {
    InventedWordsGuard guard;
    for (const char* piece : {" Please call me", " at nine tomorrow.", " No, no, I said nine."}) {
        const GuardResult r = guard.judge(words(piece));
        EXPECT_EQ(r.held_back_words, 0u) << piece;
        EXPECT_EQ(r.kept.size(), words(piece).size());
    }
    EXPECT_EQ(guard.held_back_words(), 0);
}

TEST(InventedWordsGuard, AnNGramThreeTimesRunningIsALoop) {
    InventedWordsGuard guard;
    EXPECT_EQ(guard.judge(words(" I will call you")).held_back_words, 0u);
    // With the words before: "call you" three times.
    const GuardResult r = guard.judge(words(" call you call you"));
    EXPECT_EQ(r.reason, HeldBack::repetition_loop);
    EXPECT_EQ(r.held_back_words, 4u);
    EXPECT_TRUE(r.kept.empty());
    EXPECT_EQ(guard.judge(words(" the the the")).reason, HeldBack::repetition_loop);
    EXPECT_EQ(guard.held_back_words(), 7);
    // Held-back words are not remembered: the next real words pass.
    EXPECT_EQ(guard.judge(words(" tomorrow morning.")).held_back_words, 0u);
}

TEST(InventedWordsGuard, TextThatCompressesAbove2Point4IsHeldBack) {
    InventedWordsGuard guard;
    // No n-gram three times running, but long and repetitive.
    std::string text;
    for (int i = 0; i < 4; ++i) text += " we meet at nine we meet at ten";
    text += " and";
    const GuardResult r = guard.judge(words(text));
    EXPECT_EQ(r.reason, HeldBack::compression_ratio);
    EXPECT_EQ(r.held_back_words, words(text).size());
}

TEST(InventedWordsGuard, KnownPhrasesNeedSpeechAndCertainty) {
    InventedWordsGuard guard;
    // Over silence: held back.
    GuardResult r = guard.judge(words(" Thank you.", 0.0, /*speech=*/0.1));
    EXPECT_EQ(r.reason, HeldBack::known_phrase);
    EXPECT_EQ(r.held_back_words, 2u);
    r = guard.judge(words(" Thanks for watching!", 5.0, 0.0));
    EXPECT_EQ(r.reason, HeldBack::known_phrase);
    // Spoken, but the decoder was unsure: held back.
    EXPECT_EQ(guard.judge(words(" Thank you.", 10.0, 1.0, 0.3)).reason, HeldBack::known_phrase);
    // Spoken and sure: kept.
    EXPECT_EQ(guard.judge(words(" Thank you.", 20.0, 0.9, 0.9)).held_back_words, 0u);
    // Inside a sentence ("... and thank you" right after other words) it is not judged.
    EXPECT_EQ(guard.judge(words(" I said", 30.0)).held_back_words, 0u);
    EXPECT_EQ(guard.judge(words(" thank you", 30.6, 0.0)).held_back_words, 0u);
    EXPECT_EQ(guard.held_back_words(), 2 + 3 + 2);
    // Another language's phrases.
    InventedWordsGuard german("de");
    EXPECT_EQ(german.judge(words(" Untertitel der Amara.org-Community", 0.0, 0.0)).reason,
              HeldBack::known_phrase);
}

}  // namespace
}  // namespace earshot::app
