// The `inspect` report of a program: its entries, the root generics as a checkpoint binds them,
// and every block with its members and functions.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "earshot/engine/program/block.h"

namespace earshot::program {

// (generic name, bound value as printed), in the root's declaration order.
using GenericValues = std::vector<std::pair<std::string, std::string>>;

// From the line `Entries` to the end, without a trailing newline: the sections `Entries`,
// `Generics` and `Blocks`, tab-separated columns, blocks sorted by name.
std::string inspect_report(const BlockDecl& root, const std::vector<const BlockDecl*>& blocks,
                           const GenericValues& generics);

}  // namespace earshot::program
