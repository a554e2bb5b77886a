// Subcommands beyond inspect and graph, each defined in its own file: an adder declares the
// subcommand on the CLI11 app and returns what to run when it was the one parsed.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <iosfwd>
#include <vector>

namespace earshot::app {

using CommandRun = std::function<int(std::ostream& out, std::ostream& err)>;

struct ExtraCommand {
    CLI::App* subcommand = nullptr;  // the leaf that, when parsed, selects this command
    CommandRun run;                  // reads the options the adder bound; called after parsing
};

using CommandAdder = ExtraCommand (*)(CLI::App& root);

// Every extra command, in the order `earshot --help` lists them (command_list.cpp).
const std::vector<CommandAdder>& extra_commands();

// The `earshot debug` group (interop and checking tools), created on first use.
CLI::App& debug_group(CLI::App& root);

}  // namespace earshot::app
