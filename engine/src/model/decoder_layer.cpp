// whisper::DecoderLayer: declaration and trace of its stateless and cached functions.
#include "earshot/engine/model/decoder_layer.h"

#include "earshot/engine/program/syntax.h"

namespace earshot::model {

using program::BlockDecl;
using program::Dim;
using program::GraphBuilder;
using program::kNoValue;
using program::ValueId;

// The caches are [Batch, Heads, positions, D / Heads]: positions are axis 2.
constexpr int64_t kPositionAxis = 2;

const BlockDecl& DecoderLayer::declaration() {
    static const BlockDecl decl = program::parse_block(
        "whisper::DecoderLayer<D: Dim, Heads: Dim, Inner: Dim, Batch: Dim, MaxTokens: Dim, Audio: "
        "Dim, T: Float>",
        {
            "sub self_attn_layer_norm: LayerNorm<D, T>",
            "sub self_attn: Attention<D, Heads, T>",
            "sub encoder_attn_layer_norm: LayerNorm<D, T>",
            "sub encoder_attn: Attention<D, Heads, T>",
            "sub final_layer_norm: LayerNorm<D, T>",
            "sub mlp: Mlp<D, Inner, T>",
            "state self_k: Tensor[Batch, Heads, MaxTokens, D / Heads; T]",
            "state self_v: Tensor[Batch, Heads, MaxTokens, D / Heads; T]",
            "state cross_k: Tensor[Batch, Heads, Audio, D / Heads; T]",
            "state cross_v: Tensor[Batch, Heads, Audio, D / Heads; T]",
            "pub fn forward<B: Dim, S: Dim, A: Dim>(x: Tensor[B, S, D; T], audio: Tensor[B, A, D; "
            "T]) -> Tensor[B, S, D; T]",
            "pub fn listen(audio: Tensor[Batch, Audio, D; T]) -> Tensor[Batch, Audio, D; T]",
            "pub fn prefill<S: Dim>(x: Tensor[Batch, S, D; T]) -> Tensor[Batch, S, D; T]",
            "pub fn step(x: Tensor[Batch, 1, D; T], pos: i32) -> Tensor[Batch, 1, D; T]",
            "fn cross<S: Dim>(attended: Tensor[Batch, S, D; T]) -> Tensor[Batch, S, D; T]",
        });
    return decl;
}

DecoderLayer::DecoderLayer(std::vector<program::GenericArg> args, std::string path,
                           const BlockDecl& decl)
    : BlockInstance(decl, std::move(args), std::move(path)),
      self_attn_layer_norm_(sub_args("self_attn_layer_norm"), sub_path("self_attn_layer_norm")),
      self_attn_(sub_args("self_attn"), sub_path("self_attn")),
      encoder_attn_layer_norm_(sub_args("encoder_attn_layer_norm"),
                               sub_path("encoder_attn_layer_norm")),
      encoder_attn_(sub_args("encoder_attn"), sub_path("encoder_attn")),
      final_layer_norm_(sub_args("final_layer_norm"), sub_path("final_layer_norm")),
      mlp_(sub_args("mlp"), sub_path("mlp")) {}

ValueId DecoderLayer::forward(GraphBuilder& b, ValueId x, ValueId audio) const {
    program::Call call(b, *this, "forward", {x, audio});
    ValueId normed = self_attn_layer_norm_.forward(b, x);  // [B, S, D]
    ValueId mask = b.causal_mask(call.dim("S"));           // [S, S; bool]
    ValueId h = b.add(x, self_attn_.forward(b, normed, normed, mask));
    ValueId query = encoder_attn_layer_norm_.forward(b, h);
    h = b.add(h, encoder_attn_.forward(b, query, audio, kNoValue));  // [B, S, D]
    ValueId mlp_in = final_layer_norm_.forward(b, h);
    return call.finish(b.add(h, mlp_.forward(b, mlp_in)));
}

ValueId DecoderLayer::listen(GraphBuilder& b, ValueId audio) const {
    program::Call call(b, *this, "listen", {audio});
    b.write_span(state(b, "cross_k"), encoder_attn_.keys(b, audio), kPositionAxis, Dim(0));
    b.write_span(state(b, "cross_v"), encoder_attn_.values(b, audio), kPositionAxis, Dim(0));
    return call.finish(audio);
}

ValueId DecoderLayer::prefill(GraphBuilder& b, ValueId x) const {
    program::Call call(b, *this, "prefill", {x});
    ValueId normed = self_attn_layer_norm_.forward(b, x);  // [Batch, S, D]
    ValueId k = self_attn_.keys(b, normed);                // [Batch, Heads, S, D / Heads]
    ValueId v = self_attn_.values(b, normed);
    b.write_span(state(b, "self_k"), k, kPositionAxis, Dim(0));
    b.write_span(state(b, "self_v"), v, kPositionAxis, Dim(0));
    ValueId mask = b.causal_mask(call.dim("S"));
    ValueId h = b.add(x, self_attn_.attend(b, normed, k, v, mask));
    return call.finish(cross(b, h));
}

ValueId DecoderLayer::step(GraphBuilder& b, ValueId x, ValueId pos) const {
    program::Call call(b, *this, "step", {x, pos});
    ValueId normed = self_attn_layer_norm_.forward(b, x);  // [Batch, 1, D]
    // [Batch, Heads, MaxTokens, D / Heads] with this position written.
    ValueId k = b.write_at(state(b, "self_k"), self_attn_.keys(b, normed), kPositionAxis, pos);
    ValueId v = b.write_at(state(b, "self_v"), self_attn_.values(b, normed), kPositionAxis, pos);
    const Dim max_tokens = call.dim("MaxTokens");
    ValueId visible = b.less_equal(b.iota(max_tokens), pos);  // [MaxTokens; bool]
    ValueId mask = b.reshape(visible, {Dim(1), max_tokens});  // [1, MaxTokens; bool]
    ValueId h = b.add(x, self_attn_.attend(b, normed, k, v, mask));
    return call.finish(cross(b, h));
}

ValueId DecoderLayer::cross(GraphBuilder& b, ValueId attended) const {
    program::Call call(b, *this, "cross", {attended});
    ValueId query = encoder_attn_layer_norm_.forward(b, attended);
    ValueId h = b.add(attended, encoder_attn_.attend(b, query, state(b, "cross_k"),
                                                     state(b, "cross_v"), kNoValue));
    ValueId mlp_in = final_layer_norm_.forward(b, h);
    return call.finish(b.add(h, mlp_.forward(b, mlp_in)));
}

ValueId DecoderLayer::invoke(GraphBuilder& b, std::string_view function,
                             const std::vector<ValueId>& args) const {
    if (function == "forward") return forward(b, args.at(0), args.at(1));
    if (function == "listen") return listen(b, args.at(0));
    if (function == "prefill") return prefill(b, args.at(0));
    if (function == "step") return step(b, args.at(0), args.at(1));
    if (function == "cross") return cross(b, args.at(0));
    unknown_function(function);
}

}  // namespace earshot::model
