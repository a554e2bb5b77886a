// error_body: OpenAI's error JSON.
#include "server/api_error.h"

#include <nlohmann/json.hpp>

namespace earshot::server {

std::string error_body(const ApiError& error) {
    nlohmann::ordered_json inner;
    inner["message"] = error.message;
    inner["type"] = error.type;
    inner["param"] =
        error.param ? nlohmann::ordered_json(*error.param) : nlohmann::ordered_json(nullptr);
    inner["code"] =
        error.code ? nlohmann::ordered_json(*error.code) : nlohmann::ordered_json(nullptr);
    nlohmann::ordered_json body;
    body["error"] = std::move(inner);
    // Replace, not throw, on invalid UTF-8 (a message may quote a client's bytes).
    return body.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

ApiError bad_request(std::string message, std::optional<std::string> param,
                     std::optional<std::string> code) {
    return ApiError{400, std::move(message), "invalid_request_error", std::move(param),
                    std::move(code)};
}

}  // namespace earshot::server
