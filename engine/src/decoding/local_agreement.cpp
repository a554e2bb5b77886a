// LocalAgreement-2 over comparable word forms.
#include "earshot/engine/decoding/local_agreement.h"

#include <algorithm>

namespace earshot::decoding {

size_t LocalAgreement::agree(const std::vector<TimedWord>& hypothesis, size_t limit) {
    std::vector<std::string> current;
    current.reserve(hypothesis.size());
    for (const TimedWord& word : hypothesis) current.push_back(comparable_word(word.text));
    size_t agreed = 0;
    while (agreed < limit && agreed < current.size() && agreed < previous_.size() &&
           current[agreed] == previous_[agreed]) {
        ++agreed;
    }
    // Words held back (one that may still be sounding) are not kept for the next agreement
    // either: a word cut by the end of the audio is the hypothesis's guess, and a guess the next
    // hypothesis repeats is not two hearings of it.
    const size_t keep = std::max(agreed, std::min(limit, current.size()));
    previous_.assign(current.begin() + static_cast<std::ptrdiff_t>(agreed),
                     current.begin() + static_cast<std::ptrdiff_t>(keep));
    return agreed;
}

void LocalAgreement::drop_front(size_t count) {
    previous_.erase(previous_.begin(), previous_.begin() + static_cast<std::ptrdiff_t>(
                                                               std::min(count, previous_.size())));
}

void LocalAgreement::reset() { previous_.clear(); }

}  // namespace earshot::decoding
