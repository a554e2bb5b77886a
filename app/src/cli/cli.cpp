// The command line: chooses GUI or CLI, declares the subcommands with CLI11, fills the option
// structs of commands.h and runs the command.
#include "earshot/app/cli.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <iostream>
#include <map>
#include <memory>
#include <ostream>
#include <string_view>

#include "cli/command_registry.h"
#include "cli/man_page.h"
#include "cli/version_info.h"

namespace earshot::app {

namespace {

constexpr std::string_view kModelFlag = "--model";
// Deeper than any block nesting a model has; only bounds the option.
constexpr int kMaxExpandDepth = 1000;

// Whether CLI11's exit code means success (help, version) or a usage error.
int cli_exit_code(int cli11_code) { return cli11_code == 0 ? kExitOk : kExitBadInput; }

}  // namespace

ExtraCommand add_toggle(CLI::App& root);  // command_toggle.cpp
ExtraCommand add_start(CLI::App& root);   // command_toggle.cpp
ExtraCommand add_stop(CLI::App& root);    // command_toggle.cpp
ExtraCommand add_status(CLI::App& root);  // command_toggle.cpp

Launch choose_launch(int argc, const char* const* argv) {
    Launch launch;
    if (argc < 2) {
        return launch;  // no arguments: the GUI without a model
    }
    const std::string_view first = argv[1];
    if (first == kModelFlag) {
        if (argc < 3 || std::string_view(argv[2]).empty()) {
            launch.mode = LaunchMode::usage_error;
            launch.error = "--model needs a PATH (a model directory, .safetensors or ggml .bin)";
            return launch;
        }
        launch.model_path = argv[2];
        return launch;
    }
    if (first.substr(0, kModelFlag.size() + 1) == "--model=") {
        launch.model_path = std::string(first.substr(kModelFlag.size() + 1));
        if (launch.model_path.empty()) {
            launch.mode = LaunchMode::usage_error;
            launch.error = "--model needs a PATH (a model directory, .safetensors or ggml .bin)";
        }
        return launch;
    }
    // Subcommands, --help, and anything unknown: the CLI parses it and reports errors.
    launch.mode = LaunchMode::cli;
    return launch;
}

CliRequest parse_cli(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
    CliRequest request;
    CLI::App app{"Earshot: Whisper dictation and transcription, and a look inside the model.",
                 "earshot"};
    // At most one; "none given" is reported after parsing, so that an unknown word is named as
    // unexpected instead of hidden behind "a subcommand is required".
    app.require_subcommand(0, 1);

    CLI::App* inspect = app.add_subcommand(
        "inspect", "Print the model's entries, generics and blocks, bound to a checkpoint");
    inspect->add_option(
        "--model", request.inspect.model_path,
        "HF model directory, model.safetensors, whisper.cpp ggml .bin or a name from "
        "`earshot models list`; default: the model chosen in the app, else the micro "
        "demo model");

    CLI::App* graph = app.add_subcommand(
        "graph", "Print the traced graph of one entry, with a type on every edge");
    std::string format = "json";
    bool bind = false;
    graph->add_option("--model", request.graph.model_path,
                      "HF model directory, model.safetensors, whisper.cpp ggml .bin or a name from "
                      "`earshot models list`; default: the model chosen in the app, else the micro "
                      "demo model");
    graph->add_option("--entry", request.graph.entry, "Entry to trace: encode, decode, ...")
        ->capture_default_str();
    graph
        ->add_option("--expand", request.graph.expand_depth,
                     "Levels of block calls to expand (0: top-level calls only)")
        ->check(CLI::Range(0, kMaxExpandDepth))
        ->capture_default_str();
    graph->add_option("--format", format, "Output format")
        ->check(CLI::IsMember({"json", "dot"}))
        ->capture_default_str();
    graph->add_flag("--bind", bind, "Concrete dims from the checkpoint instead of symbols");
    graph->add_flag("--params", request.graph.show_params, "Also show param and state nodes");

    std::vector<ExtraCommand> extras;
    for (CommandAdder add : extra_commands()) extras.push_back(add(app));
    // Dictation in the running instance, over its local socket (desktop shortcuts).
    for (CommandAdder add : {add_toggle, add_start, add_stop, add_status})
        extras.push_back(add(app));
    app.set_version_flag(
        "--version", [] { return version_text(); },
        "Print the version, the backends built and the embedded model's place");
    // `earshot man-page`: earshot(1) from these definitions (the build installs it); hidden. The
    // page is written while `app` exists, during parsing.
    auto man_text = std::make_shared<std::string>();
    CLI::App* man = app.add_subcommand("man-page", "Print the man page earshot(1) (troff)");
    man->group("");
    man->callback([&app, man_text] { *man_text = render_man_page(app, EARSHOT_VERSION); });
    extras.push_back({man, [man_text](std::ostream& man_out, std::ostream&) {
                          man_out << *man_text;
                          return kExitOk;
                      }});
    // Set once every subcommand exists: subcommands copy their parent's footer when created, and
    // this line belongs to `earshot --help` only.
    app.footer(
        "Without a subcommand, `earshot [--model PATH]` starts the graphical interface.\n"
        "The manual: `man earshot` once installed; from a build tree, "
        "`earshot man-page | man -l -`.");

    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& error) {
        request.command = CliCommand::none;
        request.exit_code = cli_exit_code(app.exit(error, out, err));
        return request;
    }

    if (inspect->parsed()) {
        request.command = CliCommand::inspect;
    } else if (graph->parsed()) {
        request.command = CliCommand::graph;
        request.graph.format = format == "dot" ? GraphFormat::dot : GraphFormat::json;
        request.graph.types = bind ? GraphTypes::bound : GraphTypes::symbolic;
    } else if (auto chosen =
                   std::find_if(extras.begin(), extras.end(),
                                [](const ExtraCommand& c) { return c.subcommand->parsed(); });
               chosen != extras.end()) {
        request.command = CliCommand::extra;
        request.run_extra = chosen->run;
    } else {
        err << "A subcommand is required: inspect or graph\n"
            << "Run with --help for more information.\n";
        request.exit_code = kExitBadInput;
    }
    return request;
}

int run_cli(int argc, char** argv) {
    const CliRequest request = parse_cli(argc, argv, std::cout, std::cerr);
    switch (request.command) {
        case CliCommand::inspect:
            return run_inspect(request.inspect, std::cout, std::cerr);
        case CliCommand::graph:
            return run_graph(request.graph, std::cout, std::cerr);
        case CliCommand::extra:
            return request.run_extra(std::cout, std::cerr);
        case CliCommand::none:
            break;
    }
    return request.exit_code;
}

}  // namespace earshot::app
