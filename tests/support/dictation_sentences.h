// A fixed list of short everyday dictation sentences (lower case, no punctuation, 3-9 common
// words) for the harnesses that speak them with spoken_words.h and measure what comes back.
#pragma once

#include <cstddef>
#include <sstream>
#include <string>
#include <vector>

namespace earshot::test {

inline const std::vector<std::string>& dictation_sentences() {
    static const std::vector<std::string> kSentences{
        "please call me back after lunch",
        "the meeting starts at ten tomorrow",
        "send the report to the whole team",
        "i will be home late tonight",
        "can you pick up some milk",
        "the weather is nice today",
        "let us meet in the lobby",
        "thank you for your help",
        "the train was twenty minutes late",
        "remind me to water the plants",
        "we need more paper for the printer",
        "my phone battery is almost empty",
        "the kids are playing in the garden",
        "dinner will be ready in an hour",
        "please close the door behind you",
        "i left my keys on the kitchen table",
        "the store opens at nine",
        "book a table for four people",
        "the car needs new tires soon",
        "turn off the lights when you leave",
        "i am running a few minutes late",
        "the package arrived this morning",
        "we should plan a trip next summer",
        "the coffee machine is broken again",
        "write down the new phone number",
        "she is reading a good book",
        "the dog wants to go outside",
        "please check your email before the call",
        "the bus stop is around the corner",
        "i forgot to buy bread",
        "the film starts in half an hour",
        "open the window for some fresh air",
        "he will arrive on friday evening",
        "the doctor can see you at three",
        "we have a lot of work this week",
        "put the boxes in the back room",
        "my sister lives near the river",
        "the music is too loud",
        "save the file before you close it",
        "it is going to rain this afternoon",
    };
    return kSentences;
}

// `sentence` split at spaces.
inline std::vector<std::string> sentence_words(const std::string& sentence) {
    std::vector<std::string> words;
    std::istringstream in(sentence);
    for (std::string word; in >> word;) words.push_back(word);
    return words;
}

// `count` sentences as word lists, from `first` on, wrapping around the list: the input of
// speak_sentences.
inline std::vector<std::vector<std::string>> dictation_sentence_words(std::size_t first,
                                                                      std::size_t count) {
    const std::vector<std::string>& all = dictation_sentences();
    std::vector<std::vector<std::string>> out;
    for (std::size_t i = 0; i < count; ++i)
        out.push_back(sentence_words(all[(first + i) % all.size()]));
    return out;
}

}  // namespace earshot::test
