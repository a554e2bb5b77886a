// HttpReply: what a request gets back, as plain data (status, type, body), built off the network
// thread by the jobs and sent by the connection.
#pragma once

#include <string>

#include "server/api_error.h"

namespace earshot::server {

struct HttpReply {
    int status = 200;
    std::string content_type = "application/json";
    std::string body;
    int retry_after_s = 0;  // > 0: a Retry-After header (429, 503)
};

inline HttpReply error_reply(const ApiError& error) {
    return HttpReply{error.status, "application/json", error_body(error), 0};
}

}  // namespace earshot::server
