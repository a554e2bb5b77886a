// The `--vocabulary FILE`, `--vocabulary-use HOW` and `--vocabulary-bias LOGITS` options of
// `earshot live` and `earshot transcribe`: a custom vocabulary for the one transcription setup.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "earshot/core/transcription_setup.h"

namespace earshot::app {

struct VocabularyRequest {
    std::string file;
    std::string use = "auto";  // auto, prompt, bias, both
    double bias = TranscriptionChoice::kVocabularyLogitBias;
};

// Declares both options on `command`, bound to `request`.
void add_vocabulary_options(CLI::App& command, VocabularyRequest& request);

// The file's entries and the bias into `choice`. Throws VocabularyFileError ("FILE: problem").
void apply_vocabulary(const VocabularyRequest& request, TranscriptionChoice& choice);

}  // namespace earshot::app
