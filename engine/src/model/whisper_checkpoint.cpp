// whisper_params walks the block declarations (members, subs, arrays) substituting each block's
// generics by the root's; check_weights compares a WeightSet with them.
#include "earshot/engine/model/whisper_checkpoint.h"

#include <algorithm>
#include <cstring>
#include <set>
#include <utility>

#include "earshot/engine/model/whisper_model.h"

namespace earshot::model {

using program::Bindings;
using program::BlockDecl;

namespace {

const BlockDecl& block_named(const std::string& name) {
    for (const BlockDecl* decl : whisper_blocks()) {
        if (decl->name == name) return *decl;
    }
    throw std::logic_error("the Whisper program has no block named " + name);
}

// `bindings` maps the generics of `decl` to expressions in the root's generics.
void collect_params(const BlockDecl& decl, const Bindings& bindings, const std::string& prefix,
                    const program::ConcreteBinding& values, std::vector<ParamSpec>& out) {
    for (const auto& member : decl.members) {
        if (member.kind == program::MemberKind::param) {
            ParamSpec spec;
            spec.path = prefix + member.name;
            spec.type = bindings.apply(member.type);
            spec.optional = spec.type.optional;
            for (const auto& dim : spec.type.dims()) spec.shape.push_back(values.dim(dim));
            out.push_back(std::move(spec));
            continue;
        }
        if (member.kind != program::MemberKind::sub) continue;
        const BlockDecl& sub = block_named(member.sub.block);
        Bindings sub_bindings;
        for (std::size_t i = 0; i < member.sub.args.size() && i < sub.generics.size(); ++i) {
            const auto& arg = member.sub.args[i];
            if (const auto* dim = std::get_if<program::Dim>(&arg)) {
                sub_bindings.dims[sub.generics[i].name] = bindings.apply(*dim);
            } else {
                sub_bindings.elements[sub.generics[i].name] =
                    bindings.apply(std::get<program::ElementType>(arg));
            }
        }
        if (!member.sub.count) {
            collect_params(sub, sub_bindings, prefix + member.name + ".", values, out);
            continue;
        }
        const int64_t count = values.dim(bindings.apply(*member.sub.count));
        for (int64_t i = 0; i < count; ++i) {
            collect_params(sub, sub_bindings, prefix + member.name + "." + std::to_string(i) + ".",
                           values, out);
        }
    }
}

using program::shape_str;

std::string origin(const checkpoint::Weight& weight) {
    return weight.source_name + " in " + weight.file.filename().string();
}

// Index of the first element of `count` whose exponent bits are all set (a NaN or an
// infinity), or -1. Blocks are first tested without an early exit, which the compiler
// vectorizes: a large-v3 checkpoint's 1.5 G values are read at memory speed.
template <typename Bits>
int64_t first_all_ones_exponent(const std::byte* data, int64_t count, Bits mask) {
    constexpr int64_t kBlock = 4096;
    for (int64_t start = 0; start < count; start += kBlock) {
        const int64_t end = std::min(count, start + kBlock);
        Bits hits = 0;
        for (int64_t i = start; i < end; ++i) {
            Bits bits = 0;
            std::memcpy(&bits, data + sizeof(Bits) * static_cast<size_t>(i), sizeof(bits));
            hits |= static_cast<Bits>((bits & mask) == mask);
        }
        if (hits == 0) continue;
        for (int64_t i = start; i < end; ++i) {
            Bits bits = 0;
            std::memcpy(&bits, data + sizeof(Bits) * static_cast<size_t>(i), sizeof(bits));
            if ((bits & mask) == mask) return i;
        }
    }
    return -1;
}

// Index of the first NaN or infinity, or -1. Reads the exponent bits of each element; of ggml
// blocks, their scales (a non-finite scale makes its block's values so: the first value of the
// block is named).
int64_t first_non_finite(const checkpoint::Weight& weight) {
    const std::byte* data = weight.bytes.data();
    const auto count = static_cast<int64_t>(weight.element_count());
    if (weight.dtype == checkpoint::WeightDType::ggml_blocks) {
        const int64_t block =
            checkpoint::first_block_with_non_finite_scale(weight.blocks, weight.bytes);
        return block < 0 ? -1
                         : block * static_cast<int64_t>(
                                       checkpoint::ggml_block_layout(weight.blocks).elements);
    }
    if (weight.dtype == checkpoint::WeightDType::f32) {
        return first_all_ones_exponent<uint32_t>(data, count, 0x7f800000U);
    }
    // f16: 5 exponent bits 0x7c00; bf16: 8 exponent bits 0x7f80.
    const auto mask =
        static_cast<uint16_t>(weight.dtype == checkpoint::WeightDType::f16 ? 0x7c00 : 0x7f80);
    return first_all_ones_exponent<uint16_t>(data, count, mask);
}

}  // namespace

std::vector<ParamSpec> whisper_params(const WhisperBinding& binding) {
    std::vector<ParamSpec> params;
    collect_params(WhisperModel::declaration(), Bindings{}, "", binding.values, params);
    return params;
}

void check_weights(const checkpoint::WeightSet& weights, const WhisperBinding& binding) {
    const std::vector<ParamSpec> params = whisper_params(binding);
    const std::string where = binding.config.source.string();
    std::set<std::string, std::less<>> known;
    std::vector<const ParamSpec*> missing;
    for (const auto& param : params) {
        known.insert(param.path);
        const checkpoint::Weight* weight = weights.find(param.path);
        if (weight == nullptr) {
            if (!param.optional) missing.push_back(&param);
            continue;
        }
        if (weight->shape != param.shape) {
            throw LoadError(param.path, param.path + ": " + param.type.str() + " expects " +
                                            shape_str(param.shape) + ", found " +
                                            shape_str(weight->shape) + " (" + origin(*weight) +
                                            ")");
        }
    }
    if (!missing.empty()) {
        const ParamSpec& first = *missing.front();
        std::string message = first.path + ": " + first.type.str() + " expects " +
                              shape_str(first.shape) + ", found no tensor in " + where;
        if (missing.size() > 1) {
            message += " (" + std::to_string(missing.size() - 1) + " more parameters missing)";
        }
        throw LoadError(first.path, message);
    }
    for (const auto& weight : weights.weights()) {
        if (weight.path.empty() || !known.contains(weight.path)) {
            throw LoadError(
                weight.path,
                (weight.path.empty() ? std::string() : weight.path + ": ") + "tensor " +
                    origin(weight) + " is not a parameter of the Whisper program" +
                    (weight.path.empty() ? std::string() : " under this checkpoint's binding"));
        }
    }
    for (const auto& param : params) {
        const checkpoint::Weight* weight = weights.find(param.path);
        if (weight == nullptr) continue;
        const int64_t bad = first_non_finite(*weight);
        if (bad >= 0) {
            throw LoadError(param.path, param.path + ": " + param.type.str() +
                                            " has a non-finite value at flat index " +
                                            std::to_string(bad) + " (" + origin(*weight) + ")");
        }
    }
}

WhisperCheckpoint load_whisper_checkpoint(const std::filesystem::path& path) {
    return load_whisper_checkpoint(bind_whisper(checkpoint::read_whisper_config(path)));
}

WhisperCheckpoint load_whisper_checkpoint(WhisperBinding binding) {
    WhisperCheckpoint checkpoint;
    checkpoint.binding = std::move(binding);
    checkpoint.weights = checkpoint::read_weights(checkpoint.binding.config);
    check_weights(checkpoint.weights, checkpoint.binding);
    return checkpoint;
}

}  // namespace earshot::model
