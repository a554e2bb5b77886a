// whisper::LayerNorm: layer normalization over the last dim, eps 1e-5.
#pragma once

#include "earshot/engine/program/instance.h"

namespace earshot::model {

class LayerNorm : public program::BlockInstance {
public:
    static const program::BlockDecl& declaration();
    LayerNorm(std::vector<program::GenericArg> args, std::string path,
              const program::BlockDecl& decl = declaration());

    program::ValueId forward(program::GraphBuilder& b, program::ValueId x) const;

    program::ValueId invoke(program::GraphBuilder& b, std::string_view function,
                            const std::vector<program::ValueId>& args) const override;
};

}  // namespace earshot::model
