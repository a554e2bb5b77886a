// Binding a checkpoint's hyper-parameters to the Whisper program's generics.
#include "earshot/engine/model/whisper_binding.h"

#include <set>

#include "earshot/engine/model/whisper_model.h"

namespace earshot::model {

using program::BlockDecl;
using program::DimValues;

namespace {

const BlockDecl& block_named(const std::string& name) {
    for (const BlockDecl* decl : whisper_blocks()) {
        if (decl->name == name) return *decl;
    }
    throw BindingError("the program has no block named " + name);
}

std::string values_of(const program::Constraint& c, const DimValues& values) {
    std::string out;
    std::vector<std::string> names = c.lhs.symbols();
    for (const auto& n : c.rhs.symbols()) names.push_back(n);
    std::set<std::string> seen;
    for (const auto& n : names) {
        if (!seen.insert(n).second) continue;
        auto found = values.find(n);
        if (!out.empty()) out += ", ";
        out += n + " = " + (found == values.end() ? "?" : std::to_string(found->second));
    }
    return out;
}

void check_block(const BlockDecl& decl, const DimValues& values, const std::string& path,
                 std::set<std::string>& checked) {
    std::string key = decl.name;
    for (const auto& [name, value] : values) key += "," + name + "=" + std::to_string(value);
    if (!checked.insert(key).second) return;  // the same block with the same values
    const std::string where =
        decl.qualified_name() + (path.empty() ? std::string() : " (at " + path + ")");
    for (const auto& c : decl.constraints) {
        bool holds = false;
        try {
            holds = c.holds(values);
        } catch (const program::DimError&) {
            holds = false;  // e.g. a modulo by zero: an earlier constraint should have said so
        }
        if (!holds) {
            throw BindingError("the checkpoint breaks the constraint `" + c.str() + "` of " +
                               where + ": " + values_of(c, values));
        }
    }
    for (const auto& m : decl.members) {
        if (m.kind != program::MemberKind::sub) continue;
        const BlockDecl& sub = block_named(m.sub.block);
        std::string sub_path = path.empty() ? m.name : path + "." + m.name;
        if (m.sub.count) {
            int64_t count = m.sub.count->evaluate(values);
            if (count < 0) {
                throw BindingError(where + ": " + m.name + " repeats " + m.sub.count->str() +
                                   " = " + std::to_string(count) + " times");
            }
            sub_path += "[layer]";
        }
        DimValues sub_values;
        for (size_t i = 0; i < m.sub.args.size() && i < sub.generics.size(); ++i) {
            if (const auto* d = std::get_if<program::Dim>(&m.sub.args[i])) {
                sub_values[sub.generics[i].name] = d->evaluate(values);
            }
        }
        check_block(sub, sub_values, sub_path, checked);
    }
}

void require_equal(const checkpoint::WhisperConfig& config, const char* what, int64_t encoder,
                   int64_t decoder) {
    if (encoder != decoder) {
        throw BindingError(config.source.string() + ": the encoder and decoder disagree on " +
                           what + " (" + std::to_string(encoder) + " vs " +
                           std::to_string(decoder) + "); the Whisper program shares one value");
    }
}

}  // namespace

void check_constraints(const BlockDecl& root, const DimValues& values) {
    std::set<std::string> checked;
    check_block(root, values, "", checked);
}

WhisperBinding bind_whisper(const checkpoint::WhisperConfig& config) {
    require_equal(config, "the model width", config.n_audio_state, config.n_text_state);
    require_equal(config, "the number of heads", config.n_audio_head, config.n_text_head);
    require_equal(config, "the MLP width", config.n_audio_ffn, config.n_text_ffn);
    auto dtype = program::parse_dtype(config.weight_dtype);
    if (!dtype || !program::is_float(*dtype)) {
        throw BindingError(config.source.string() + ": weight dtype " + config.weight_dtype +
                           " is not a Float type (f32, f16, bf16)");
    }
    WhisperBinding binding;
    binding.config = config;
    const std::vector<std::pair<std::string, int64_t>> dims{
        {"Mels", config.n_mels},
        {"Frames", 2 * config.n_audio_ctx},
        {"D", config.n_audio_state},
        {"Heads", config.n_audio_head},
        {"Inner", config.n_audio_ffn},
        {"EncoderLayers", config.n_audio_layer},
        {"DecoderLayers", config.n_text_layer},
        {"Vocab", config.n_vocab},
        {"MaxTokens", config.n_text_ctx},
    };
    for (const auto& [name, value] : dims) {
        binding.values.dims[name] = value;
        binding.generics.emplace_back(name, std::to_string(value));
    }
    binding.values.elements["T"] = *dtype;
    binding.generics.emplace_back("T", config.weight_dtype);
    binding.values.dims["Batch"] = 1;  // a run-time binding; beam search uses more

    check_constraints(WhisperModel::declaration(), binding.values.dims);
    return binding;
}

}  // namespace earshot::model
