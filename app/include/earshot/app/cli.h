// The earshot executable's front ends: argument dispatch, the CLI (inspect, graph) and the GUI.
#pragma once

#include <functional>
#include <iosfwd>
#include <string>

#include "earshot/app/commands.h"

namespace earshot::app {

// What main() starts: the GUI (no arguments, or `--model PATH` first), otherwise the CLI.
enum class LaunchMode { gui, cli, usage_error };

struct Launch {
    LaunchMode mode = LaunchMode::gui;
    std::string model_path;  // gui: the model to open at start, may be empty
    std::string error;       // usage_error: what is wrong
};

Launch choose_launch(int argc, const char* const* argv);

// The outcome of parsing a command line; `command` is none when parsing already ended (help was
// printed: exit_code 0, or a usage error: exit_code kExitBadInput).
enum class CliCommand { none, inspect, graph, extra };

struct CliRequest {
    CliCommand command = CliCommand::none;
    int exit_code = kExitOk;
    InspectOptions inspect;
    GraphOptions graph;
    // extra: a subcommand from app/src/cli/command_list.cpp, run with the options it parsed.
    std::function<int(std::ostream& out, std::ostream& err)> run_extra;
};

// Parses `earshot <subcommand> ...`; help goes to `out`, usage errors to `err`.
CliRequest parse_cli(int argc, const char* const* argv, std::ostream& out, std::ostream& err);

// Parses and runs a subcommand, printing to std::cout / std::cerr; returns the exit code.
int run_cli(int argc, char** argv);

// Runs the Qt GUI until its window closes; opens `model_path` first when it is not empty.
int run_gui(int argc, char** argv, const std::string& model_path);

}  // namespace earshot::app
