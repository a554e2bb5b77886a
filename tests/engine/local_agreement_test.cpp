// LocalAgreement-2 with a limit: words the caller holds back (one that may still be sounding) are
// not committed even when two hypotheses agree on them, and stay to be agreed on later.
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

TEST(LocalAgreementLimit, HeldBackWordsStayForTheNextAgreement) {
    decoding::LocalAgreement agreement;
    EXPECT_EQ(agreement.agree(words({" the", " ca"}), 1), 0u);
    // Both agree on " the ca", but " ca" is held back: it stays in the previous hypothesis.
    EXPECT_EQ(agreement.agree(words({" the", " ca"}), 1), 1u);
    EXPECT_EQ(agreement.previous(), std::vector<std::string>{"ca"});
    // The next hypothesis says " cat": " ca" was not a word after all, and nothing was committed.
    EXPECT_EQ(agreement.agree(words({" cat", " sat"}), 1), 0u);
    EXPECT_EQ(agreement.agree(words({" cat", " sat"})), 2u);
    EXPECT_TRUE(agreement.previous().empty());
}

TEST(LocalAgreementLimit, ALimitOfZeroCommitsNothing) {
    decoding::LocalAgreement agreement;
    EXPECT_EQ(agreement.agree(words({" red"})), 0u);
    EXPECT_EQ(agreement.agree(words({" red", " blue"}), 0), 0u);
    EXPECT_EQ(agreement.previous(), (std::vector<std::string>{"red", "blue"}));
    EXPECT_EQ(agreement.agree(words({" red", " blue"})), 2u);
}

}  // namespace
}  // namespace earshot::test
