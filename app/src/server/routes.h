// The requests answered at once, without a job: GET /health, GET /v1/models, and the refusals
// (unknown path, wrong method).
#pragma once

#include <optional>
#include <string_view>

#include "server/http_reply.h"
#include "server/server_context.h"

namespace earshot::server {

enum class Endpoint { health, models, transcriptions, translations, realtime, unknown };

// The endpoint of a request target (the query string ignored).
Endpoint endpoint_of(std::string_view target);

// The reply to a request that needs no job; nullopt for a POST to the audio endpoints.
std::optional<HttpReply> immediate_reply(Endpoint endpoint, std::string_view method,
                                         const ServerContext& context);

}  // namespace earshot::server
