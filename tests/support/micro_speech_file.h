// Three of the micro model's held-out sentences spoken by espeak-ng with 1 s between them, as
// one WAV: more than one of the micro model's 6 s windows, for the Files tests.
#pragma once

#include <filesystem>
#include <string>

#include "micro_model.h"
#include "spoken_words.h"
#include "temp_dir.h"

namespace earshot::test {

// Writes <dir>/three.wav and returns its path; empty with `why` set when speech fails.
inline std::filesystem::path write_three_sentences(const TempDir& dir, std::string& why) {
    SpeechOptions speech;
    speech.whole_sentences = true;
    speech.sentence_gap_s = 1.0;
    const auto audio = speak_sentences(micro_heldout_words(3), speech, &why);
    if (!audio) return {};
    if (audio->duration_s() <= 8.0) {
        why = "the sentences last only " + std::to_string(audio->duration_s()) + " s";
        return {};
    }
    const std::filesystem::path wav = dir.path() / "three.wav";
    write_wav_pcm16(wav, audio->samples);
    return wav;
}

}  // namespace earshot::test
