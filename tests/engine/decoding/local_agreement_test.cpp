// LocalAgreement-2 with a limit: words the caller holds back (one that may still be sounding) are
// not committed even when two hypotheses agree on them, and are not kept to be agreed on by the
// next hypothesis either.
#include "earshot/engine/decoding/local_agreement.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace earshot::test {
namespace {

std::vector<decoding::TimedWord> words(const std::vector<std::string>& texts) {
    std::vector<decoding::TimedWord> out;
    for (const auto& t : texts) out.push_back({.text = t});
    return out;
}

TEST(LocalAgreementLimit, HeldBackWordsAreNotKeptForTheNextAgreement) {
    decoding::LocalAgreement agreement;
    EXPECT_EQ(agreement.agree(words({" the", " ca"}), 1), 0u);
    EXPECT_EQ(agreement.previous(), std::vector<std::string>{"the"});
    // Both say " the ca", but " ca" is held back: it is committed no more than it is kept.
    EXPECT_EQ(agreement.agree(words({" the", " ca"}), 1), 1u);
    EXPECT_TRUE(agreement.previous().empty());
    // The next hypothesis says " cat": " ca" was not a word after all, and nothing was committed.
    EXPECT_EQ(agreement.agree(words({" cat", " sat"}), 1), 0u);
    EXPECT_EQ(agreement.previous(), std::vector<std::string>{"cat"});
    // " sat" was held back, so only " cat" has been heard twice.
    EXPECT_EQ(agreement.agree(words({" cat", " sat"})), 1u);
    EXPECT_EQ(agreement.previous(), std::vector<std::string>{"sat"});
    EXPECT_EQ(agreement.agree(words({" sat"})), 1u);
}

// The live path's doubled words ("the new new phone"), as the updates 0.1 s apart went: the caller
// commits what agree() returns, and the next hypothesis is the words after the committed ones.
// The onset of " phone" came out as " new" twice in a row; before, the first guess was kept and
// agreed on with the second, and " new" was committed twice.
TEST(LocalAgreementLimit, AGuessAtTheEndOfTheAudioIsNotAgreedOn) {
    decoding::LocalAgreement agreement;
    EXPECT_EQ(agreement.agree(words({" new"}), 0), 0u);          // " new" still sounding
    EXPECT_EQ(agreement.agree(words({" new", " new"}), 1), 0u);  // " ph-" guessed as " new"
    // Heard past it: " new" is committed once.
    EXPECT_EQ(agreement.agree(words({" new", " phone"}), 1), 1u);
    // After " new", the decoder says " new phone" again: the guess is not agreed on.
    EXPECT_EQ(agreement.agree(words({" new", " phone"}), 1), 0u);
    EXPECT_EQ(agreement.agree(words({" phone", " number"}), 1), 0u);
    EXPECT_EQ(agreement.agree(words({" phone", " number"}), 1), 1u);
}

}  // namespace
}  // namespace earshot::test
