// std.nn.norm::RmsNorm: root-mean-square normalization (a library block; Whisper uses LayerNorm).
#pragma once

#include "earshot/engine/program/instance.h"

namespace earshot::model {

class RmsNorm : public program::BlockInstance {
public:
    static const program::BlockDecl& declaration();
    RmsNorm(std::vector<program::GenericArg> args, std::string path,
            const program::BlockDecl& decl = declaration());

    program::ValueId forward(program::GraphBuilder& b, program::ValueId x) const;

    program::ValueId invoke(program::GraphBuilder& b, std::string_view function,
                            const std::vector<program::ValueId>& args) const override;
};

}  // namespace earshot::model
