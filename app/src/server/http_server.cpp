// HttpServer: accept loop and shutdown.
#include "server/http_server.h"

#include <csignal>
#include <iostream>

#include "server/http_session.h"
#include "server/live_session.h"

namespace earshot::server {

namespace net = boost::asio;
using tcp = net::ip::tcp;

namespace {
constexpr auto kDrainPoll = std::chrono::milliseconds(50);
}

HttpServer::HttpServer(ServerContext& context, const std::string& host, std::uint16_t port)
    : context_(context), acceptor_(io_), signals_(io_, SIGTERM, SIGINT), drain_timer_(io_) {
    const tcp::endpoint endpoint(net::ip::make_address(host), port);
    acceptor_.open(endpoint.protocol());
    acceptor_.set_option(net::socket_base::reuse_address(true));
    acceptor_.bind(endpoint);
    acceptor_.listen();
}

std::uint16_t HttpServer::port() const { return acceptor_.local_endpoint().port(); }

void HttpServer::run() {
    signals_.async_wait([this](const boost::system::error_code& error, int) {
        if (!error) begin_shutdown();
    });
    accept();
    io_.run();
}

void HttpServer::accept() {
    acceptor_.async_accept([this](const boost::system::error_code& error, tcp::socket socket) {
        if (error == net::error::operation_aborted || !acceptor_.is_open()) return;
        if (!error) {
            auto session = std::make_shared<HttpSession>(std::move(socket), context_);
            sessions_.remove_if([](const std::weak_ptr<HttpSession>& s) { return s.expired(); });
            sessions_.push_back(session);
            session->start();
        }
        accept();
    });
}

void HttpServer::begin_shutdown() {
    std::clog << "earshot serve: stopping: no new requests; finishing " << context_.jobs_in_flight
              << " job(s)\n";
    context_.draining.store(true);
    boost::system::error_code ignored;
    acceptor_.close(ignored);
    context_.jobs->close();
    for (const auto& weak : sessions_) {
        if (auto session = weak.lock()) session->close_if_idle();
    }
    // Live sessions hear the end of their input: their last updates and done message go out.
    for (const auto& weak : context_.live_sessions) {
        if (auto session = weak.lock()) session->end_for_shutdown();
    }
    wait_for_jobs();
}

void HttpServer::wait_for_jobs() {
    // The sessions still reading a request answer 503 and close; those waiting for a job close
    // after its reply is written. run() returns once nothing is left.
    const int live = context_.live_models ? context_.live_models->in_use() : 0;
    if (context_.jobs_in_flight == 0 && live == 0) return;
    drain_timer_.expires_after(kDrainPoll);
    drain_timer_.async_wait([this](const boost::system::error_code& error) {
        if (!error) wait_for_jobs();
    });
}

}  // namespace earshot::server
