// `earshot serve [--host H] [--port P] [--model M] ...`: the OpenAI-compatible HTTP server. The
// server is its own executable, earshot-server, built without Qt: this command replaces the
// process with it (same pid, so supervisors' signals reach the server), so that a headless
// machine serves without the GUI libraries this executable links.
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <memory>
#include <ostream>
#include <string>
#include <system_error>
#include <vector>

#include "cli/command_registry.h"
#include "earshot/app/commands.h"

namespace earshot::app {
namespace {

namespace fs = std::filesystem;

// earshot-server beside this executable (the build tree and the package install both there).
fs::path server_executable() {
    std::error_code error;
    const fs::path self = fs::read_symlink("/proc/self/exe", error);
    if (error) return {};
    return self.parent_path() / "earshot-server";
}

}  // namespace

ExtraCommand add_serve(CLI::App& root) {
    CLI::App* command = root.add_subcommand(
        "serve", "Serve OpenAI's audio API over HTTP, headless (`earshot serve --help`)");
    // Every argument, --help included, is the server's to parse.
    command->prefix_command();
    command->set_help_flag();
    command->allow_extras();
    // Copied while parsing: the CLI11 app is gone when the command runs.
    auto arguments = std::make_shared<std::vector<std::string>>();
    command->callback([command, arguments] { *arguments = command->remaining(); });
    return {command, [arguments](std::ostream&, std::ostream& err) {
                const fs::path server = server_executable();
                std::vector<std::string> args{"earshot-server"};
                for (const std::string& argument : *arguments) args.push_back(argument);
                std::vector<char*> argv;
                for (std::string& argument : args) argv.push_back(argument.data());
                argv.push_back(nullptr);
                err.flush();
                ::execv(server.c_str(), argv.data());
                err << "earshot serve: cannot run " << server.string() << ": "
                    << std::strerror(errno) << "\n";
                return kExitBadInput;
            }};
}

}  // namespace earshot::app
