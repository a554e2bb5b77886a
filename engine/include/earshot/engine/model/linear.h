// std.nn.linear::Linear: y = x W^T + b, the projection every Whisper block is made of.
#pragma once

#include "earshot/engine/program/instance.h"

namespace earshot::model {

class Linear : public program::BlockInstance {
public:
    static const program::BlockDecl& declaration();
    Linear(std::vector<program::GenericArg> args, std::string path,
           const program::BlockDecl& decl = declaration());

    // x [*S, In] -> [*S, Out]
    program::ValueId forward(program::GraphBuilder& b, program::ValueId x) const;

    program::ValueId invoke(program::GraphBuilder& b, std::string_view function,
                            const std::vector<program::ValueId>& args) const override;
};

}  // namespace earshot::model
