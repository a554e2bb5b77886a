// `earshot debug make-checkpoint --out DIR ...`: writes a random Whisper checkpoint of any shape
// (HF config.json + model.safetensors) for tests and benchmarks, refusing a non-empty DIR.
#include <exception>
#include <filesystem>
#include <memory>
#include <ostream>
#include <stdexcept>
#include <string>
#include <system_error>

#include "cli/command_registry.h"
#include "earshot/app/commands.h"
#include "earshot/engine/model/random_checkpoint.h"

namespace earshot::app {
namespace {

int run_make_checkpoint(const std::string& out_dir, const model::RandomCheckpointOptions& options,
                        std::ostream& out, std::ostream& err) {
    const std::filesystem::path dir(out_dir);
    std::error_code error;
    if (std::filesystem::exists(dir, error) &&
        !(std::filesystem::is_directory(dir, error) && std::filesystem::is_empty(dir, error))) {
        err << "make-checkpoint: " << dir.string()
            << " is not an empty directory; refusing to overwrite it\n";
        return kExitBadInput;
    }
    try {
        model::write_random_checkpoint(dir, options);
    } catch (const std::exception& e) {
        err << "make-checkpoint: " << e.what() << "\n";
        return kExitBadInput;
    }
    out << "Wrote " << (dir / "config.json").string() << " and "
        << (dir / "model.safetensors").string() << " (" << options.dtype << ", seed "
        << options.seed << ")\n";
    return kExitOk;
}

}  // namespace

ExtraCommand add_make_checkpoint(CLI::App& root) {
    struct Request {
        std::string out_dir;
        model::RandomCheckpointOptions options;
    };
    auto request = std::make_shared<Request>();
    auto& o = request->options;
    CLI::App* command = debug_group(root).add_subcommand(
        "make-checkpoint", "Write a random Whisper checkpoint (config.json + model.safetensors)");
    command->add_option("--out", request->out_dir, "Directory to create (must be new or empty)")
        ->required();
    command->add_option("--mels", o.mels, "Mel bands")->capture_default_str();
    command->add_option("--d", o.d, "Model width D")->capture_default_str();
    command->add_option("--heads", o.heads, "Attention heads")->capture_default_str();
    command->add_option("--enc-layers", o.enc_layers, "Encoder layers")->capture_default_str();
    command->add_option("--dec-layers", o.dec_layers, "Decoder layers")->capture_default_str();
    command->add_option("--vocab", o.vocab, "Vocabulary size")->capture_default_str();
    command->add_option("--frames", o.frames, "Mel frames per window (even)")
        ->capture_default_str();
    command->add_option("--max-tokens", o.max_tokens, "Decoder positions")->capture_default_str();
    command->add_option("--inner", o.inner, "MLP width (0: 4 x D)")->capture_default_str();
    command->add_option("--dtype", o.dtype, "Weight dtype")
        ->check(CLI::IsMember({"f32", "f16", "bf16"}))
        ->capture_default_str();
    command->add_option("--seed", o.seed, "Random seed")->capture_default_str();
    command
        ->add_option("--projection-std", o.projection_std,
                     "Standard deviation of the conv and projection weights")
        ->capture_default_str();
    return {command, [request](std::ostream& out, std::ostream& err) {
                return run_make_checkpoint(request->out_dir, request->options, out, err);
            }};
}

}  // namespace earshot::app
