// The man page earshot(1), written from the command line's own CLI11 definitions, so the two
// cannot disagree.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <string_view>

namespace earshot::app {

// troff (man macros) for `root` and every visible subcommand, nested ones included.
std::string render_man_page(const CLI::App& root, std::string_view version);

// Text made safe for a troff line: backslashes and hyphens escaped, a leading dot or quote
// guarded.
std::string troff_escape(std::string_view text);

}  // namespace earshot::app
