// ModelRegistry: which checkpoint a request's `model` names (the served default, an installed
// catalog model, a folder in the models folder), and the list GET /v1/models returns.
#pragma once

#include <filesystem>
#include <string>
#include <variant>
#include <vector>

#include "server/api_error.h"

namespace earshot::server {

struct ServedModel {
    std::string id;              // the name clients use
    std::filesystem::path path;  // what load_model() is given
};

class ModelRegistry {
public:
    // `default_model`: --model as given (a path, a catalog name or empty: the embedded micro
    // model). Throws std::runtime_error saying what to run when it names nothing installed.
    explicit ModelRegistry(const std::string& default_model);

    const ServedModel& default_model() const { return default_; }

    // The model `name` names: empty, "whisper-1" (what OpenAI's clients send) or the default's
    // id: the default; an installed catalog name or a folder in the models folder: that one.
    // Otherwise a 404 ApiError, with the `earshot models pull` to run for a catalog name.
    std::variant<ServedModel, ApiError> resolve(const std::string& name) const;

    // The default first, then every installed model, by name.
    std::vector<ServedModel> installed() const;

private:
    ServedModel default_;
};

// The embedded micro model: beside an installed executable (../share/earshot/models/micro), else
// in the source tree it was built from; empty when neither holds it.
std::filesystem::path embedded_micro_model();

}  // namespace earshot::server
