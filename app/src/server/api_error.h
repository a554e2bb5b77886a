// ApiError: a refusal the server sends as OpenAI's error shape
// {"error": {"message", "type", "param", "code"}} with its HTTP status.
#pragma once

#include <optional>
#include <string>

namespace earshot::server {

struct ApiError {
    int status = 400;
    std::string message;
    std::string type = "invalid_request_error";  // OpenAI's types: invalid_request_error, ...
    std::optional<std::string> param;            // the form field at fault; null when none
    std::optional<std::string> code;             // a short machine word; null when none
};

// {"error":{"message":...,"type":...,"param":...|null,"code":...|null}}
std::string error_body(const ApiError& error);

ApiError bad_request(std::string message, std::optional<std::string> param = {},
                     std::optional<std::string> code = {});

}  // namespace earshot::server
