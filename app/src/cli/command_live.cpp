// `earshot live --model PATH [--device NAME | --input FILE [--speed X]] [...]`: live dictation in
// the terminal. Committed text is printed as it is committed, the tentative tail redrawn after
// it; Ctrl-C hears what is still queued, commits it and prints the rest of the transcript.
// --journal FILE appends each committed piece to FILE, on disk before it is shown. Spoken commands
// ("new line", "scratch that"; --commands FILE, --no-commands) edit the text before either.
#include <signal.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iomanip>
#include <memory>
#include <mutex>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "cli/backend_option.h"
#include "cli/command_registry.h"
#include "cli/model_argument.h"
#include "cli/terminal/live_terminal.h"
#include "cli/vocabulary_option.h"
#include "core/dictation/spoken_command_table.h"
#include "core/files/live_journal.h"
#include "core/transcription/live_update_json.h"
#include "core/transcription/vocabulary_list.h"
#include "earshot/app/commands.h"
#include "earshot/core/live_controller.h"
#include "earshot/core/loaded_model.h"
#include "earshot/core/transcription_setup.h"

namespace earshot::app {
namespace {

constexpr int kExitEngineFailed = 1;

struct LiveRequest {
    std::string model;
    std::string vocab;
    std::string device;
    std::string input;
    double speed = 1.0;
    std::string language = "auto";
    std::string task = "transcribe";
    int step_ms = 500;
    bool fixed_step = false;
    bool exact_steps = false;
    int prompt_tokens = 128;
    int pause_ms = 1000;
    double vad_margin_db = 12.0;
    bool no_vad = false;
    std::string updates_json;
    std::string journal;
    std::string commands;
    bool no_commands = false;
    bool no_guard = false;
    VocabularyRequest vocabulary;
    std::string backend = "auto";
};

std::atomic<bool>& interrupted() {
    static std::atomic<bool> flag{false};
    return flag;
}

extern "C" void on_live_interrupt(int /*signal*/) { interrupted().store(true); }

// SIGINT sets interrupted() while alive; the previous handler comes back afterwards.
class LiveInterruptGuard {
public:
    LiveInterruptGuard() {
        interrupted().store(false);
        struct sigaction action {};
        action.sa_handler = on_live_interrupt;
        sigemptyset(&action.sa_mask);
        sigaction(SIGINT, &action, &previous_);
    }
    ~LiveInterruptGuard() { sigaction(SIGINT, &previous_, nullptr); }
    LiveInterruptGuard(const LiveInterruptGuard&) = delete;
    LiveInterruptGuard& operator=(const LiveInterruptGuard&) = delete;

private:
    struct sigaction previous_ {};
};

std::size_t terminal_columns() {
    winsize size{};
    if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 0) return size.ws_col;
    if (const char* columns = std::getenv("COLUMNS")) {
        const int n = std::atoi(columns);
        if (n > 0) return static_cast<std::size_t>(n);
    }
    return 80;
}

bool stdout_is_terminal() {
    const char* term = std::getenv("TERM");
    return isatty(STDOUT_FILENO) == 1 && term != nullptr && std::string(term) != "dumb";
}

double percentile(std::vector<double> values, double p) {
    if (values.empty()) return 0.0;
    std::sort(values.begin(), values.end());
    const auto at = static_cast<std::size_t>(p * static_cast<double>(values.size() - 1) + 0.5);
    return values[std::min(at, values.size() - 1)];
}

int run_live(const LiveRequest& r, std::ostream& out, std::ostream& err) {
    auto fail = [&](const std::string& message, int code = kExitBadInput) {
        err << "earshot live: " << message << "\n";
        return code;
    };
    if (!r.input.empty() && !r.device.empty())
        return fail("--device and --input exclude each other");
    if (r.input.empty() && r.speed != 1.0) return fail("--speed needs --input");
    if (r.no_commands && !r.commands.empty())
        return fail("--commands and --no-commands exclude each other");
    // Spoken commands: the file's table, else the language's built-in one, unless switched off.
    std::shared_ptr<const CommandTable> commands;
    try {
        if (!r.commands.empty()) {
            commands = std::make_shared<const CommandTable>(CommandTable::load(r.commands));
        } else if (!r.no_commands) {
            // The built-in table of the dictation language (English for auto).
            commands = std::make_shared<const CommandTable>(
                CommandTable::defaults_for_language(r.language));
        }
    } catch (const CommandFileError& e) {
        return fail(e.what());
    }

    const backend::BackendChoice backend = backend_choice(r.backend);
    std::unique_ptr<LoadedModel> loaded;
    try {
        require_cuda_if_chosen(backend);  // before any model is read
        const ModelArgument model = resolve_model_argument(r.model, r.vocab);
        if (!model.note.empty()) err << "earshot live: " << model.note << "\n";
        loaded = load_model(model.model, model.vocabulary, backend);
    } catch (const backend::CudaError& e) {
        return fail("--backend cuda: " + backend::cuda_unavailable_reason(e));
    } catch (const std::exception& e) {
        return fail(e.what());
    }
    LiveOptions options;
    options.device = r.device;
    options.input = r.input;
    options.speed = r.speed;
    options.spoken_commands = commands;
    options.guard_invented_words = !r.no_guard;
    TranscriptionChoice choice;
    choice.language = r.language;
    choice.task = r.task == "translate" ? decoding::Task::translate : decoding::Task::transcribe;
    try {
        apply_vocabulary(r.vocabulary, choice);
    } catch (const VocabularyFileError& e) {
        return fail(e.what());
    }
    decoding::StreamingOptions streaming;
    streaming.update_frames = std::max(1, r.step_ms / 10);
    streaming.pacing = r.fixed_step || r.exact_steps ? decoding::UpdatePacing::fixed
                                                     : decoding::UpdatePacing::engine_time;
    options.exact_steps = r.exact_steps;
    streaming.prompt_max_tokens = r.prompt_tokens;
    streaming.pause_commit_s = r.pause_ms / 1000.0;
    streaming.use_vad = !r.no_vad;
    options.vad.margin_db = r.vad_margin_db;
    try {
        // The checked language and task, suppressed tokens, word alignment heads.
        options.streaming = dictation_options(choice, *loaded, std::move(streaming));
    } catch (const TranscriptionSetupError& e) {
        return fail(e.what());
    }

    std::ofstream json;
    if (!r.updates_json.empty()) {
        json.open(r.updates_json, std::ios::binary | std::ios::trunc);
        if (!json) return fail("cannot write " + r.updates_json);
    }

    // The journal is reopened, never truncated: earlier runs' sessions stay above this one's.
    std::unique_ptr<LiveJournal> journal;
    if (!r.journal.empty()) {
        try {
            journal = std::make_unique<LiveJournal>(r.journal, utc_now_iso8601());
        } catch (const LiveJournalError& e) {
            return fail(e.what());
        }
        const std::size_t earlier = journal->earlier_sessions().size();
        err << "earshot live: journal " << r.journal << " (" << earlier
            << (earlier == 1 ? " earlier session" : " earlier sessions") << " kept)\n";
    }
    std::string journal_error;

    LiveTerminal terminal(out, stdout_is_terminal(), terminal_columns());
    std::mutex output_mutex;
    auto on_update = [&](const LiveUpdate& update) {
        const std::lock_guard lock(output_mutex);
        // On disk (fsynced) before the terminal shows it: what the user saw committed survives a
        // kill of the process right after.
        if (journal && journal_error.empty() &&
            (!update.update.committed_text.empty() || update.erased_chars > 0)) {
            try {
                journal->append(update.update.committed_text, update.erased_chars);
            } catch (const LiveJournalError& e) {
                journal_error = e.what();
                err << "\nearshot live: " << journal_error << "; journaling stops\n";
            }
        }
        terminal.show(update);
        if (json.is_open()) {
            json << live_update_json(update) << "\n";
            json.flush();
        }
    };

    const LiveInterruptGuard guard;
    LiveController controller(*loaded->model, loaded->tokenizer, options, on_update);
    try {
        controller.start();
    } catch (const std::exception& e) {
        return fail(e.what());
    }
    // Dictation runs: say once why auto runs on the CPU (a bad argument stays one line).
    if (!loaded->backend_fallback.empty()) err << "earshot: " << loaded->backend_fallback << "\n";
    if (r.input.empty()) {
        err << "earshot live: listening" << (r.device.empty() ? "" : " on " + r.device)
            << "; Ctrl-C ends\n";
    }
    bool device_failed = false;
    while (!controller.wait_for(std::chrono::milliseconds(100))) {
        if (interrupted().load()) {
            controller.stop();  // hears what is queued and commits it
            break;
        }
        for (const audio::CaptureEvent& event : controller.take_events()) {
            if (event.kind == audio::CaptureEventKind::input_overflow) continue;
            if (event.is_error()) {
                const std::lock_guard lock(output_mutex);
                err << "\nearshot live: " << event.message << "\n";
                device_failed = true;
            }
        }
        if (device_failed) {
            controller.stop();
            break;
        }
    }
    controller.stop();
    {
        const std::lock_guard lock(output_mutex);
        terminal.close();
    }

    const LiveStats stats = controller.stats();
    err << std::fixed << std::setprecision(1) << "earshot live: " << stats.audio_s
        << " s of audio, " << stats.updates << (stats.updates == 1 ? " update (" : " updates (")
        << stats.decoded_updates << " decoded, " << stats.coalesced_updates
        << " dropped while the engine was busy)";
    if (!stats.engine_ms.empty()) {
        err << ", engine " << std::setprecision(0) << percentile(stats.engine_ms, 0.5)
            << " ms median / " << percentile(stats.engine_ms, 0.95) << " ms p95 per update";
    }
    err << ", " << stats.dropped_frames << " dropped frames, " << stats.overrun_samples
        << " overrun samples\n";
    if (!stats.error.empty()) return fail(stats.error, kExitEngineFailed);
    return device_failed || !journal_error.empty() ? kExitEngineFailed : kExitOk;
}

}  // namespace

ExtraCommand add_live(CLI::App& root) {
    auto request = std::make_shared<LiveRequest>();
    LiveRequest& r = *request;
    CLI::App* command = root.add_subcommand(
        "live", "Dictate: transcribe the microphone (or a file paced like one) as you speak");
    command->add_option("--model", r.model,
                        "Checkpoint (HF directory or ggml .bin) or a name from `earshot models "
                        "list`; default: the model chosen in the app, else the micro demo model");
    command->add_option("--vocab", r.vocab,
                        "Vocabulary (.tiktoken, HF directory or ggml .bin); default: the model's");
    command->add_option("--device", r.device,
                        "Input device: a name, a unique part of one, or an index (earshot "
                        "devices); default: the system's default input");
    command->add_option("--input", r.input,
                        "Feed this audio file instead of a microphone, at --speed times real time");
    command->add_option("--speed", r.speed, "Pacing of --input (1 = real time)")
        ->check(CLI::Range(0.01, 1000.0))
        ->capture_default_str();
    command->add_option("--language", r.language, "Spoken language code, or auto to detect it")
        ->capture_default_str();
    command->add_option("--task", r.task, "transcribe, or translate to English")
        ->check(CLI::IsMember({"transcribe", "translate"}))
        ->capture_default_str();
    command
        ->add_option("--step-ms", r.step_ms,
                     "New audio between two updates, in ms: the most (updates come as often as "
                     "the engine's speed allows, from 100 ms), or exactly with --fixed-step")
        ->check(CLI::Range(100, 10000))
        ->capture_default_str();
    command->add_flag("--fixed-step", r.fixed_step,
                      "Update every --step-ms, not as often as the engine allows");
    command->add_flag("--exact-steps", r.exact_steps,
                      "Update after exactly every --step-ms of audio, never skipping one when the "
                      "engine is late (implies --fixed-step): the same audio gives the same "
                      "updates, as `earshot serve`'s live endpoint with exact_steps=1");
    command
        ->add_option("--prompt-tokens", r.prompt_tokens,
                     "Committed text tokens kept as the prompt of the next window")
        ->check(CLI::Range(0, 223))
        ->capture_default_str();
    command
        ->add_option("--pause-ms", r.pause_ms,
                     "Silence after speech that commits the tentative text, in ms")
        ->check(CLI::Range(100, 60000))
        ->capture_default_str();
    command
        ->add_option("--vad-margin-db", r.vad_margin_db,
                     "Speech is this much louder than the noise floor, in dB")
        ->check(CLI::Range(0.0, 60.0))
        ->capture_default_str();
    command->add_flag("--no-vad", r.no_vad, "Decode every update, silence or not");
    command->add_option("--updates-json", r.updates_json,
                        "Write every update as a line of JSON to this file");
    command->add_option("--journal", r.journal,
                        "Append the committed text to this file as it is committed (written "
                        "to disk each time; a new session each run, earlier ones kept)");
    command->add_option("--commands", r.commands,
                        "Spoken commands from this file, one phrase<TAB>action a line (actions: "
                        "insert:TEXT, newline, paragraph, delete-last-utterance, undo, "
                        "capitalize-next, all-caps-on, all-caps-off); default: the English "
                        "table (new line, comma, period, scratch that, ...)");
    command->add_flag("--no-commands", r.no_commands,
                      "Take every word as dictated text: no spoken commands this session");
    command->add_flag("--no-guard", r.no_guard,
                      "Commit what the decoder wrote even when it looks invented (a repetition "
                      "loop, \"Thank you.\" over silence)");
    add_vocabulary_options(*command, r.vocabulary);
    add_backend_option(*command, r.backend);
    return {command, [request](std::ostream& out, std::ostream& err) {
                return run_live(*request, out, err);
            }};
}

}  // namespace earshot::app
