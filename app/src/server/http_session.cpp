// HttpSession: the request cycle of one connection, its limits and its job.
#include "server/http_session.h"

#include <stdlib.h>
#include <unistd.h>

#include <boost/asio/post.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/write.hpp>
#include <boost/beast/websocket/rfc6455.hpp>
#include <fstream>
#include <iostream>
#include <string>
#include <variant>

#include "server/api_key.h"
#include "server/live_request.h"
#include "server/live_session.h"
#include "server/multipart_form.h"
#include "server/routes.h"
#include "server/transcription_job.h"
#include "server/transcription_request.h"

namespace earshot::server {

namespace beast = boost::beast;
namespace http = beast::http;
namespace net = boost::asio;
namespace websocket = beast::websocket;
using tcp = net::ip::tcp;

namespace {

// Room for the form's other fields and part headers beside the file itself.
constexpr std::size_t kFormOverheadBytes = 64 * 1024;
constexpr std::uint32_t kMaxHeaderBytes = 16 * 1024;
// How long a refused upload is read and dropped before the connection closes.
constexpr auto kDrainTime = std::chrono::seconds(2);
constexpr auto kWriteTimeout = std::chrono::seconds(30);
// A client refused because every live session is in use waits this long (sessions last minutes).
constexpr int kLiveRetryAfterS = 5;

// The upload written to a new private file in `dir`; empty when it cannot be.
std::filesystem::path save_upload(const std::filesystem::path& dir, std::string_view bytes) {
    std::string name = (dir / "upload-XXXXXX").string();
    const int fd = ::mkstemp(name.data());
    if (fd < 0) return {};
    std::size_t written = 0;
    while (written < bytes.size()) {
        const ssize_t n = ::write(fd, bytes.data() + written, bytes.size() - written);
        if (n <= 0) {
            ::close(fd);
            ::unlink(name.c_str());
            return {};
        }
        written += static_cast<std::size_t>(n);
    }
    ::close(fd);
    return name;
}

}  // namespace

HttpSession::HttpSession(tcp::socket socket, ServerContext& context)
    : socket_(std::move(socket)), deadline_(socket_.get_executor()), context_(context) {}

void HttpSession::start() { read_header(); }

void HttpSession::close_if_idle() {
    if (state_ == State::idle) close();
}

void HttpSession::arm_deadline(std::chrono::steady_clock::duration timeout) {
    timed_out_ = false;
    deadline_.expires_after(timeout);
    deadline_.async_wait([self = shared_from_this()](beast::error_code error) {
        if (error) return;  // re-armed or cancelled
        self->timed_out_ = true;
        beast::error_code ignored;
        self->socket_.cancel(ignored);
    });
}

void HttpSession::close() {
    state_ = State::closed;
    deadline_.cancel();
    beast::error_code ignored;
    socket_.shutdown(tcp::socket::shutdown_both, ignored);
    socket_.close(ignored);
}

void HttpSession::read_header() {
    state_ = State::idle;
    parser_.emplace();
    parser_->header_limit(kMaxHeaderBytes);
    parser_->body_limit(context_.limits.max_upload_bytes + kFormOverheadBytes);
    arm_deadline(context_.limits.read_timeout);
    http::async_read_header(socket_, buffer_, *parser_,
                            [self = shared_from_this()](beast::error_code error, std::size_t) {
                                self->on_header(error);
                            });
}

void HttpSession::on_read_error(beast::error_code error) {
    if (state_ == State::closed) return;
    const bool started = parser_ && parser_->got_some();
    if (timed_out_ && started) {
        send(error_reply({408,
                          "the request did not arrive within " +
                              std::to_string(context_.limits.read_timeout.count()) + " s",
                          "invalid_request_error",
                          {},
                          "request_timeout"}),
             AfterWrite::close);
        return;
    }
    if (error == http::error::body_limit) {
        send(error_reply({413,
                          "the upload is larger than this server's limit of " +
                              std::to_string(context_.limits.max_upload_bytes) + " bytes",
                          "invalid_request_error", "file", "file_too_large"}),
             AfterWrite::drain_and_close);
        return;
    }
    if (error == http::error::header_limit) {
        send(error_reply({431,
                          "the request headers are too large",
                          "invalid_request_error",
                          {},
                          "headers_too_large"}),
             AfterWrite::close);
        return;
    }
    const beast::error_code http_error = http::error::end_of_stream;
    if (started && error.category() == http_error.category() &&
        error != http::error::end_of_stream && error != http::error::partial_message) {
        send(error_reply(bad_request("malformed HTTP request: " + error.message())),
             AfterWrite::close);
        return;
    }
    close();  // the client went away, or an idle connection timed out
}

void HttpSession::on_header(beast::error_code error) {
    if (error) return on_read_error(error);
    state_ = State::reading;
    request_start_ = std::chrono::steady_clock::now();
    const auto& request = parser_->get();
    request_line_ = std::string(request.method_string()) + " " + std::string(request.target());
    keep_alive_ = request.keep_alive();
    if (context_.draining.load()) {
        return send(
            error_reply({503, "the server is shutting down", "server_error", {}, "shutting_down"}),
            AfterWrite::drain_and_close);
    }
    const Endpoint endpoint = endpoint_of(request.target());
    if (!context_.api_key.empty() && endpoint != Endpoint::health &&
        !bearer_matches(request[http::field::authorization], context_.api_key)) {
        return send(error_reply({401,
                                 "missing or incorrect API key (send it as `Authorization: "
                                 "Bearer KEY`)",
                                 "invalid_request_error",
                                 {},
                                 "invalid_api_key"}),
                    AfterWrite::drain_and_close);
    }
    if (const auto length = parser_->content_length();
        length && *length > context_.limits.max_upload_bytes + kFormOverheadBytes) {
        return on_read_error(http::error::body_limit);
    }
    if (request[http::field::expect] == "100-continue") {
        static const std::string kContinue = "HTTP/1.1 100 Continue\r\n\r\n";
        net::async_write(socket_, net::buffer(kContinue),
                         [self = shared_from_this()](beast::error_code write_error, std::size_t) {
                             if (write_error) return self->close();
                             self->read_body();
                         });
        return;
    }
    read_body();
}

void HttpSession::read_body() {
    http::async_read(socket_, buffer_, *parser_,
                     [self = shared_from_this()](beast::error_code error, std::size_t) {
                         self->on_body(error);
                     });
}

void HttpSession::on_body(beast::error_code error) {
    if (error) return on_read_error(error);
    deadline_.cancel();
    handle_request();
}

void HttpSession::handle_request() {
    const auto& request = parser_->get();
    const Endpoint endpoint = endpoint_of(request.target());
    if (auto reply = immediate_reply(endpoint, request.method_string(), context_)) {
        return send(*reply, keep_alive_ ? AfterWrite::keep_alive : AfterWrite::close);
    }
    HttpReply refusal;
    if (endpoint == Endpoint::realtime) {
        start_live(refusal);
        if (state_ == State::closed) return;      // the connection is a live session's now
        return send(refusal, AfterWrite::close);  // a refused upgrade ends the connection
    }
    start_job(refusal);
    if (state_ != State::waiting_job) {
        send(refusal, keep_alive_ && refusal.status < 500 && refusal.status != 413
                          ? AfterWrite::keep_alive
                          : AfterWrite::close);
    }
}

void HttpSession::start_job(HttpReply& refusal) {
    const auto& request = parser_->get();
    const std::string_view body = request.body();
    std::vector<FormPart> parts;
    try {
        parts = parse_multipart(body, multipart_boundary(request[http::field::content_type]));
    } catch (const MultipartError& e) {
        refusal = error_reply(
            bad_request(std::string("malformed form: ") + e.what(), {}, "invalid_multipart"));
        return;
    }
    const decoding::Task task = endpoint_of(request.target()) == Endpoint::translations
                                    ? decoding::Task::translate
                                    : decoding::Task::transcribe;
    auto form = read_transcription_form(parts, task);
    if (auto* error = std::get_if<ApiError>(&form)) {
        refusal = error_reply(*error);
        return;
    }
    auto job = std::make_shared<TranscriptionJob>();
    job->request = std::move(std::get<TranscriptionRequest>(form));
    auto model = context_.models->resolve(job->request.model);
    if (auto* error = std::get_if<ApiError>(&model)) {
        refusal = error_reply(*error);
        return;
    }
    job->model = std::get<ServedModel>(model);
    job->audio_file = save_upload(context_.upload_dir, find_part(parts, "file")->body);
    if (job->audio_file.empty()) {
        refusal = error_reply({500, "cannot store the upload", "server_error", {}, {}});
        return;
    }
    parts.clear();
    parser_.reset();  // the body's memory goes now, not when the job ends
    // The reply comes back to this session even after its client has gone, so that the count
    // of jobs in flight (and the shutdown that waits for it) sees every job end. The cycle
    // session -> job -> done -> session ends when on_job_done drops the job.
    auto executor = socket_.get_executor();
    job->done = [self = shared_from_this(), executor](HttpReply reply) {
        net::post(executor, [self, reply = std::move(reply)]() mutable {
            self->on_job_done(std::move(reply));
        });
    };
    switch (context_.jobs->submit(job)) {
        case SubmitOutcome::accepted:
            job_ = std::move(job);
            ++context_.jobs_in_flight;
            state_ = State::waiting_job;
            watch_disconnect();
            return;
        case SubmitOutcome::full:
            refusal = error_reply({429,
                                   "the server is busy: its job queue is full; retry later",
                                   "rate_limit_exceeded",
                                   {},
                                   "queue_full"});
            refusal.retry_after_s = context_.jobs->retry_after_s();
            return;
        case SubmitOutcome::closed:
            refusal = error_reply(
                {503, "the server is shutting down", "server_error", {}, "shutting_down"});
            return;
    }
}

void HttpSession::start_live(HttpReply& refusal) {
    auto& request = parser_->get();
    if (!websocket::is_upgrade(request)) {
        refusal = error_reply({426,
                               "this endpoint speaks WebSocket: connect with a WebSocket client "
                               "(Upgrade: websocket) and send s16le mono PCM",
                               "invalid_request_error",
                               {},
                               "upgrade_required"});
        return;
    }
    auto live = parse_live_request(request.target());
    if (auto* error = std::get_if<ApiError>(&live)) {
        refusal = error_reply(*error);
        return;
    }
    const LiveRequest& asked = std::get<LiveRequest>(live);
    const std::string& served = context_.models->default_model().id;
    if (!asked.model.empty() && asked.model != served && asked.model != "whisper-1") {
        refusal = error_reply(bad_request("live sessions run the served model " + served +
                                              "; start another `earshot serve --model " +
                                              asked.model + "` for that one",
                                          "model", "model_not_served"));
        return;
    }
    auto model = context_.live_models ? context_.live_models->acquire() : nullptr;
    if (!model) {
        const int most = context_.live_models ? context_.live_models->capacity() : 0;
        refusal = error_reply({429,
                               "all " + std::to_string(most) +
                                   " live sessions of this server are in use; retry later",
                               "rate_limit_exceeded",
                               {},
                               "live_sessions_full"});
        refusal.retry_after_s = kLiveRetryAfterS;
        return;
    }
    app::LiveOptions options;
    try {
        options = live_options(asked, *model);
    } catch (const std::exception& e) {
        refusal = error_reply(bad_request(e.what(), "language", "unsupported_language"));
        return;
    }
    auto session = std::make_shared<LiveSession>(std::move(socket_), context_, asked,
                                                 std::move(options), std::move(model));
    context_.live_sessions.remove_if(
        [](const std::weak_ptr<LiveSession>& s) { return s.expired(); });
    context_.live_sessions.push_back(session);
    std::clog << "earshot serve: " << request_line_ << " 101\n";
    state_ = State::closed;
    deadline_.cancel();
    session->start(parser_->release());
    parser_.reset();
}

void HttpSession::watch_disconnect() {
    socket_.async_wait(
        tcp::socket::wait_read, [self = shared_from_this()](beast::error_code error) {
            if (self->state_ != State::waiting_job) return;
            if (!error) {
                char byte = 0;
                beast::error_code peek_error;
                const std::size_t n = self->socket_.receive(net::buffer(&byte, 1),
                                                            tcp::socket::message_peek, peek_error);
                if (n > 0) return;  // the client sent more (a pipelined request): not a disconnect
            } else if (error == net::error::operation_aborted) {
                return;
            }
            // End of stream or a reset: the client has gone; its job stops at its next window.
            self->job_->cancel.store(true);
            self->close();
        });
}

void HttpSession::on_job_done(HttpReply reply) {
    --context_.jobs_in_flight;
    job_.reset();
    if (state_ == State::closed) {
        const auto took =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - request_start_);
        std::clog << "earshot serve: " << request_line_ << " " << reply.status << " "
                  << took.count() << " s (the client went away; job stopped)\n";
        return;
    }
    beast::error_code ignored;
    socket_.cancel(ignored);  // the disconnect watch
    state_ = State::writing;
    send(reply,
         keep_alive_ && !context_.draining.load() ? AfterWrite::keep_alive : AfterWrite::close);
}

void HttpSession::send(const HttpReply& reply, AfterWrite after) {
    state_ = State::writing;
    auto response = std::make_shared<http::response<http::string_body>>(
        static_cast<http::status>(reply.status), 11);
    response->set(http::field::server, "earshot");
    response->set(http::field::content_type, reply.content_type);
    if (reply.retry_after_s > 0) {
        response->set(http::field::retry_after, std::to_string(reply.retry_after_s));
    }
    response->keep_alive(after == AfterWrite::keep_alive);
    response->body() = reply.body;
    response->prepare_payload();
    response_ = response;
    const auto took =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - request_start_);
    std::clog << "earshot serve: " << (request_line_.empty() ? "-" : request_line_) << " "
              << reply.status << " " << took.count() << " s\n";
    arm_deadline(kWriteTimeout);
    http::async_write(socket_, *response,
                      [self = shared_from_this(), after](beast::error_code error, std::size_t) {
                          self->on_written(error, after);
                      });
}

void HttpSession::on_written(beast::error_code error, AfterWrite after) {
    response_.reset();
    request_line_.clear();
    if (error || after == AfterWrite::close) return close();
    if (after == AfterWrite::drain_and_close) return drain_and_close();
    read_header();
}

void HttpSession::drain_and_close() {
    state_ = State::closed;
    beast::error_code ignored;
    socket_.shutdown(tcp::socket::shutdown_send, ignored);
    arm_deadline(kDrainTime);
    drain_some(std::make_shared<DrainBuffer>());
}

void HttpSession::drain_some(std::shared_ptr<DrainBuffer> scratch) {
    socket_.async_read_some(net::buffer(*scratch), [self = shared_from_this(), scratch](
                                                       beast::error_code error, std::size_t) {
        if (error) return self->close();
        self->drain_some(scratch);
    });
}

}  // namespace earshot::server
