// The immediate endpoints: health, the model list, 404 and 405.
#include "server/routes.h"

#include <nlohmann/json.hpp>
#include <string>

namespace earshot::server {

Endpoint endpoint_of(std::string_view target) {
    const std::string_view path = target.substr(0, target.find('?'));
    if (path == "/health") return Endpoint::health;
    if (path == "/v1/models") return Endpoint::models;
    if (path == "/v1/audio/transcriptions") return Endpoint::transcriptions;
    if (path == "/v1/audio/translations") return Endpoint::translations;
    if (path == "/v1/realtime/transcription") return Endpoint::realtime;
    return Endpoint::unknown;
}

std::optional<HttpReply> immediate_reply(Endpoint endpoint, std::string_view method,
                                         const ServerContext& context) {
    const auto wrong_method = [&](std::string_view allowed) {
        return error_reply(
            {405,
             std::string(method) + " is not allowed here; use " + std::string(allowed),
             "invalid_request_error",
             {},
             "method_not_allowed"});
    };
    switch (endpoint) {
        case Endpoint::health: {
            if (method != "GET") return wrong_method("GET");
            nlohmann::json body;
            body["status"] = context.draining.load() ? "shutting_down" : "ok";
            body["model"] = context.models->default_model().id;
            body["queued_jobs"] = context.jobs->waiting();
            body["jobs_in_flight"] = context.jobs_in_flight;
            body["live_sessions"] = context.live_models ? context.live_models->in_use() : 0;
            body["live_sessions_max"] = context.live_models ? context.live_models->capacity() : 0;
            return HttpReply{200, "application/json", body.dump() + "\n", 0};
        }
        case Endpoint::models: {
            if (method != "GET") return wrong_method("GET");
            nlohmann::json data = nlohmann::json::array();
            for (const ServedModel& model : context.models->installed()) {
                data.push_back({{"id", model.id},
                                {"object", "model"},
                                {"created", 0},
                                {"owned_by", "earshot"}});
            }
            nlohmann::json body{{"object", "list"}, {"data", std::move(data)}};
            return HttpReply{200, "application/json", body.dump() + "\n", 0};
        }
        case Endpoint::transcriptions:
        case Endpoint::translations:
            if (method != "POST") return wrong_method("POST");
            return std::nullopt;
        case Endpoint::realtime:
            if (method != "GET") return wrong_method("GET with a WebSocket upgrade");
            return std::nullopt;
        case Endpoint::unknown:
            break;
    }
    return error_reply({404, "no such endpoint", "invalid_request_error", {}, "not_found"});
}

}  // namespace earshot::server
