// The declaration syntax of the block program, parsed into typed declarations: dims, types,
// generics, members, function signatures and constraints, exactly as `inspect` prints them.
#pragma once

#include <initializer_list>
#include <string_view>

#include "earshot/engine/program/block.h"

namespace earshot::program {

// Raised on text that is not valid declaration syntax; the message quotes the text and position.
class SyntaxError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// `1 + (-1 + Frames) / 2`, `min(A, B)`; identifiers become symbols.
Dim parse_dim(std::string_view text);

// `Tensor[*S, In; T]?`, `i32`. Identifiers after `;` and bare ones are element types.
Type parse_type(std::string_view text);

// `whisper::Attention<D: Dim, Heads: Dim, T: Float>` followed by member and function lines
// (`sub q_proj: Linear<D, D, T>`, `pub fn forward<B: Dim>(x: ...) -> ...`) and constraint
// lines (`where D % Heads == 0`). Generic arguments of `sub` types are element types when they
// name a Float generic of the block or a dtype, dims otherwise.
BlockDecl parse_block(std::string_view header, std::initializer_list<std::string_view> lines);

}  // namespace earshot::program
