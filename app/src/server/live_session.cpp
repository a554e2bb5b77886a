// LiveSession: the WebSocket's reads and writes, and the live pipeline behind them.
#include "server/live_session.h"

#include <boost/asio/post.hpp>
#include <boost/beast/core/buffers_to_string.hpp>
#include <boost/beast/websocket/rfc6455.hpp>
#include <chrono>
#include <cstring>
#include <iostream>
#include <nlohmann/json.hpp>

#include "core/transcription/live_update_json.h"

namespace earshot::server {

namespace beast = boost::beast;
namespace websocket = beast::websocket;
namespace net = boost::asio;

namespace {

constexpr double kPcmScale = 1.0 / 32768.0;  // s16 -> [-1, 1)
// How often a session whose pipeline is stopping looks whether its threads are done.
constexpr auto kReapPoll = std::chrono::milliseconds(10);
// How often a running session looks whether its engine failed.
constexpr auto kEngineWatch = std::chrono::milliseconds(200);

std::string error_message(const std::string& message) {
    nlohmann::ordered_json j;
    j["type"] = "error";
    j["message"] = message;
    return j.dump();
}

}  // namespace

LiveSession::LiveSession(net::ip::tcp::socket socket, ServerContext& context, LiveRequest request,
                         app::LiveOptions options, std::shared_ptr<app::LoadedModel> model)
    : ws_(std::move(socket)),
      idle_(ws_.get_executor()),
      reaper_(ws_.get_executor()),
      context_(context),
      request_(std::move(request)),
      options_(std::move(options)),
      model_(std::move(model)) {}

LiveSession::~LiveSession() {
    // Normally reaped already; a session dropped otherwise stops its pipeline here.
    if (controller_) controller_->cancel();
}

void LiveSession::start(beast::http::request<beast::http::string_body> request) {
    ws_.set_option(websocket::stream_base::timeout::suggested(beast::role_type::server));
    ws_.set_option(websocket::stream_base::decorator([](websocket::response_type& response) {
        response.set(beast::http::field::server, "earshot");
    }));
    ws_.read_message_max(kLiveMaxMessageBytes);
    ws_.async_accept(
        request, [self = shared_from_this()](beast::error_code error) { self->on_accept(error); });
}

void LiveSession::on_accept(beast::error_code error) {
    if (error) {
        phase_ = Phase::closed;
        model_.reset();
        return;
    }
    if (request_.sample_rate_hz != audio::StreamResampler::kWhisperRateHz) {
        resampler_.emplace(request_.sample_rate_hz);
    }
    auto executor = ws_.get_executor();
    std::weak_ptr<LiveSession> weak = weak_from_this();
    controller_ = std::make_unique<app::LiveController>(
        *model_->model, model_->tokenizer, options_,
        [weak, executor](const app::LiveUpdate& update) {
            net::post(executor, [weak, json = app::live_update_json(update),
                                 final = update.update.final]() mutable {
                if (auto self = weak.lock()) self->on_update(std::move(json), final);
            });
        });
    try {
        controller_->start();
    } catch (const std::exception& e) {
        return fail(websocket::close_code::internal_error, "the pipeline did not start", e.what());
    }
    phase_ = Phase::streaming;
    started_at_ = std::chrono::steady_clock::now();
    std::clog << "earshot serve: live session started (" << request_.sample_rate_hz << " Hz"
              << (request_.exact_steps ? ", exact steps" : "") << ")\n";
    arm_idle();
    watch_engine();
    read();
}

void LiveSession::end_for_shutdown() {
    if (phase_ == Phase::streaming) end_input();
}

void LiveSession::read() {
    ws_.async_read(buffer_, [self = shared_from_this()](beast::error_code error, std::size_t n) {
        self->on_read(error, n);
    });
}

void LiveSession::on_read(beast::error_code error, std::size_t /*bytes*/) {
    if (error) {
        if (phase_ == Phase::closing || phase_ == Phase::closed) return;
        if (error == websocket::error::message_too_big) {
            // Beast has closed the connection with 1009 (too big).
            std::clog << "earshot serve: live session closed: a message over "
                      << kLiveMaxMessageBytes << " bytes\n";
        } else {
            std::clog << "earshot serve: live session ended by the client (" << error.message()
                      << "); stopped\n";
        }
        return abandon();
    }
    if (phase_ == Phase::closing || phase_ == Phase::closed) return;
    if (ws_.got_binary()) {
        on_audio();
    } else {
        on_control();
    }
    buffer_.consume(buffer_.size());
    if (phase_ == Phase::streaming || phase_ == Phase::flushing) read();
}

void LiveSession::on_audio() {
    const std::size_t bytes = buffer_.size();
    if (phase_ != Phase::streaming) {
        return fail(websocket::close_code::policy_error, "audio after end",
                    "audio arrived after {\"type\":\"end\"}");
    }
    if (bytes % 2 != 0) {
        return fail(websocket::close_code::bad_payload, "odd-length PCM",
                    "binary messages carry s16le mono PCM: " + std::to_string(bytes) +
                        " bytes is not a whole number of 2-byte samples");
    }
    arm_idle();
    samples_.resize(bytes / 2);
    const auto* data = static_cast<const unsigned char*>(buffer_.data().data());
    for (std::size_t i = 0; i < samples_.size(); ++i) {
        const auto value =
            static_cast<std::int16_t>(static_cast<std::uint16_t>(data[2 * i]) |
                                      static_cast<std::uint16_t>(data[2 * i + 1] << 8));
        samples_[i] = static_cast<float>(value * kPcmScale);
    }
    received_samples_ += samples_.size();
    if (resampler_) {
        const std::span<const float> out = resampler_->push(samples_);
        pushed_samples_ += out.size();
        controller_->push_samples(out);
    } else {
        pushed_samples_ += samples_.size();
        controller_->push_samples(samples_);
    }
}

void LiveSession::on_control() {
    const std::string text = beast::buffers_to_string(buffer_.data());
    const nlohmann::json message = nlohmann::json::parse(text, nullptr, false);
    if (message.is_discarded() || !message.is_object() || !message.contains("type") ||
        !message["type"].is_string()) {
        return fail(websocket::close_code::bad_payload, "text must be JSON control messages",
                    "text messages are JSON control messages such as {\"type\":\"end\"}; got " +
                        std::to_string(text.size()) + " bytes that are not");
    }
    const std::string type = message["type"].get<std::string>();
    if (type == "end") {
        if (phase_ != Phase::streaming) {
            return fail(websocket::close_code::policy_error, "end twice",
                        "{\"type\":\"end\"} came twice");
        }
        return end_input();
    }
    fail(websocket::close_code::policy_error, "unknown message type",
         "unknown message type \"" + type + "\" (known: end)");
}

void LiveSession::end_input() {
    phase_ = Phase::flushing;
    idle_.cancel();
    ended_at_ = std::chrono::steady_clock::now();
    if (resampler_) {
        const std::span<const float> out = resampler_->finish();
        pushed_samples_ += out.size();
        controller_->push_samples(out);
    }
    controller_->end_input();  // the engine hears what is queued, then publishes the final update
}

void LiveSession::arm_idle() {
    idle_.expires_after(context_.limits.live_idle_timeout);
    idle_.async_wait([self = shared_from_this()](beast::error_code error) {
        if (error || self->phase_ != Phase::streaming) return;
        self->fail(websocket::close_code::policy_error, "idle timeout",
                   "no message for " +
                       std::to_string(self->context_.limits.live_idle_timeout.count()) +
                       " s: the session ends without a final update");
    });
}

void LiveSession::watch_engine() {
    reaper_.expires_after(kEngineWatch);
    reaper_.async_wait([self = shared_from_this()](beast::error_code error) {
        if (error) return;
        if (self->phase_ != Phase::streaming && self->phase_ != Phase::flushing) return;
        if (self->controller_->done()) {
            const std::string why = self->controller_->stats().error;
            if (!why.empty()) {
                return self->fail(websocket::close_code::internal_error, "the engine failed", why);
            }
        }
        self->watch_engine();
    });
}

void LiveSession::fail(websocket::close_code code, const std::string& reason,
                       const std::string& message) {
    std::clog << "earshot serve: live session closed: " << message << "\n";
    if (controller_) controller_->request_cancel();
    idle_.cancel();
    phase_ = Phase::closing;
    send(error_message(message));
    close_after_writes(code, reason);
}

void LiveSession::on_update(std::string json, bool final) {
    if (phase_ != Phase::streaming && phase_ != Phase::flushing) return;
    ++updates_sent_;
    send(std::move(json));
    if (!final) return;
    phase_ = Phase::closing;
    idle_.cancel();
    send(done_message());
    close_after_writes(websocket::close_code::normal,
                       context_.draining.load() ? "the server is stopping" : "done");
}

std::string LiveSession::done_message() const {
    const app::LiveStats stats = controller_->stats();
    const double audio_s = static_cast<double>(pushed_samples_) /
                           static_cast<double>(audio::StreamResampler::kWhisperRateHz);
    nlohmann::ordered_json j;
    j["type"] = "done";
    j["audio_s"] = audio_s;
    j["updates"] = stats.updates;
    j["decoded_updates"] = stats.decoded_updates;
    j["coalesced_updates"] = stats.coalesced_updates;
    j["dropped_frames"] = stats.dropped_frames;
    // From the end of the input (the client's end message, or SIGTERM) to this message.
    j["flush_ms"] = ended_at_ ? std::chrono::duration<double, std::milli>(
                                    std::chrono::steady_clock::now() - *ended_at_)
                                    .count()
                              : 0.0;
    return j.dump();
}

void LiveSession::send(std::string text) {
    outbox_.push_back(std::move(text));
    if (!writing_) write_next();
}

void LiveSession::write_next() {
    if (outbox_.empty()) {
        writing_ = false;
        if (close_after_) {
            auto [code, reason] = *close_after_;
            close_after_.reset();
            ws_.async_close(websocket::close_reason(code, reason),
                            [self = shared_from_this()](beast::error_code) {
                                self->phase_ = Phase::closed;
                                self->reap_when_done();
                            });
        }
        return;
    }
    writing_ = true;
    ws_.text(true);
    ws_.async_write(net::buffer(outbox_.front()),
                    [self = shared_from_this()](beast::error_code error, std::size_t) {
                        self->outbox_.pop_front();
                        if (error) return self->abandon();
                        self->write_next();
                    });
}

void LiveSession::close_after_writes(websocket::close_code code, std::string reason) {
    close_after_ = std::make_pair(code, std::move(reason));
    if (!writing_) write_next();
}

void LiveSession::abandon() {
    if (phase_ == Phase::closed && !controller_ && !model_) return;
    phase_ = Phase::closed;
    idle_.cancel();
    outbox_.clear();
    close_after_.reset();
    if (controller_) controller_->request_cancel();
    beast::error_code ignored;
    beast::get_lowest_layer(ws_).close(ignored);
    reap_when_done();
}

void LiveSession::reap_when_done() {
    if (controller_ && !controller_->done()) {
        reaper_.expires_after(kReapPoll);
        reaper_.async_wait([self = shared_from_this()](beast::error_code error) {
            if (error == net::error::operation_aborted && self->phase_ != Phase::closed) return;
            self->reap_when_done();
        });
        return;
    }
    controller_.reset();  // its threads are done: joining them does not block
    model_.reset();       // the model copy is free for the next session
}

}  // namespace earshot::server
