// run_server: options (CLI11), the model, the upload folder, the server.
#include "server/run_server.h"

#include <stdlib.h>

#include <CLI/CLI.hpp>
#include <boost/asio/ip/address.hpp>
#include <boost/system/system_error.hpp>
#include <cstdint>
#include <filesystem>
#include <iostream>
#include <string>
#include <system_error>

#include "earshot/engine/backend/backend_choice.h"
#include "server/api_key.h"
#include "server/http_server.h"
#include "server/job_queue.h"
#include "server/live_models.h"
#include "server/model_registry.h"
#include "server/server_context.h"

namespace earshot::server {
namespace {

constexpr int kExitOk = 0;
constexpr int kExitBadInput = 2;  // as every earshot command (earshot/app/commands.h)

struct ServeOptions {
    std::string host = "127.0.0.1";
    std::uint16_t port = 8080;
    std::string model;
    std::string backend = "auto";
    std::string api_key;
    std::string api_key_file;
    double max_upload_mb = 25.0;
    double max_audio_s = 3600.0;
    int queue = 8;
    int workers = 1;
    int beam = 5;
    int read_timeout_s = 30;
    int live_sessions = 2;
    int live_idle_s = 30;
};

bool is_loopback(const std::string& host) {
    boost::system::error_code error;
    const auto address = boost::asio::ip::make_address(host, error);
    return !error && address.is_loopback();
}

// A private folder for the uploads under $TMPDIR, removed when the server ends.
class UploadDir {
public:
    UploadDir() {
        std::string pattern =
            (std::filesystem::temp_directory_path() / "earshot-serve-XXXXXX").string();
        if (::mkdtemp(pattern.data()) == nullptr) {
            throw std::runtime_error("cannot create a folder for uploads in " +
                                     std::filesystem::temp_directory_path().string());
        }
        path_ = pattern;
    }
    ~UploadDir() {
        std::error_code ignored;
        std::filesystem::remove_all(path_, ignored);
    }
    UploadDir(const UploadDir&) = delete;
    UploadDir& operator=(const UploadDir&) = delete;
    const std::filesystem::path& path() const { return path_; }

private:
    std::filesystem::path path_;
};

int serve(const ServeOptions& o) {
    const auto fail = [](const std::string& message) {
        std::cerr << "earshot serve: " << message << "\n";
        return kExitBadInput;
    };
    ServerContext context;
    context.api_key = o.api_key;
    try {
        if (!o.api_key_file.empty()) context.api_key = read_api_key_file(o.api_key_file);
    } catch (const std::exception& e) {
        return fail(e.what());
    }
    if (!is_loopback(o.host) && context.api_key.empty()) {
        return fail("--host " + o.host +
                    " is reachable from other machines: give --api-key KEY "
                    "or --api-key-file PATH (and put TLS in front: see the README)");
    }
    context.limits.max_upload_bytes = static_cast<std::size_t>(o.max_upload_mb * 1e6);
    context.limits.read_timeout = std::chrono::seconds(o.read_timeout_s);
    context.limits.live_idle_timeout = std::chrono::seconds(o.live_idle_s);
    JobSettings settings;
    settings.backend =
        backend::parse_backend_choice(o.backend).value_or(backend::BackendChoice::automatic);
    settings.beam_size = o.beam;
    settings.max_audio_s = o.max_audio_s;
    try {
        const ModelRegistry models(o.model);
        context.models = &models;
        JobQueue jobs(o.workers, static_cast<std::size_t>(o.queue), models.default_model().path,
                      settings);
        if (const std::string fallback = jobs.load_default_model(); !fallback.empty()) {
            std::cerr << "earshot serve: " << fallback << "\n";
        }
        context.jobs = &jobs;
        LiveModels live(models.default_model().path, o.live_sessions, settings.backend);
        context.live_models = &live;
        const UploadDir uploads;
        context.upload_dir = uploads.path();
        HttpServer server(context, o.host, o.port);
        // The one line a supervisor or a test reads to learn the port (with --port 0).
        std::cout << "earshot serve: listening on http://" << o.host << ":" << server.port()
                  << " (model " << models.default_model().id << ", " << o.workers
                  << " worker(s), queue " << o.queue << ", " << o.live_sessions
                  << " live session(s) at ws://" << o.host << ":" << server.port()
                  << "/v1/realtime/transcription)" << std::endl;
        server.run();
        jobs.close_and_join();
        std::cerr << "earshot serve: stopped\n";
    } catch (const boost::system::system_error& e) {
        return fail(o.host + ":" + std::to_string(o.port) + ": " + e.what());
    } catch (const std::exception& e) {
        return fail(e.what());
    }
    return kExitOk;
}

}  // namespace

int run_server(int argc, char** argv) {
    ServeOptions o;
    CLI::App app{
        "Serve OpenAI's audio transcription API (POST /v1/audio/transcriptions, "
        "/v1/audio/translations; GET /v1/models, /health; live over a WebSocket at "
        "/v1/realtime/transcription) without a display",
        "earshot serve"};
    app.add_option("--host", o.host,
                   "Address to listen on; any but loopback needs --api-key or --api-key-file")
        ->capture_default_str();
    app.add_option("--port", o.port, "TCP port (0: any free one, printed when listening)")
        ->capture_default_str();
    app.add_option("--model", o.model,
                   "Default model: checkpoint path or a name from `earshot models list`; "
                   "default: the embedded micro model");
    app.add_option("--backend", o.backend, "auto, cpu or cuda")
        ->check(CLI::IsMember({"auto", "cpu", "cuda"}))
        ->capture_default_str();
    app.add_option("--api-key", o.api_key, "Require `Authorization: Bearer KEY`");
    app.add_option("--api-key-file", o.api_key_file, "The key in a file's first line")
        ->excludes(app.get_option("--api-key"));
    app.add_option("--max-upload-mb", o.max_upload_mb, "Largest upload, in MB (413 above)")
        ->check(CLI::Range(0.001, 4000.0))
        ->capture_default_str();
    app.add_option("--max-audio-s", o.max_audio_s, "Longest audio, in seconds (413 above)")
        ->check(CLI::Range(1.0, 1e6))
        ->capture_default_str();
    app.add_option("--queue", o.queue, "Jobs waiting beyond the running ones (429 above)")
        ->check(CLI::Range(0, 10000))
        ->capture_default_str();
    app.add_option("--workers", o.workers, "Jobs run at once, each with its own model copy")
        ->check(CLI::Range(1, 64))
        ->capture_default_str();
    app.add_option("--beam", o.beam, "Beam size at temperature 0 (1 = greedy)")
        ->check(CLI::Range(1, 64))
        ->capture_default_str();
    app.add_option("--read-timeout-s", o.read_timeout_s,
                   "A request must arrive within this many seconds (408 after)")
        ->check(CLI::Range(1, 3600))
        ->capture_default_str();
    app.add_option("--live-sessions", o.live_sessions,
                   "Live WebSocket sessions at once, each with its own model copy loaded at "
                   "start (0: the live endpoint refuses every session with 429)")
        ->check(CLI::Range(0, 64))
        ->capture_default_str();
    app.add_option("--live-idle-s", o.live_idle_s,
                   "A live session that sends nothing for this many seconds is closed")
        ->check(CLI::Range(1, 3600))
        ->capture_default_str();
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& error) {
        return app.exit(error) == 0 ? kExitOk : kExitBadInput;
    }
    return serve(o);
}

}  // namespace earshot::server
