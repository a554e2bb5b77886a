// LiveSession: one live transcription over a WebSocket (/v1/realtime/transcription). The client
// sends s16le mono PCM in binary messages and ends with the text message {"type":"end"}; the
// server runs the live pipeline of `earshot live` (app::LiveController) on it and sends every
// update as the JSON `earshot live --updates-json` writes, then {"type":"done",...}, then closes.
// A client that goes away cancels its session at once; one that sends nothing for the idle time,
// or sends what is not PCM or a control message, is closed with the reason.
#pragma once

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/websocket/stream.hpp>
#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "earshot/audio/stream_resampler.h"
#include "earshot/core/live_controller.h"
#include "server/live_request.h"
#include "server/server_context.h"

namespace earshot::server {

// The largest binary message taken: 16 s of 16 kHz s16le mono (a client sends 20-500 ms).
constexpr std::size_t kLiveMaxMessageBytes = 512 * 1024;

class LiveSession : public std::enable_shared_from_this<LiveSession> {
public:
    LiveSession(boost::asio::ip::tcp::socket socket, ServerContext& context, LiveRequest request,
                app::LiveOptions options, std::shared_ptr<app::LoadedModel> model);
    ~LiveSession();

    // Completes the upgrade `request` asks for, then starts the pipeline and reads audio.
    void start(boost::beast::http::request<boost::beast::http::string_body> request);
    // SIGTERM: the input ends as if the client had sent {"type":"end"}; the last updates and the
    // done message are sent before the close.
    void end_for_shutdown();

private:
    enum class Phase { handshake, streaming, flushing, closing, closed };

    void on_accept(boost::beast::error_code error);
    void read();
    void on_read(boost::beast::error_code error, std::size_t bytes);
    void on_audio();
    void on_control();
    void end_input();
    void arm_idle();
    void watch_engine();
    // Sends {"type":"error","message":...}, then closes with `code` and a short `reason`.
    void fail(boost::beast::websocket::close_code code, const std::string& reason,
              const std::string& message);
    void send(std::string text);
    void write_next();
    void close_after_writes(boost::beast::websocket::close_code code, std::string reason);
    // The engine published an update (posted to the network thread).
    void on_update(std::string json, bool final);
    // The client went away or the connection failed: cancel the pipeline, wait for its threads.
    void abandon();
    void reap_when_done();
    std::string done_message() const;

    boost::beast::websocket::stream<boost::asio::ip::tcp::socket> ws_;
    boost::asio::steady_timer idle_;
    boost::asio::steady_timer reaper_;
    boost::beast::flat_buffer buffer_;
    ServerContext& context_;
    LiveRequest request_;
    app::LiveOptions options_;
    std::shared_ptr<app::LoadedModel> model_;
    std::unique_ptr<app::LiveController> controller_;
    std::optional<audio::StreamResampler> resampler_;
    std::vector<float> samples_;  // one message's samples, reused
    std::deque<std::string> outbox_;
    bool writing_ = false;
    std::optional<std::pair<boost::beast::websocket::close_code, std::string>> close_after_;
    Phase phase_ = Phase::handshake;
    std::uint64_t received_samples_ = 0;  // at the client's rate
    std::uint64_t pushed_samples_ = 0;    // at 16 kHz
    std::int64_t updates_sent_ = 0;
    std::chrono::steady_clock::time_point started_at_;
    std::optional<std::chrono::steady_clock::time_point> ended_at_;
};

}  // namespace earshot::server
