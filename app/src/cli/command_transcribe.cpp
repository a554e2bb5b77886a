// `earshot transcribe FILE... --model PATH [...]`: long-form transcription of audio files on the
// chosen backend, written as TXT, SRT, WebVTT and/or JSON next to each input or in --output-dir.
#include <signal.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <memory>
#include <optional>
#include <ostream>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "cli/backend_option.h"
#include "cli/command_registry.h"
#include "cli/model_argument.h"
#include "cli/terminal/transcribe_progress.h"
#include "cli/transcribe_inputs.h"
#include "cli/transcribe_summary.h"
#include "cli/vocabulary_option.h"
#include "core/files/atomic_file.h"
#include "core/files/transcript_formats.h"
#include "core/transcription/streaming_mel_source.h"
#include "core/transcription/vocabulary_list.h"
#include "earshot/app/commands.h"
#include "earshot/audio/file_decoder.h"
#include "earshot/audio/log_mel.h"
#include "earshot/core/loaded_model.h"
#include "earshot/core/transcription_setup.h"
#include "earshot/engine/decoding/decoder_model.h"
#include "earshot/engine/decoding/long_form.h"
#include "earshot/engine/model/whisper_checkpoint.h"
#include "earshot/engine/runtime/weight_residency.h"
#include "earshot/engine/tokenizer/tokenizer.h"

namespace earshot::app {
namespace {

namespace fs = std::filesystem;

constexpr int kExitSomeFileFailed = 1;  // some inputs failed, the others were written (every
                                        // input failing is kExitBadInput)
constexpr int kExitInterrupted = 130;   // Ctrl-C, as shells report SIGINT (128 + 2)

struct TranscribeRequest {
    std::vector<std::string> inputs;
    std::vector<std::string> manifests;
    std::string shard;  // "K/N"; empty: every input
    bool skip_done = false;
    std::string model;
    std::string vocab;
    std::string language = "auto";
    std::string task = "transcribe";
    int beam = 5;
    std::optional<double> temperature;
    std::string prompt;
    VocabularyRequest vocabulary;
    bool no_timestamps = false;
    std::string formats = "txt,srt,vtt,json";
    bool word_timestamps = false;
    std::string segment_times = "speech";
    int max_line_words = 0;
    std::string output_dir;
    std::string output_name;  // one input's outputs' name without extension; empty: its stem
    std::string summary;      // the batch's summary JSON; empty: none
    std::string backend = "auto";
    uint64_t seed = 0;
};

std::vector<TranscriptFormat> parse_formats(const std::string& list) {
    std::vector<TranscriptFormat> formats;
    std::stringstream stream(list);
    std::string item;
    while (std::getline(stream, item, ',')) {
        const std::optional<TranscriptFormat> format = parse_transcript_format(item);
        if (!format) {
            throw std::invalid_argument("unknown format \"" + item +
                                        "\" (expected txt, srt, vtt or json)");
        }
        bool seen = false;
        for (TranscriptFormat f : formats) seen = seen || f == *format;
        if (!seen) formats.push_back(*format);
    }
    if (formats.empty()) throw std::invalid_argument("--format names no format");
    return formats;
}

// Everything the files share: the model and tokenizer are loaded once.
struct Session {
    std::unique_ptr<LoadedModel> loaded;
    decoding::TranscribeOptions options;
    std::vector<TranscriptFormat> formats;
    CueOptions cues;
    std::optional<fs::path> output_dir;
};

// Set by Ctrl-C (SIGINT): the current file stops after its window, its transcript so far is
// written, and no further file starts. A lock-free atomic store is async-signal-safe.
std::atomic<bool>& interrupted() {
    static std::atomic<bool> flag{false};
    return flag;
}

extern "C" void on_interrupt(int /*signal*/) { interrupted().store(true); }

// Installs on_interrupt for SIGINT while alive; the previous handler comes back afterwards.
class InterruptGuard {
public:
    InterruptGuard() {
        interrupted().store(false);
        struct sigaction action {};
        action.sa_handler = on_interrupt;
        sigemptyset(&action.sa_mask);
        sigaction(SIGINT, &action, &previous_);
    }
    ~InterruptGuard() { sigaction(SIGINT, &previous_, nullptr); }
    InterruptGuard(const InterruptGuard&) = delete;
    InterruptGuard& operator=(const InterruptGuard&) = delete;

private:
    struct sigaction previous_ {};
};

// Where each input's outputs go, without the format's extension: `<dir>/<stem>`, and for an input
// whose `<dir>/<stem>` an earlier input on the command line already has, `<stem>-2`, `<stem>-3`,
// ... (the first free one), so that no file of this run overwrites another (a.mp3 a.ogg ->
// a.txt, a-2.txt). The names are planned before any file is transcribed: they do not depend on
// which files fail.
std::vector<fs::path> output_bases(const std::vector<std::string>& inputs,
                                   const std::optional<fs::path>& output_dir,
                                   const std::string& output_name) {
    if (!output_name.empty()) {  // one input, named by the caller (`earshot watch`)
        const fs::path path(inputs.front());
        return {(output_dir ? *output_dir : path.parent_path()) / output_name};
    }
    std::vector<fs::path> bases;
    std::set<fs::path> taken;  // absolute and normalised, so "out/a" and "./out/a" meet
    for (const std::string& input : inputs) {
        const fs::path path(input);
        const fs::path directory = output_dir ? *output_dir : path.parent_path();
        const std::string stem = path.stem().string();
        fs::path base = directory / stem;
        for (int n = 2; !taken.insert(fs::absolute(base).lexically_normal()).second; ++n) {
            base = directory / (stem + "-" + std::to_string(n));
        }
        bases.push_back(base);
    }
    return bases;
}

// Whether every output of `base` in `formats` is there (each is written whole or not at all).
// Beside an interrupted file's outputs: `<base>.incomplete`, so that --skip-done (and `earshot
// watch`) takes the file again; a complete run removes it.
fs::path incomplete_marker(const fs::path& base) {
    fs::path marker = base;
    marker += ".incomplete";
    return marker;
}

bool outputs_exist(const fs::path& base, const std::vector<TranscriptFormat>& formats) {
    std::error_code error;
    if (fs::exists(incomplete_marker(base), error)) return false;  // cut short last time
    for (TranscriptFormat format : formats) {
        fs::path target = base;
        target += "." + std::string(transcript_format_name(format));
        if (!fs::is_regular_file(target, error)) return false;
    }
    return true;
}

// Transcribes one input and writes its outputs as `base` plus each format's extension; throws on
// any failure.
void transcribe_file(Session& session, const fs::path& input, const fs::path& base,
                     std::ostream& out, std::ostream& err) {
    // The file in two streaming passes (streaming_mel_source.h): memory stays bounded whatever
    // its length. Ctrl-C during the first pass writes an empty transcript, marked incomplete.
    std::optional<StreamingMelSource> mel =
        StreamingMelSource::open(input, static_cast<int>(session.loaded->model->mels()),
                                 session.loaded->model->frames(), {}, &interrupted());
    // Damaged stretches (corrupt packets skipped) are silence in the samples: say where they are.
    for (const audio::DamagedSpan& span :
         mel ? mel->damaged_spans() : std::vector<audio::DamagedSpan>{}) {
        char where[96];
        std::snprintf(where, sizeof where, "%.2f s to %.2f s", span.start_s, span.end_s);
        err << "earshot transcribe: " << input.string() << ": damaged audio from " << where
            << " could not be decoded and is transcribed as silence\n";
    }
    const double audio_s = mel ? mel->audio_s() : 0.0;

    TranscribeProgress progress(err, input.filename().string(), audio_s);
    progress.update(0.0);
    decoding::Transcript transcript;
    try {
        if (mel) {
            transcript = decoding::transcribe(
                *session.loaded->model, session.loaded->tokenizer, *mel, session.options,
                [&](double fraction) { progress.update(fraction); }, &interrupted());
        }
    } catch (...) {
        progress.abandon();
        throw;
    }
    if (interrupted().load()) {
        transcript.complete = false;
        progress.abandon();
        err << "earshot transcribe: interrupted; writing what " << input.filename().string()
            << " has so far\n";
    } else {
        progress.finish();
    }

    // Each output through a temporary file renamed over its name: a crash, a kill or a full disk
    // leaves the previous file or the whole new one, never a part.
    for (TranscriptFormat format : session.formats) {
        fs::path target = base;
        target += "." + std::string(transcript_format_name(format));
        write_file_atomically(target, render_transcript(transcript, format, session.cues));
        out << "Wrote " << target.string() << "\n";
    }
    const fs::path marker = incomplete_marker(base);
    if (!transcript.complete) {
        write_file_atomically(marker, "interrupted: these transcripts hold only part of " +
                                          input.filename().string() + "\n");
        out << "Wrote " << marker.string() << " (the transcripts are incomplete)\n";
    } else {
        std::error_code error;
        fs::remove(marker, error);  // an earlier, interrupted run's
    }
}

int run_transcribe(const TranscribeRequest& r, std::ostream& out, std::ostream& err) {
    auto fail = [&](const std::string& message) {
        err << "earshot transcribe: " << message << "\n";
        return kExitBadInput;
    };
    const backend::BackendChoice backend = backend_choice(r.backend);
    try {
        require_cuda_if_chosen(backend);  // before any model is read
    } catch (const backend::CudaError& e) {
        return fail("--backend cuda: " + backend::cuda_unavailable_reason(e));
    }
    Session session;
    std::vector<std::string> inputs = r.inputs;
    Shard shard;
    try {
        for (const std::string& manifest : r.manifests) {
            for (std::string& input : read_manifest(manifest)) inputs.push_back(std::move(input));
        }
        if (!r.shard.empty()) shard = parse_shard(r.shard);
    } catch (const TranscribeInputsError& e) {
        return fail(e.what());
    }
    if (inputs.empty()) return fail("no input files: name some, or give --manifest LIST");
    if (!r.output_name.empty()) {
        if (inputs.size() != 1) {
            return fail("--output-name names the outputs of one input; " +
                        std::to_string(inputs.size()) + " were given");
        }
        if (r.output_name == "." || r.output_name == ".." ||
            r.output_name.find('/') != std::string::npos) {
            return fail("--output-name " + r.output_name +
                        ": expected a file name without a folder");
        }
    }
    if (r.max_line_words > 0 && !r.word_timestamps) {
        return fail("--max-line-words needs --word-timestamps");
    }
    if (r.word_timestamps && r.no_timestamps) {
        return fail("--word-timestamps cannot be used with --no-timestamps");
    }
    session.cues.max_line_words = r.max_line_words;
    try {
        session.formats = parse_formats(r.formats);
    } catch (const std::exception& e) {
        return fail(e.what());
    }
    TranscriptionChoice choice;
    choice.language = r.language;
    choice.task = r.task == "translate" ? decoding::Task::translate : decoding::Task::transcribe;
    choice.decoding.beam_size = r.beam;
    if (r.temperature) choice.decoding.temperatures = {*r.temperature};
    choice.decoding.timestamps = !r.no_timestamps;
    choice.decoding.seed = r.seed;
    choice.word_timestamps = r.word_timestamps;
    try {
        apply_vocabulary(r.vocabulary, choice);
    } catch (const VocabularyFileError& e) {
        return fail(e.what());
    }
    if (!r.summary.empty()) {  // refused before hours of work, not after
        const fs::path folder = fs::absolute(fs::path(r.summary)).parent_path();
        if (!fs::is_directory(folder)) {
            return fail("--summary " + r.summary + ": there is no folder " + folder.string());
        }
    }
    if (!r.output_dir.empty()) {
        session.output_dir = fs::path(r.output_dir);
        std::error_code error;
        fs::create_directories(*session.output_dir, error);
        if (!fs::is_directory(*session.output_dir)) {
            return fail("cannot create the output directory " + r.output_dir);
        }
    }

    try {
        const ModelArgument model = resolve_model_argument(r.model, r.vocab);
        if (!model.note.empty()) err << "earshot transcribe: " << model.note << "\n";
        session.loaded = load_model(model.model, model.vocabulary, backend);
        // Each window is encoded once, then decoded at length: the encoder's weights mapped from
        // the file need not stay resident beside the decoder's caches while it decodes.
        runtime::set_weight_residency(*session.loaded->model,
                                      backend::WeightResidency::encoder_dropped_while_decoding);
    } catch (const backend::CudaError& e) {
        return fail("--backend cuda: " + backend::cuda_unavailable_reason(e));
    } catch (const std::exception& e) {
        return fail(e.what());
    }
    try {
        session.options = file_transcription_options(choice, *session.loaded);
    } catch (const TranscriptionSetupError& e) {
        return fail(e.what());
    }
    session.options.initial_prompt = r.prompt;
    session.options.snap_times_to_speech = r.segment_times == "speech";

    // The arguments hold: say once why auto runs on the CPU (a bad argument stays one line).
    if (!session.loaded->backend_fallback.empty()) {
        err << "earshot: " << session.loaded->backend_fallback << "\n";
    }
    // Output names are planned over the whole list, so that every shard names a file the same.
    const std::vector<fs::path> bases = output_bases(inputs, session.output_dir, r.output_name);
    const InterruptGuard guard;
    int failed = 0;
    size_t taken = 0;
    std::vector<InputSummary> summary;
    auto outputs_of = [&](const fs::path& base) {
        std::vector<fs::path> outputs;
        for (TranscriptFormat format : session.formats) {
            fs::path target = base;
            target += "." + std::string(transcript_format_name(format));
            outputs.push_back(target);
        }
        return outputs;
    };
    for (size_t i = 0; i < inputs.size(); ++i) {
        const std::string& input = inputs[i];
        if (interrupted().load()) break;
        if (!in_shard(shard, i)) continue;
        if (r.skip_done && outputs_exist(bases[i], session.formats)) {
            out << "Skipped " << input << ": its outputs exist\n";
            summary.push_back({input, InputOutcome::skipped, outputs_of(bases[i]), "", 0.0});
            continue;
        }
        ++taken;
        const auto start = std::chrono::steady_clock::now();
        InputSummary entry{input, InputOutcome::done, {}, "", 0.0};
        try {
            transcribe_file(session, fs::path(input), bases[i], out, err);
            entry.outputs = outputs_of(bases[i]);
            if (interrupted().load()) entry.outcome = InputOutcome::interrupted;
        } catch (const std::exception& e) {
            // The file's name once: readers' messages usually start with it already.
            const std::string message = e.what();
            const std::string named = input + ": ";
            entry.error = message.rfind(named, 0) == 0 ? message : named + message;
            entry.outcome = InputOutcome::failed;
            err << "earshot transcribe: " << entry.error << "\n";
            ++failed;
        }
        entry.seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        summary.push_back(std::move(entry));
    }
    if (!r.summary.empty()) {
        try {
            write_file_atomically(fs::path(r.summary), transcribe_summary_json(summary, r.shard));
            out << "Wrote " << r.summary << "\n";
        } catch (const std::exception& e) {
            err << "earshot transcribe: cannot write the summary " << r.summary << ": " << e.what()
                << "\n";
            return kExitBadInput;
        }
    }
    if (interrupted().load()) return kExitInterrupted;
    if (failed == 0) return kExitOk;
    return static_cast<size_t>(failed) == taken ? kExitBadInput : kExitSomeFileFailed;
}

}  // namespace

ExtraCommand add_transcribe(CLI::App& root) {
    auto request = std::make_shared<TranscribeRequest>();
    TranscribeRequest& r = *request;
    CLI::App* command = root.add_subcommand(
        "transcribe", "Transcribe audio files to text and subtitles (TXT, SRT, VTT, JSON)");
    command->add_option("files", r.inputs, "Audio files (anything FFmpeg reads)");
    command->add_option("--manifest", r.manifests,
                        "A list of files to transcribe, one path a line (# comments; relative "
                        "paths from the list's folder); may be repeated");
    command->add_option("--shard", r.shard,
                        "K/N: only every N-th input from the K-th (0 <= K < N), to split a list "
                        "across jobs (a Slurm array's task id as K)");
    command->add_option("--summary", r.summary,
                        "Write a JSON summary of the batch: each input's status (done, skipped, "
                        "failed, interrupted), its outputs, its error, and the counts");
    command->add_flag("--skip-done", r.skip_done,
                      "Skip inputs whose outputs in every --format exist already");
    command->add_option("--model", r.model,
                        "Checkpoint (HF directory or ggml .bin) or a name from `earshot models "
                        "list`; default: the model chosen in the app, else the micro demo model");
    command->add_option("--vocab", r.vocab,
                        "Vocabulary (.tiktoken, HF directory or ggml .bin); default: the model's");
    command->add_option("--language", r.language, "Spoken language code, or auto to detect it")
        ->capture_default_str();
    command->add_option("--task", r.task, "transcribe, or translate to English")
        ->check(CLI::IsMember({"transcribe", "translate"}))
        ->capture_default_str();
    command->add_option("--beam", r.beam, "Beam size at temperature 0 (1 = greedy)")
        ->check(CLI::Range(1, 64))
        ->capture_default_str();
    command
        ->add_option("--temperature", r.temperature,
                     "Decode at this temperature only (default: the fallback ladder 0, 0.2, "
                     "..., 1.0)")
        ->check(CLI::Range(0.0, 10.0));
    command->add_option("--prompt", r.prompt, "Initial prompt (vocabulary, spelling, style)");
    add_vocabulary_options(*command, r.vocabulary);
    command->add_flag("--no-timestamps", r.no_timestamps,
                      "Decode without timestamp tokens (one segment per window)");
    command->add_option("--format", r.formats, "Comma-separated: txt, srt, vtt, json")
        ->capture_default_str();
    command->add_flag("--word-timestamps", r.word_timestamps,
                      "Time every word (cross-attention alignment): words in JSON, subtitle "
                      "times fitted to the words");
    command
        ->add_option("--segment-times", r.segment_times,
                     "speech: segment starts and ends moved to the edges of the speech they hold "
                     "(at most 1 s into speech, 1.5 s across silence); model: the model's own "
                     "timestamps, as openai's transcribe() reports them")
        ->check(CLI::IsMember({"speech", "model"}))
        ->capture_default_str();
    command
        ->add_option("--max-line-words", r.max_line_words,
                     "With --word-timestamps: at most N words per SRT/VTT cue, each cue timed "
                     "by its words")
        ->check(CLI::Range(1, 1000));
    command->add_option("--output-dir", r.output_dir,
                        "Where to write the results (default: beside each input). Inputs that "
                        "would share a name get -2, -3, ...: a.mp3 a.ogg -> a.txt, a-2.txt");
    command->add_option("--output-name", r.output_name,
                        "With one input: its outputs' name without the format's extension "
                        "(default: the input's name without its extension)");
    add_backend_option(*command, r.backend);
    command->add_option("--seed", r.seed, "Seed of the sampling at temperatures above 0")
        ->capture_default_str();
    return {command, [request](std::ostream& out, std::ostream& err) {
                return run_transcribe(*request, out, err);
            }};
}

}  // namespace earshot::app
