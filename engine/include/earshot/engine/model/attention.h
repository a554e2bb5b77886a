// whisper::Attention: multi-head attention with q/k/v/out projections (k_proj has no bias).
#pragma once

#include "earshot/engine/model/linear.h"

namespace earshot::model {

class Attention : public program::BlockInstance {
public:
    static const program::BlockDecl& declaration();
    Attention(std::vector<program::GenericArg> args, std::string path,
              const program::BlockDecl& decl = declaration());

    // x [B, Q, D], source [B, Src, D], mask [Q, Src; bool]? (kNoValue: none) -> [B, Q, D]
    program::ValueId forward(program::GraphBuilder& b, program::ValueId x, program::ValueId source,
                             program::ValueId mask) const;
    // source [B, N, D] -> [B, Heads, N, D / Heads]
    program::ValueId keys(program::GraphBuilder& b, program::ValueId source) const;
    program::ValueId values(program::GraphBuilder& b, program::ValueId source) const;
    // x [B, Q, D], keys and values [B, Heads, K, D / Heads], mask [Q, K; bool]? -> [B, Q, D]
    program::ValueId attend(program::GraphBuilder& b, program::ValueId x, program::ValueId keys,
                            program::ValueId values, program::ValueId mask) const;

    program::ValueId invoke(program::GraphBuilder& b, std::string_view function,
                            const std::vector<program::ValueId>& args) const override;

private:
    Linear q_proj_;
    Linear k_proj_;
    Linear v_proj_;
    Linear out_proj_;
};

}  // namespace earshot::model
