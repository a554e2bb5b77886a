// HttpSession: one client connection (Boost.Beast over Asio): reads each request within the read
// timeout and the upload limit, answers it at once or through a transcription job, and cancels
// the job when the client goes away while it waits.
#pragma once

#include <array>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>
#include <chrono>
#include <memory>
#include <optional>

#include "server/http_reply.h"
#include "server/server_context.h"

namespace earshot::server {

struct TranscriptionJob;

class HttpSession : public std::enable_shared_from_this<HttpSession> {
public:
    HttpSession(boost::asio::ip::tcp::socket socket, ServerContext& context);

    // Reads the first request. The session keeps itself alive through its pending operations.
    void start();
    // Shutdown: a connection waiting for its next request is closed; one mid-request finishes.
    void close_if_idle();

private:
    enum class State { idle, reading, waiting_job, writing, closed };
    enum class AfterWrite { keep_alive, close, drain_and_close };

    void read_header();
    void on_header(boost::beast::error_code error);
    void read_body();
    void on_body(boost::beast::error_code error);
    // A read failed: a timeout mid-request is 408, a request too large 413, bad HTTP 400.
    void on_read_error(boost::beast::error_code error);
    void handle_request();
    void start_job(HttpReply& refusal);
    // GET /v1/realtime/transcription: hands the connection to a LiveSession, or refuses it.
    void start_live(HttpReply& refusal);
    void watch_disconnect();
    void on_job_done(HttpReply reply);
    void send(const HttpReply& reply, AfterWrite after);
    void on_written(boost::beast::error_code error, AfterWrite after);
    // After refusing a request whose body is still arriving: read and drop it for a moment, so
    // that the client reads the refusal instead of a connection reset.
    void drain_and_close();
    using DrainBuffer = std::array<char, 16 * 1024>;
    void drain_some(std::shared_ptr<DrainBuffer> scratch);
    void arm_deadline(std::chrono::steady_clock::duration timeout);
    void close();

    boost::asio::ip::tcp::socket socket_;
    boost::asio::steady_timer deadline_;
    boost::beast::flat_buffer buffer_;
    std::optional<boost::beast::http::request_parser<boost::beast::http::string_body>> parser_;
    std::shared_ptr<void> response_;  // the response being written, alive until it is
    std::shared_ptr<TranscriptionJob> job_;
    ServerContext& context_;
    State state_ = State::idle;
    bool timed_out_ = false;
    bool keep_alive_ = true;
    std::chrono::steady_clock::time_point request_start_;
    std::string request_line_;  // "POST /v1/audio/transcriptions", for the log
};

}  // namespace earshot::server
