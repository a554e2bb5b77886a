// whisper::Mlp: fc1, exact GELU, fc2.
#pragma once

#include "earshot/engine/model/linear.h"

namespace earshot::model {

class Mlp : public program::BlockInstance {
public:
    static const program::BlockDecl& declaration();
    Mlp(std::vector<program::GenericArg> args, std::string path,
        const program::BlockDecl& decl = declaration());

    program::ValueId forward(program::GraphBuilder& b, program::ValueId x) const;

    program::ValueId invoke(program::GraphBuilder& b, std::string_view function,
                            const std::vector<program::ValueId>& args) const override;

private:
    Linear fc1_;
    Linear fc2_;
};

}  // namespace earshot::model
