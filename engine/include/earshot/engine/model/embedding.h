// std.nn.embedding::Embedding: a lookup table from token ids to vectors.
#pragma once

#include "earshot/engine/program/instance.h"

namespace earshot::model {

class Embedding : public program::BlockInstance {
public:
    static const program::BlockDecl& declaration();
    Embedding(std::vector<program::GenericArg> args, std::string path,
              const program::BlockDecl& decl = declaration());

    program::ValueId forward(program::GraphBuilder& b, program::ValueId x) const;

    program::ValueId invoke(program::GraphBuilder& b, std::string_view function,
                            const std::vector<program::ValueId>& args) const override;
};

}  // namespace earshot::model
