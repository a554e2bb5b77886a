// A checkpoint to a whisper.cpp ggml file: the preamble (hyper-parameters, mel filters,
// vocabulary) from the input, then each weight converted to the type whisper.cpp gives it.
#include "earshot/engine/convert/ggml_quantize_checkpoint.h"

#include <array>
#include <cstring>
#include <utility>

#include "earshot/base/half_float.h"
#include "earshot/engine/checkpoint/errors.h"
#include "earshot/engine/checkpoint/ggml_file.h"
#include "earshot/engine/checkpoint/ggml_quantize.h"
#include "earshot/engine/checkpoint/ggml_writer.h"
#include "earshot/engine/checkpoint/weight_set.h"
#include "earshot/engine/checkpoint/whisper_config.h"
#include "earshot/engine/tokenizer/tokenizer.h"
#include "tokenizer/vocab_sources.h"

namespace earshot::convert {

// Checkpoint types throughout: this file writes what checkpoint/ reads.
using namespace checkpoint;

namespace {

constexpr int32_t whisper_mel_bins = 201;  // n_fft / 2 + 1 for n_fft = 400 (reference §6b)

constexpr std::array<std::pair<std::string_view, GgmlType>, 7> file_types = {{
    {"q8_0", GgmlType::q8_0},
    {"q5_1", GgmlType::q5_1},
    {"q5_0", GgmlType::q5_0},
    {"q4_1", GgmlType::q4_1},
    {"q4_0", GgmlType::q4_0},
    {"f16", GgmlType::f16},
    {"f32", GgmlType::f32},
}};

// Where the input's vocabulary is read from: a ggml file's own block, a HF checkpoint's folder.
std::filesystem::path vocabulary_source(const WhisperConfig& config) {
    if (config.format == CheckpointFormat::ggml_file) return config.source;
    return std::filesystem::is_directory(config.source) ? config.source
                                                        : config.source.parent_path();
}

GgmlContents preamble_of(const WhisperConfig& config, GgmlType file_type,
                         const MelFiltersFor& mel_filters_for) {
    GgmlContents c;
    c.hparams = ggml_hparams_of(config, ggml_ftype_of(file_type));
    if (config.format == CheckpointFormat::ggml_file) {
        GgmlFile input = read_ggml_file(config.source);
        c.mel_count = input.mel_count;
        c.mel_bins = input.mel_bins;
        c.mel_filters = std::move(input.mel_filters);
        c.vocab = std::move(input.vocab);
        return c;
    }
    const auto mels = static_cast<int>(config.n_mels);
    c.mel_count = mels;
    c.mel_bins = whisper_mel_bins;
    c.mel_filters = mel_filters_for(mels);
    if (c.mel_filters.size() != static_cast<std::size_t>(mels) * whisper_mel_bins) {
        throw CheckpointError(config.source, "the mel filter block has " +
                                                 std::to_string(c.mel_filters.size()) +
                                                 " values, not " + std::to_string(mels) + " x 201");
    }
    c.vocab = tokenizer::read_hf_vocabulary(vocabulary_source(config)).tokens;
    return c;
}

// The vocabulary must fit n_vocab as Earshot's tokenizer requires (its base tokens end where
// n_vocab's <|endoftext|> begins): whisper.cpp loads a file that breaks this, but `earshot
// transcribe` refuses it, so it is refused here before any weight is read (TokenizerError,
// naming the vocabulary's file and both sizes).
void require_vocabulary_fits(const WhisperConfig& config) {
    (void)tokenizer::Tokenizer::load(vocabulary_source(config), config.n_vocab);
}

GgmlTensorToWrite tensor_of(const Weight& w, GgmlType file_type) {
    GgmlTensorToWrite t;
    t.name = openai_name_of_hf(w.source_name);
    t.ne = ggml_ne_of(t.name, w.shape);
    t.type = whisper_cpp_tensor_type(t.name, t.ne, file_type);
    std::vector<float> values(w.element_count());
    convert_to_f32(w, values);
    if (is_quantized(t.type)) {
        const auto block = static_cast<int64_t>(ggml_block_layout(t.type).elements);
        if (t.ne[0] % block != 0) {
            throw CheckpointError(w.file, t.name,
                                  "rows of " + std::to_string(t.ne[0]) + " values are not whole " +
                                      std::string(ggml_type_name(t.type)) + " blocks of " +
                                      std::to_string(block));
        }
        t.data = quantize_ggml_blocks(t.type, values);
    } else if (t.type == GgmlType::f16) {
        t.data.resize(values.size() * sizeof(uint16_t));
        for (std::size_t i = 0; i < values.size(); ++i) {
            const uint16_t bits = base::f32_to_f16(values[i]);
            std::memcpy(t.data.data() + i * sizeof(bits), &bits, sizeof(bits));
        }
    } else {
        const auto* bytes = reinterpret_cast<const std::byte*>(values.data());
        t.data.assign(bytes, bytes + values.size() * sizeof(float));
    }
    return t;
}

}  // namespace

std::optional<GgmlType> ggml_file_type_from_name(std::string_view name) {
    for (const auto& [type_name, type] : file_types) {
        if (type_name == name) return type;
    }
    return std::nullopt;
}

std::string ggml_file_type_names() {
    std::string names;
    for (const auto& [type_name, type] : file_types) {
        if (!names.empty()) names += ", ";
        names += type_name;
    }
    return names;
}

void quantize_checkpoint_to_ggml(const std::filesystem::path& input, GgmlType file_type,
                                 const MelFiltersFor& mel_filters_for, std::ostream& out,
                                 const std::function<void(const GgmlQuantizeProgress&)>& progress) {
    const WhisperConfig config = read_whisper_config(input);
    require_vocabulary_fits(config);
    const WeightSet weights = read_weights(config);
    write_ggml_preamble(out, preamble_of(config, file_type, mel_filters_for));
    std::vector<const Weight*> written;
    for (const Weight& w : weights.weights()) {
        if (!w.path.empty()) written.push_back(&w);
    }
    for (std::size_t i = 0; i < written.size(); ++i) {
        const Weight& w = *written[i];
        if (progress) {
            const std::string name = openai_name_of_hf(w.source_name);
            progress({i, written.size(), name,
                      whisper_cpp_tensor_type(name, ggml_ne_of(name, w.shape), file_type)});
        }
        write_ggml_tensor(out, tensor_of(w, file_type));
    }
}

}  // namespace earshot::convert
