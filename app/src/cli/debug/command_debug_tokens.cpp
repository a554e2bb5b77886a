// `earshot debug tokens --vocab PATH [--n-vocab N] (--encode TEXT | --decode IDS)`: the Whisper
// tokenizer from the command line; ids are written and read comma-separated.
#include <charconv>
#include <cstdint>
#include <exception>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "cli/command_registry.h"
#include "earshot/app/commands.h"
#include "earshot/engine/tokenizer/tokenizer.h"

namespace earshot::app {
namespace {

struct TokensRequest {
    std::string vocab_path;
    std::int64_t n_vocab = 0;
    std::optional<std::string> encode_text;
    std::optional<std::string> decode_ids;
};

// "50258,15947, 1002" -> ids; nullopt on anything but integers separated by commas.
std::optional<std::vector<std::int32_t>> parse_ids(std::string_view text) {
    std::vector<std::int32_t> ids;
    std::size_t pos = 0;
    while (pos <= text.size()) {
        const std::size_t comma = std::min(text.find(',', pos), text.size());
        std::string_view field = text.substr(pos, comma - pos);
        while (!field.empty() && field.front() == ' ') field.remove_prefix(1);
        while (!field.empty() && field.back() == ' ') field.remove_suffix(1);
        std::int32_t id = 0;
        const auto [end, ec] = std::from_chars(field.data(), field.data() + field.size(), id);
        if (field.empty() || ec != std::errc{} || end != field.data() + field.size()) {
            return std::nullopt;
        }
        ids.push_back(id);
        pos = comma + 1;
    }
    return ids;
}

int run_debug_tokens(const TokensRequest& request, std::ostream& out, std::ostream& err) {
    if (request.encode_text.has_value() == request.decode_ids.has_value()) {
        err << "debug tokens: give exactly one of --encode TEXT or --decode IDS\n";
        return kExitBadInput;
    }
    std::optional<std::vector<std::int32_t>> ids;
    if (request.decode_ids) {
        ids = parse_ids(*request.decode_ids);
        if (!ids) {
            err << "debug tokens: --decode takes comma-separated token ids, got \""
                << *request.decode_ids << "\"\n";
            return kExitBadInput;
        }
    }
    try {
        const auto tokenizer = tokenizer::Tokenizer::load(request.vocab_path, request.n_vocab);
        if (ids) {
            out << tokenizer.decode(*ids) << "\n";
            return kExitOk;
        }
        const std::vector<std::int32_t> encoded = tokenizer.encode(*request.encode_text);
        for (std::size_t i = 0; i < encoded.size(); ++i) {
            out << (i > 0 ? "," : "") << encoded[i];
        }
        out << "\n";
    } catch (const std::exception& e) {
        err << "debug tokens: " << e.what() << "\n";
        return kExitBadInput;
    }
    return kExitOk;
}

}  // namespace

ExtraCommand add_debug_tokens(CLI::App& root) {
    auto request = std::make_shared<TokensRequest>();
    CLI::App* command = debug_group(root).add_subcommand(
        "tokens", "Encode text to Whisper token ids, or decode ids (specials by name)");
    command
        ->add_option("--vocab", request->vocab_path,
                     ".tiktoken file, Hugging Face tokenizer directory or ggml .bin")
        ->required();
    command
        ->add_option("--n-vocab", request->n_vocab,
                     "Vocabulary size (51864, 51865, 51866); 0 takes the source's own")
        ->check(CLI::NonNegativeNumber)
        ->capture_default_str();
    // Exactly one of the two, checked when run (a one-line error rather than CLI11's two).
    command->add_option("--encode", request->encode_text,
                        "Text to encode; prints the ids comma-separated");
    command->add_option("--decode", request->decode_ids,
                        "Comma-separated ids to decode, e.g. 50258,15947,1002");
    return {command, [request](std::ostream& out, std::ostream& err) {
                return run_debug_tokens(*request, out, err);
            }};
}

}  // namespace earshot::app
