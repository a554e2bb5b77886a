// whisper::Model: declaration, the five entries and the private encoder body.
#include "earshot/engine/model/whisper_model.h"

#include "earshot/engine/model/embedding.h"
#include "earshot/engine/model/rms_norm.h"
#include "earshot/engine/program/syntax.h"

namespace earshot::model {

using program::BlockDecl;
using program::Dim;
using program::GraphBuilder;
using program::ValueId;

// The convolutional stem (reference section 2.1): kernel 3, padding 1, strides 1 then 2.
constexpr int64_t kConvPadding = 1;
constexpr int64_t kConv1Stride = 1;
constexpr int64_t kConv2Stride = 2;

const BlockDecl& WhisperModel::declaration() {
    static const BlockDecl decl = program::parse_block(
        "whisper::Model<Mels: Dim, Frames: Dim, D: Dim, Heads: Dim, Inner: Dim, EncoderLayers: "
        "Dim, DecoderLayers: Dim, Vocab: Dim, MaxTokens: Dim, T: Float = f32, Batch: Dim = 1>",
        {
            "param conv1_weight: Tensor[D, Mels, 3; T]",
            "param conv1_bias: Tensor[D; T]",
            "param conv2_weight: Tensor[D, D, 3; T]",
            "param conv2_bias: Tensor[D; T]",
            "param encoder_positions: Tensor[1 + (-1 + Frames) / 2, D; T]",
            "sub encoder_layers: [EncoderLayer<D, Heads, Inner, T>; EncoderLayers]",
            "sub encoder_norm: LayerNorm<D, T>",
            "param token_embedding: Tensor[Vocab, D; T]",
            "param decoder_positions: Tensor[MaxTokens, D; T]",
            "sub decoder_layers: [DecoderLayer<D, Heads, Inner, Batch, MaxTokens, 1 + (-1 + "
            "Frames) / 2, T>; DecoderLayers]",
            "sub decoder_norm: LayerNorm<D, T>",
            "pub entry encode<B: Dim>(mel: Tensor[B, Mels, Frames; T]) -> Tensor[B, 1 + (-1 + "
            "Frames) / 2, D; T]",
            "fn encoded<B: Dim>(mel: Tensor[B, Mels, Frames; T]) -> Tensor[B, 1 + (-1 + Frames) "
            "/ 2, D; T]",
            "pub entry decode<B: Dim, S: Dim, A: Dim>(tokens: Tensor[B, S; i32], audio: Tensor[B, "
            "A, D; T]) -> Tensor[B, S, Vocab; T]",
            "pub entry listen(mel: Tensor[Batch, Mels, Frames; T]) -> Tensor[Batch, 1 + (-1 + "
            "Frames) / 2, D; T]",
            "pub entry prefill<S: Dim>(tokens: Tensor[Batch, S; i32]) -> Tensor[Batch, Vocab; T]",
            "pub entry step(token: Tensor[Batch, 1; i32], pos: i32) -> Tensor[Batch, Vocab; T]",
            "where Mels > 0",
            "where Frames > 0",
            "where D > 0",
            "where Inner > 0",
            "where Vocab > 0",
            "where MaxTokens > 0",
        });
    return decl;
}

WhisperModel::WhisperModel(std::vector<program::GenericArg> args, const BlockDecl& decl)
    : BlockInstance(decl, std::move(args), ""),
      encoder_layer_(sub_args("encoder_layers"), sub_path("encoder_layers", "layer")),
      encoder_norm_(sub_args("encoder_norm"), sub_path("encoder_norm")),
      decoder_layer_(sub_args("decoder_layers"), sub_path("decoder_layers", "layer")),
      decoder_norm_(sub_args("decoder_norm"), sub_path("decoder_norm")) {}

ValueId WhisperModel::encode(GraphBuilder& b, ValueId mel) const {
    program::Call call(b, *this, "encode", {mel});
    return call.finish(encoded(b, mel));
}

ValueId WhisperModel::encoded(GraphBuilder& b, ValueId mel) const {
    program::Call call(b, *this, "encoded", {mel});
    ValueId x = b.permute(mel, {0, 2, 1});  // [B, Frames, Mels]
    x = b.gelu_erf(b.conv1d(x, param(b, "conv1_weight"), param(b, "conv1_bias"), kConv1Stride,
                            kConvPadding, "whisper"));  // [B, Frames, D]
    x = b.gelu_erf(b.conv1d(x, param(b, "conv2_weight"), param(b, "conv2_bias"), kConv2Stride,
                            kConvPadding, "whisper"));  // [B, 1 + (-1 + Frames) / 2, D]
    x = b.add(x, param(b, "encoder_positions"));
    auto loop = b.open_loop("layer", "encoder_layers", call.dim("EncoderLayers"), {x});
    ValueId y = encoder_layer_.forward(b, x);
    b.close_loop(loop, {y});
    return call.finish(encoder_norm_.forward(b, y));
}

ValueId WhisperModel::logits(GraphBuilder& b, ValueId x) const {
    ValueId normed = decoder_norm_.forward(b, x);
    // The head is tied to the token embedding and has no bias (reference section 3).
    return b.linear(normed, param(b, "token_embedding"), program::kNoValue, "whisper");
}

ValueId WhisperModel::decode(GraphBuilder& b, ValueId tokens, ValueId audio) const {
    program::Call call(b, *this, "decode", {tokens, audio});
    ValueId x = b.embedding(tokens, param(b, "token_embedding"), "std.nn.embedding");
    x = b.add(x, b.slice_rows(param(b, "decoder_positions"), Dim(0), call.dim("S")));
    auto loop = b.open_loop("layer", "decoder_layers", call.dim("DecoderLayers"), {x});
    ValueId y = decoder_layer_.forward(b, x, audio);  // [B, S, D]
    b.close_loop(loop, {y});
    return call.finish(logits(b, y));  // [B, S, Vocab]
}

ValueId WhisperModel::listen(GraphBuilder& b, ValueId mel) const {
    program::Call call(b, *this, "listen", {mel});
    ValueId audio = encoded(b, mel);  // [Batch, 1 + (-1 + Frames) / 2, D]
    auto loop = b.open_loop("layer", "decoder_layers", call.dim("DecoderLayers"), {audio});
    ValueId same = decoder_layer_.listen(b, audio);
    b.close_loop(loop, {same});
    return call.finish(same);
}

ValueId WhisperModel::prefill(GraphBuilder& b, ValueId tokens) const {
    program::Call call(b, *this, "prefill", {tokens});
    const Dim s = call.dim("S");
    ValueId x = b.embedding(tokens, param(b, "token_embedding"), "std.nn.embedding");
    x = b.add(x, b.slice_rows(param(b, "decoder_positions"), Dim(0), s));  // [Batch, S, D]
    auto loop = b.open_loop("layer", "decoder_layers", call.dim("DecoderLayers"), {x});
    ValueId y = decoder_layer_.prefill(b, x);
    b.close_loop(loop, {y});
    return call.finish(logits(b, b.take(y, 1, s - 1)));  // [Batch, Vocab]
}

ValueId WhisperModel::step(GraphBuilder& b, ValueId token, ValueId pos) const {
    program::Call call(b, *this, "step", {token, pos});
    ValueId x = b.embedding(token, param(b, "token_embedding"), "std.nn.embedding");
    x = b.add(x, b.slice_rows_at(param(b, "decoder_positions"), pos, Dim(1)));  // [Batch, 1, D]
    auto loop = b.open_loop("layer", "decoder_layers", call.dim("DecoderLayers"), {x});
    ValueId y = decoder_layer_.step(b, x, pos);
    b.close_loop(loop, {y});
    return call.finish(logits(b, b.take(y, 1, Dim(0))));  // [Batch, Vocab]
}

ValueId WhisperModel::invoke(GraphBuilder& b, std::string_view function,
                             const std::vector<ValueId>& args) const {
    if (function == "encode") return encode(b, args.at(0));
    if (function == "encoded") return encoded(b, args.at(0));
    if (function == "decode") return decode(b, args.at(0), args.at(1));
    if (function == "listen") return listen(b, args.at(0));
    if (function == "prefill") return prefill(b, args.at(0));
    if (function == "step") return step(b, args.at(0), args.at(1));
    unknown_function(function);
}

int64_t audio_positions(const program::DimValues& dims) {
    return WhisperModel::declaration().member("encoder_positions").type.dims().at(0).evaluate(dims);
}

const std::vector<const BlockDecl*>& whisper_blocks() {
    static const std::vector<const BlockDecl*> blocks{
        &WhisperModel::declaration(), &Attention::declaration(),    &DecoderLayer::declaration(),
        &Embedding::declaration(),    &EncoderLayer::declaration(), &LayerNorm::declaration(),
        &Linear::declaration(),       &Mlp::declaration(),          &RmsNorm::declaration(),
    };
    return blocks;
}

std::unique_ptr<program::BlockInstance> make_whisper_block(const BlockDecl& decl,
                                                           std::vector<program::GenericArg> args,
                                                           std::string path) {
    const std::string& name = decl.name;
    if (name == "Model") return std::make_unique<WhisperModel>(std::move(args), decl);
    if (name == "Attention") return std::make_unique<Attention>(std::move(args), path, decl);
    if (name == "DecoderLayer") return std::make_unique<DecoderLayer>(std::move(args), path, decl);
    if (name == "Embedding") return std::make_unique<Embedding>(std::move(args), path, decl);
    if (name == "EncoderLayer") return std::make_unique<EncoderLayer>(std::move(args), path, decl);
    if (name == "LayerNorm") return std::make_unique<LayerNorm>(std::move(args), path, decl);
    if (name == "Linear") return std::make_unique<Linear>(std::move(args), path, decl);
    if (name == "Mlp") return std::make_unique<Mlp>(std::move(args), path, decl);
    if (name == "RmsNorm") return std::make_unique<RmsNorm>(std::move(args), path, decl);
    throw program::TypeError("the Whisper program has no block named " + name);
}

program::Graph trace_whisper(std::string_view function) {
    WhisperModel model;
    return program::trace_function(model, function);
}

}  // namespace earshot::model
