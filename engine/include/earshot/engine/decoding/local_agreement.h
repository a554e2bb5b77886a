// LocalAgreement-2, the streaming policy: a word is committed once two consecutive hypotheses
// agree on it (and on every word before it); what is not yet agreed stays tentative.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "earshot/engine/decoding/timed_words.h"

namespace earshot::decoding {

class LocalAgreement {
public:
    // `hypothesis`: the words the decoder produced after the committed text. Returns how many of
    // its leading words to commit: the longest common prefix, compared as comparable_word(), with
    // the previous hypothesis's words that are still uncommitted. The words after those become the
    // previous hypothesis for the next call. The first call after reset() commits nothing.
    // At most `limit` words are committed (the caller holds back a word that may still be
    // sounding), and only those can be agreed on by the next call: a word held back is not kept
    // in the previous hypothesis. A word the end of the audio cuts is a guess (the micro model
    // says the word before it again: "new new" for "new ph-"), and two hypotheses 0.1 s apart
    // often guess alike; LocalAgreement-2 needs two hearings of a whole word.
    size_t agree(const std::vector<TimedWord>& hypothesis, size_t limit = SIZE_MAX);

    // The caller committed the first `count` words of the last hypothesis by other means (a
    // pause or a full window): they leave the previous hypothesis too.
    void drop_front(size_t count);

    // Forgets the previous hypothesis (the committed prefix changed under it).
    void reset();

    const std::vector<std::string>& previous() const { return previous_; }

private:
    std::vector<std::string> previous_;  // comparable forms of the uncommitted words
};

}  // namespace earshot::decoding
