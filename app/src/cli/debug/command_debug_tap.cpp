// `earshot debug tap`: one value inside a model's entry (a block's output or any op's result,
// named as the Inspector's graph draws it) for one window, written as .npy with its statistics;
// `--list` prints every tappable name of the entry with its symbolic type and concrete shape.
#include <algorithm>
#include <cstdio>
#include <exception>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "cli/backend_option.h"
#include "cli/command_registry.h"
#include "cli/debug/debug_model_input.h"
#include "cli/debug/npy_file.h"
#include "earshot/app/commands.h"
#include "earshot/engine/backend/cpu_whisper.h"
#include "earshot/engine/backend/cuda_whisper.h"
#include "earshot/engine/backend/tap.h"
#include "earshot/engine/backend/tensor_statistics.h"
#include "earshot/engine/model/whisper_checkpoint.h"

namespace earshot::app {
namespace {

using backend::HostTensor;

struct TapRequest {
    std::string model;
    std::string audio;
    std::string mel;
    std::string entry = "encode";
    std::string edge;
    std::string tokens;
    std::string out;
    std::string backend = "cpu";
    bool list = false;
};

std::string statistics_line(const HostTensor& t) {
    const auto s = backend::compute_statistics(t.f32_values());
    char line[256];
    std::snprintf(line, sizeof line,
                  "min %.6g, max %.6g, mean %.6g, std %.6g, rms %.6g; NaN %lld, Inf %lld, "
                  "outside f16 %lld",
                  s.min, s.max, s.mean, s.std, s.rms, static_cast<long long>(s.nan_count),
                  static_cast<long long>(s.inf_count), static_cast<long long>(s.outside_f16_count));
    return line;
}

// Runs the entry with `taps` attached: encode or listen on the mel; prefill over all tokens
// after a listen; step: a listen, a prefill of all tokens but the last, then the last one at
// its position.
template <typename Whisper>
void run_entry(Whisper& whisper, const TapRequest& r, const HostTensor& mel,
               const std::vector<int32_t>& ids, backend::TapSet& taps) {
    const auto count = static_cast<int64_t>(ids.size());
    if (r.entry == "encode") {
        whisper.set_taps(&taps);
        whisper.encode(mel);
        return;
    }
    if (r.entry == "listen") whisper.set_taps(&taps);
    whisper.listen(mel);
    if (r.entry == "listen") return;
    if (r.entry == "prefill") {
        whisper.set_taps(&taps);
        whisper.prefill(HostTensor::i32({1, count}, ids));
        return;
    }
    const std::vector<int32_t> before(ids.begin(), ids.end() - 1);
    whisper.prefill(HostTensor::i32({1, count - 1}, before));
    whisper.set_taps(&taps);
    whisper.step(HostTensor::i32({1, 1}, {ids.back()}), static_cast<int32_t>(count - 1));
}

template <typename Whisper>
int tap_with(Whisper& whisper, const model::WhisperCheckpoint& checkpoint, const TapRequest& r,
             std::ostream& out) {
    const int64_t vocab = checkpoint.binding.values.dims.at("Vocab");
    const std::vector<int32_t> ids = model_tokens(r.tokens, vocab);
    if (r.entry == "step" && ids.size() < 2) {
        throw std::invalid_argument(
            "--entry step needs at least two --tokens (a prefill, then "
            "the last token as the step)");
    }
    const int64_t listed_tokens =
        r.entry == "step" ? static_cast<int64_t>(ids.size()) - 1 : static_cast<int64_t>(ids.size());
    const auto edges = whisper.tappable_edges(r.entry, r.entry == "prefill" ? listed_tokens : 4);
    if (r.list) {
        for (const backend::TappableEdge& e : edges) {
            out << e.name << "  " << e.symbolic_type << "  " << e.dtype << e.shape_str() << "\n";
        }
        out << "# " << edges.size() << " tappable values in " << r.entry << "\n";
        return kExitOk;
    }
    const backend::TappableEdge& edge = backend::require_edge(edges, r.edge, r.entry);
    const HostTensor mel = model_mel(checkpoint, r.audio, r.mel);
    backend::TapSet taps({edge.name});
    run_entry(whisper, r, mel, ids, taps);
    whisper.set_taps(nullptr);
    const backend::TappedValue& value = taps.values().front();
    if (!value.filled) throw std::logic_error(edge.name + " was not written by the run");
    write_npy(r.out, value.tensor.f32_values(), value.tensor.shape());
    out << "Wrote " << r.out << ": " << edge.name << " " << edge.symbolic_type << " " << value.dtype
        << value.tensor.shape_str();
    if (value.position >= 0) out << " at position " << value.position;
    out << "\n" << statistics_line(value.tensor) << "\n";
    return kExitOk;
}

int run_debug_tap(const TapRequest& r, std::ostream& out, std::ostream& err) {
    try {
        const auto& entries = backend::tappable_entries();
        if (std::find(entries.begin(), entries.end(), r.entry) == entries.end()) {
            throw std::invalid_argument("unknown entry '" + r.entry +
                                        "' (encode, listen, prefill or step)");
        }
        if (!r.list && r.edge.empty()) throw std::invalid_argument("--edge NAME or --list");
        if (!r.list && r.out.empty()) throw std::invalid_argument("--out X.npy is needed");
        if (!r.list && r.audio.empty() == r.mel.empty()) {
            throw std::invalid_argument("give one of --audio FILE and --mel X.npy");
        }
        const backend::PlanBackend chosen = backend_named(r.backend);
        if (chosen == backend::PlanBackend::cuda) {
            try {
                require_cuda_if_chosen(backend::BackendChoice::cuda);
            } catch (const backend::CudaError& e) {
                throw std::runtime_error("--backend cuda: " + backend::cuda_unavailable_reason(e));
            }
        }
        const model::WhisperCheckpoint checkpoint = model::load_whisper_checkpoint(r.model);
        if (chosen == backend::PlanBackend::cuda) {
            backend::CudaWhisper whisper(checkpoint, 1, 0, r.model);
            return tap_with(whisper, checkpoint, r, out);
        }
        backend::CpuWhisper whisper(checkpoint);
        return tap_with(whisper, checkpoint, r, out);
    } catch (const std::exception& e) {
        err << "earshot debug tap: " << e.what() << "\n";
        return kExitBadInput;
    }
}

}  // namespace

ExtraCommand add_debug_tap(CLI::App& root) {
    auto request = std::make_shared<TapRequest>();
    CLI::App* command = debug_group(root).add_subcommand(
        "tap",
        "Write one value inside an entry (a block's output or any op's result, named as the "
        "Inspector's graph draws it) as .npy, with its statistics; --list names them all");
    command->add_option("--model", request->model, "Checkpoint (HF directory or ggml .bin)")
        ->required();
    command->add_option("--audio", request->audio, "Audio file: its first window is heard");
    command->add_option("--mel", request->mel, "float32 [Mels, Frames] log-mel .npy");
    command->add_option("--entry", request->entry, "encode, listen, prefill or step")
        ->capture_default_str();
    command->add_option("--edge", request->edge,
                        "The value: encoder_layers[0].forward, "
                        "decoder_layers[3].encoder_attn.attend, ... (see --list)");
    command->add_option("--tokens", request->tokens,
                        "Comma-separated ids for prefill and step (step runs the last one); "
                        "default: start of transcript, English, transcribe, no timestamps");
    command->add_option("--out", request->out, "Output .npy (float32, the value's shape)");
    command->add_flag("--list", request->list,
                      "Print every tappable value of the entry: name, symbolic type, shape");
    command->add_option("--backend", request->backend, "cpu or cuda")->capture_default_str();
    return {command, [request](std::ostream& out, std::ostream& err) {
                return run_debug_tap(*request, out, err);
            }};
}

}  // namespace earshot::app
