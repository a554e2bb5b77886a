// HttpServer: the listening socket, its connections and the orderly stop on SIGTERM or SIGINT
// (no new connection or request, the accepted jobs finish and are answered, then run() returns).
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <cstdint>
#include <list>
#include <memory>
#include <string>

#include "server/server_context.h"

namespace earshot::server {

class HttpSession;

class HttpServer {
public:
    // Binds `host`:`port` (port 0: any free one). Throws boost::system::system_error naming
    // the address when it cannot be bound.
    HttpServer(ServerContext& context, const std::string& host, std::uint16_t port);

    std::uint16_t port() const;

    // Serves on this thread until a stop signal has been handled.
    void run();

private:
    void accept();
    void begin_shutdown();
    void wait_for_jobs();

    ServerContext& context_;
    boost::asio::io_context io_;
    boost::asio::ip::tcp::acceptor acceptor_;
    boost::asio::signal_set signals_;
    boost::asio::steady_timer drain_timer_;
    std::list<std::weak_ptr<HttpSession>> sessions_;
};

}  // namespace earshot::server
