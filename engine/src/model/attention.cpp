// whisper::Attention: declaration and trace. Scores are scaled by rsqrt(D / Heads), the same
// softmax(q k^T / sqrt(d_h)) every implementation computes (reference section 2.5).
#include "earshot/engine/model/attention.h"

#include "earshot/engine/program/syntax.h"

namespace earshot::model {

using program::BlockDecl;
using program::GraphBuilder;
using program::ValueId;

const BlockDecl& Attention::declaration() {
    static const BlockDecl decl = program::parse_block(
        "whisper::Attention<D: Dim, Heads: Dim, T: Float>",
        {
            "sub q_proj: Linear<D, D, T>",
            "sub k_proj: Linear<D, D, T>",
            "sub v_proj: Linear<D, D, T>",
            "sub out_proj: Linear<D, D, T>",
            "pub fn forward<B: Dim, Q: Dim, Src: Dim>(x: Tensor[B, Q, D; T], source: Tensor[B, "
            "Src, D; T], mask: Tensor[Q, Src; bool]?) -> Tensor[B, Q, D; T]",
            "pub fn keys<B: Dim, N: Dim>(source: Tensor[B, N, D; T]) -> Tensor[B, Heads, N, D / "
            "Heads; T]",
            "pub fn values<B: Dim, N: Dim>(source: Tensor[B, N, D; T]) -> Tensor[B, Heads, N, D / "
            "Heads; T]",
            "pub fn attend<B: Dim, Q: Dim, K: Dim>(x: Tensor[B, Q, D; T], keys: Tensor[B, Heads, "
            "K, D / Heads; T], values: Tensor[B, Heads, K, D / Heads; T], mask: Tensor[Q, K; "
            "bool]?) -> Tensor[B, Q, D; T]",
            "where Heads > 0",
            "where D % Heads == 0",
        });
    return decl;
}

Attention::Attention(std::vector<program::GenericArg> args, std::string path, const BlockDecl& decl)
    : BlockInstance(decl, std::move(args), std::move(path)),
      q_proj_(sub_args("q_proj"), sub_path("q_proj")),
      k_proj_(sub_args("k_proj"), sub_path("k_proj")),
      v_proj_(sub_args("v_proj"), sub_path("v_proj")),
      out_proj_(sub_args("out_proj"), sub_path("out_proj")) {}

ValueId Attention::forward(GraphBuilder& b, ValueId x, ValueId source, ValueId mask) const {
    program::Call call(b, *this, "forward", {x, source, mask});
    ValueId k = keys(b, source);    // [B, Heads, Src, D / Heads]
    ValueId v = values(b, source);  // [B, Heads, Src, D / Heads]
    return call.finish(attend(b, x, k, v, call.arg(2)));
}

ValueId Attention::keys(GraphBuilder& b, ValueId source) const {
    program::Call call(b, *this, "keys", {source});
    return call.finish(b.split_heads(k_proj_.forward(b, source), call.dim("Heads")));
}

ValueId Attention::values(GraphBuilder& b, ValueId source) const {
    program::Call call(b, *this, "values", {source});
    return call.finish(b.split_heads(v_proj_.forward(b, source), call.dim("Heads")));
}

ValueId Attention::attend(GraphBuilder& b, ValueId x, ValueId keys, ValueId values,
                          ValueId mask) const {
    program::Call call(b, *this, "attend", {x, keys, values, mask});
    const auto d = call.dim("D");
    ValueId q =
        b.split_heads(q_proj_.forward(b, x), call.dim("Heads"));  // [B, Heads, Q, D / Heads]
    ValueId heads = b.attention(q, keys, values, call.arg(3), d / call.dim("Heads"));
    return call.finish(out_proj_.forward(b, b.merge_heads(heads, d)));  // [B, Q, D]
}

ValueId Attention::invoke(GraphBuilder& b, std::string_view function,
                          const std::vector<ValueId>& args) const {
    if (function == "forward") return forward(b, args.at(0), args.at(1), args.at(2));
    if (function == "keys") return keys(b, args.at(0));
    if (function == "values") return values(b, args.at(0));
    if (function == "attend") return attend(b, args.at(0), args.at(1), args.at(2), args.at(3));
    unknown_function(function);
}

}  // namespace earshot::model
