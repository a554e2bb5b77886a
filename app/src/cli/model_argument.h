// What `--model` of transcribe and live names: a path, a catalog name (its installed folder or
// file), or nothing (the model chosen in the app, else the embedded micro model).
#pragma once

#include <filesystem>
#include <stdexcept>
#include <string>

namespace earshot::app {

// A catalog name that is not installed, or no model at all; the message says what to run.
class ModelArgumentError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

struct ModelArgument {
    std::filesystem::path model;
    std::filesystem::path vocabulary;  // the app's remembered vocabulary for it; else empty
    std::string note;                  // one line for stderr about the choice; empty: none
};

// `model` as given (empty: not given) and `vocabulary` as given. A path that exists wins over a
// catalog name; a name that is neither is returned as a path, for the loader to report.
ModelArgument resolve_model_argument(const std::string& model, const std::string& vocabulary);

}  // namespace earshot::app
