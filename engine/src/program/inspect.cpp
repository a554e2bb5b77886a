// The `inspect` report layout.
#include "earshot/engine/program/inspect.h"

#include <algorithm>

namespace earshot::program {

std::string inspect_report(const BlockDecl& root, const std::vector<const BlockDecl*>& blocks,
                           const GenericValues& generics) {
    std::string out = "Entries\n\nEntry\tSignature\n";
    for (const auto& f : root.functions) {
        if (f.visibility == Visibility::entry) out += f.name + "\t" + f.signature() + "\n";
    }
    out += "\nGenerics\n\nThe root block's generics as this checkpoint binds them.\n\n";
    for (const auto& [name, value] : generics) out += name + "\t" + value + "\n";
    // The seed's layout word for word but for the tool it names: its "as linnet inspect prints
    // them" is a tool Earshot's users do not have.
    out +=
        "\nBlocks\n\nEvery block of the program with its members and functions, as earshot "
        "inspect prints them.";
    std::vector<const BlockDecl*> sorted = blocks;
    std::sort(sorted.begin(), sorted.end(),
              [](const BlockDecl* a, const BlockDecl* b) { return a->name < b->name; });
    for (const BlockDecl* block : sorted) out += "\n\n" + block->name + "\n\n" + block->str();
    return out;
}

}  // namespace earshot::program
