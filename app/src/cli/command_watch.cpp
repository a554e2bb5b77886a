// `earshot watch DIR [--out DIR] [--model M] [...]`: transcribes every recording that appears in
// DIR once it has stopped growing (core/files/watch_folder.h), each by an `earshot transcribe`
// child (its atomic outputs, its one-line errors; a file that crashes the decoder does not stop
// the watch), skipping a recording whose transcripts are already there and newer than it, so a
// restarted watch does not redo its work. Ctrl-C or SIGTERM lets the file in progress finish;
// a second one stops it at its next window (its transcript so far is written, marked incomplete).
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <filesystem>
#include <iomanip>
#include <memory>
#include <ostream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "cli/command_registry.h"
#include "core/files/watch_folder.h"
#include "earshot/app/commands.h"

extern char** environ;

namespace earshot::app {
namespace {

namespace fs = std::filesystem;

struct WatchRequest {
    std::string folder;
    std::string out;
    std::string model;
    std::string language = "auto";
    std::string task = "transcribe";
    std::string formats = "txt,srt,vtt,json";
    std::string backend = "auto";
    double settle_s = 2.0;
    int poll_ms = 500;
};

std::atomic<int>& stop_signals() {
    static std::atomic<int> count{0};
    return count;
}

extern "C" void on_watch_stop(int /*signal*/) { stop_signals().fetch_add(1); }

// SIGINT and SIGTERM count into stop_signals() while alive.
class StopGuard {
public:
    StopGuard() {
        stop_signals().store(0);
        struct sigaction action {};
        action.sa_handler = on_watch_stop;
        sigemptyset(&action.sa_mask);
        sigaction(SIGINT, &action, &previous_int_);
        sigaction(SIGTERM, &action, &previous_term_);
    }
    ~StopGuard() {
        sigaction(SIGINT, &previous_int_, nullptr);
        sigaction(SIGTERM, &previous_term_, nullptr);
    }
    StopGuard(const StopGuard&) = delete;
    StopGuard& operator=(const StopGuard&) = delete;

private:
    struct sigaction previous_int_ {};
    struct sigaction previous_term_ {};
};

std::vector<std::string> split_formats(const std::string& list) {
    std::vector<std::string> formats;
    std::stringstream stream(list);
    std::string item;
    while (std::getline(stream, item, ',')) {
        if (!item.empty()) formats.push_back(item);
    }
    return formats;
}

// Done: every format's transcript is in `out`, newer than the recording (a recording written
// again after its transcripts is transcribed again), and none is marked incomplete.
bool transcripts_newer(const fs::path& input, const fs::path& out,
                       const std::vector<std::string>& formats) {
    std::error_code error;
    const auto input_time = fs::last_write_time(input, error);
    if (error) return false;
    // An interrupted transcription left this marker beside its partial transcripts.
    const std::string name = transcript_name(input);
    if (fs::exists(out / (name + ".incomplete"), error)) return false;
    for (const std::string& format : formats) {
        const fs::path target = out / (name + "." + format);
        const auto target_time = fs::last_write_time(target, error);
        if (error || target_time < input_time) return false;
    }
    return true;
}

// Runs `earshot transcribe` on `input` in its own process group (a Ctrl-C at the terminal reaches
// the watch only, which lets the child finish); returns its exit status, -1 when it could not
// start. A second stop signal is passed on to the child as SIGINT.
int transcribe_child(const WatchRequest& r, const fs::path& input, const fs::path& out) {
    std::error_code error;
    const fs::path self = fs::read_symlink("/proc/self/exe", error);
    std::vector<std::string> args = {
        self.string(), "transcribe", input.string(), "--output-dir",  out.string(),
        "--format",    r.formats,    "--language",   r.language,      "--task",
        r.task,        "--backend",  r.backend,      "--output-name", transcript_name(input)};
    if (!r.model.empty()) {
        args.push_back("--model");
        args.push_back(r.model);
    }
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    posix_spawnattr_t attributes;
    posix_spawnattr_init(&attributes);
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP);
    posix_spawnattr_setpgroup(&attributes, 0);
    pid_t child = 0;
    const int spawned = posix_spawn(&child, argv[0], nullptr, &attributes, argv.data(), environ);
    posix_spawnattr_destroy(&attributes);
    if (spawned != 0) return -1;
    bool passed_on = false;
    int status = 0;
    for (;;) {
        const pid_t done = waitpid(child, &status, WNOHANG);
        if (done == child) break;
        if (done < 0 && errno != EINTR) return -1;
        if (!passed_on && stop_signals().load() >= 2) {
            ::kill(child, SIGINT);  // the second Ctrl-C: stop this file at its next window
            passed_on = true;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    if (WIFEXITED(status)) return WEXITSTATUS(status);
    return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

int run_watch(const WatchRequest& r, std::ostream& out, std::ostream& err) {
    auto fail = [&](const std::string& message) {
        err << "earshot watch: " << message << "\n";
        return kExitBadInput;
    };
    const fs::path folder(r.folder);
    std::error_code error;
    if (!fs::is_directory(folder, error)) return fail(r.folder + ": not a folder");
    const fs::path out_dir = r.out.empty() ? folder / "transcripts" : fs::path(r.out);
    fs::create_directories(out_dir, error);
    if (!fs::is_directory(out_dir))
        return fail("cannot create the output folder " + out_dir.string());
    const std::vector<std::string> formats = split_formats(r.formats);
    for (const std::string& f : formats) {
        if (f != "txt" && f != "srt" && f != "vtt" && f != "json") {
            return fail("unknown format \"" + f + "\" (expected txt, srt, vtt or json)");
        }
    }
    if (formats.empty()) return fail("--format names no format");

    const StopGuard guard;
    WatchFolder watch(folder, std::chrono::milliseconds(static_cast<int64_t>(r.settle_s * 1000)));
    err << "earshot watch: watching " << folder.string() << " (a file is taken once unchanged for "
        << std::fixed << std::setprecision(1) << r.settle_s << " s); transcripts in "
        << out_dir.string() << "; Ctrl-C stops after the file in progress" << std::endl;
    std::string last_error;
    int transcribed = 0;
    int failed = 0;
    while (stop_signals().load() == 0) {
        for (const WatchEvent& event : watch.scan(WatchFolder::Clock::now())) {
            if (stop_signals().load() > 0) break;
            const std::string name = event.path.filename().string();
            if (event.verdict != WatchVerdict::ready) {
                err << "earshot watch: ignored " << name << ": " << event.reason << std::endl;
                continue;
            }
            if (transcripts_newer(event.path, out_dir, formats)) {
                out << "Skipped " << name << ": its transcripts are there, newer than it"
                    << std::endl;
                continue;
            }
            err << "earshot watch: transcribing " << name << std::endl;
            const auto start = std::chrono::steady_clock::now();
            const int status = transcribe_child(r, event.path, out_dir);
            const double took_s =
                std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
            if (status == 0) {
                ++transcribed;
                out << "Transcribed " << name << " in " << std::fixed << std::setprecision(1)
                    << took_s << " s" << std::endl;
            } else {
                ++failed;
                err << "earshot watch: " << name << ": not transcribed ("
                    << (status < 0 ? std::string("earshot transcribe did not start")
                                   : "earshot transcribe exited " + std::to_string(status))
                    << "); it is tried again when it changes" << std::endl;
            }
        }
        if (watch.error_message() != last_error) {
            last_error = watch.error_message();
            if (!last_error.empty())
                err << "earshot watch: cannot read " << last_error << std::endl;
        }
        for (int waited = 0; waited < r.poll_ms && stop_signals().load() == 0; waited += 50) {
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        }
    }
    err << "earshot watch: stopped (" << transcribed << " transcribed, " << failed << " failed)"
        << std::endl;
    return kExitOk;
}

}  // namespace

ExtraCommand add_watch(CLI::App& root) {
    auto request = std::make_shared<WatchRequest>();
    WatchRequest& r = *request;
    CLI::App* command = root.add_subcommand(
        "watch", "Transcribe every recording that appears in a folder, once it stops growing");
    command->add_option("folder", r.folder, "The folder to watch (not its subfolders)")->required();
    command->add_option("--out", r.out,
                        "Where the transcripts go; default: a folder \"transcripts\" inside it");
    command->add_option("--model", r.model,
                        "Checkpoint or a name from `earshot models list`, as for transcribe");
    command->add_option("--language", r.language, "Spoken language code, or auto to detect it")
        ->capture_default_str();
    command->add_option("--task", r.task, "transcribe, or translate to English")
        ->check(CLI::IsMember({"transcribe", "translate"}))
        ->capture_default_str();
    command->add_option("--format", r.formats, "Comma-separated: txt, srt, vtt, json")
        ->capture_default_str();
    command->add_option("--backend", r.backend, "auto, cpu or cuda")
        ->check(CLI::IsMember({"auto", "cpu", "cuda"}))
        ->capture_default_str();
    command
        ->add_option("--settle-s", r.settle_s,
                     "Seconds a file's size and time must stay the same before it is taken")
        ->check(CLI::Range(0.1, 3600.0))
        ->capture_default_str();
    command->add_option("--poll-ms", r.poll_ms, "How often the folder is looked at, in ms")
        ->check(CLI::Range(50, 60000))
        ->capture_default_str();
    return {command, [request](std::ostream& out, std::ostream& err) {
                return run_watch(*request, out, err);
            }};
}

}  // namespace earshot::app
