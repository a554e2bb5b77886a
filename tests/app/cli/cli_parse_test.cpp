// Tests for the command line: GUI/CLI dispatch, option parsing into commands.h's structs, and
// usage errors from the real executable (exit code 2, CLI11's message on stderr).
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "earshot/app/cli.h"
#include "run_process.h"

namespace earshot::app {
namespace {

using earshot::test::ProcessResult;
using earshot::test::run_earshot;

// argv as main() gets it: the program name, then `args`.
struct Argv {
    explicit Argv(const std::vector<const char*>& args) : values(args.size() + 1, "earshot") {
        std::copy(args.begin(), args.end(), values.begin() + 1);
    }
    int argc() const { return static_cast<int>(values.size()); }
    const char* const* argv() const { return values.data(); }
    std::vector<const char*> values;
};

CliRequest parse(const std::vector<const char*>& args, std::string* out_text = nullptr,
                 std::string* err_text = nullptr) {
    const Argv argv(args);
    std::ostringstream out;
    std::ostringstream err;
    CliRequest request = parse_cli(argv.argc(), argv.argv(), out, err);
    if (out_text != nullptr) *out_text = out.str();
    if (err_text != nullptr) *err_text = err.str();
    return request;
}

TEST(ChooseLaunch, NoArgumentsStartsGuiWithoutModel) {
    const Argv argv(std::vector<const char*>{});
    const Launch launch = choose_launch(argv.argc(), argv.argv());
    EXPECT_EQ(launch.mode, LaunchMode::gui);
    EXPECT_EQ(launch.model_path, "");
}

TEST(ChooseLaunch, ModelFirstStartsGuiWithModel) {
    const Argv spaced({"--model", "/m/ggml-tiny.bin"});
    Launch launch = choose_launch(spaced.argc(), spaced.argv());
    EXPECT_EQ(launch.mode, LaunchMode::gui);
    EXPECT_EQ(launch.model_path, "/m/ggml-tiny.bin");

    const Argv joined({"--model=/m/whisper-tiny"});
    launch = choose_launch(joined.argc(), joined.argv());
    EXPECT_EQ(launch.mode, LaunchMode::gui);
    EXPECT_EQ(launch.model_path, "/m/whisper-tiny");
}

TEST(ChooseLaunch, ModelWithoutPathIsUsageError) {
    const Argv bare({"--model"});
    EXPECT_EQ(choose_launch(bare.argc(), bare.argv()).mode, LaunchMode::usage_error);
    const Argv joined({"--model="});
    EXPECT_EQ(choose_launch(joined.argc(), joined.argv()).mode, LaunchMode::usage_error);
}

TEST(ChooseLaunch, SubcommandsOptionsAndUnknownWordsGoToCli) {
    for (const char* first : {"inspect", "graph", "--help", "-h", "--bogus", "frobnicate"}) {
        const Argv argv({first});
        EXPECT_EQ(choose_launch(argv.argc(), argv.argv()).mode, LaunchMode::cli) << first;
    }
}

TEST(ParseCli, InspectFillsModelPath) {
    const CliRequest request = parse({"inspect", "--model", "/m/ggml-base.bin"});
    EXPECT_EQ(request.command, CliCommand::inspect);
    EXPECT_EQ(request.inspect.model_path, "/m/ggml-base.bin");
}

TEST(ParseCli, GraphDefaults) {
    const CliRequest request = parse({"graph", "--model", "/m/tiny"});
    ASSERT_EQ(request.command, CliCommand::graph);
    EXPECT_EQ(request.graph.model_path, "/m/tiny");
    EXPECT_EQ(request.graph.entry, "encode");
    EXPECT_EQ(request.graph.expand_depth, 1);
    EXPECT_EQ(request.graph.format, GraphFormat::json);
    EXPECT_EQ(request.graph.types, GraphTypes::symbolic);
    EXPECT_FALSE(request.graph.show_params);
}

TEST(ParseCli, GraphEveryOption) {
    const CliRequest request = parse({"graph", "--model", "/m/tiny", "--entry", "step", "--expand",
                                      "3", "--format", "dot", "--bind", "--params"});
    ASSERT_EQ(request.command, CliCommand::graph);
    EXPECT_EQ(request.graph.entry, "step");
    EXPECT_EQ(request.graph.expand_depth, 3);
    EXPECT_EQ(request.graph.format, GraphFormat::dot);
    EXPECT_EQ(request.graph.types, GraphTypes::bound);
    EXPECT_TRUE(request.graph.show_params);
}

TEST(ParseCli, HelpIsExitZeroOnStdout) {
    std::string out;
    std::string err;
    const CliRequest request = parse({"--help"}, &out, &err);
    EXPECT_EQ(request.command, CliCommand::none);
    EXPECT_EQ(request.exit_code, kExitOk);
    EXPECT_NE(out.find("inspect"), std::string::npos) << out;
    EXPECT_NE(out.find("graph"), std::string::npos) << out;
    EXPECT_NE(out.find("Without a subcommand"), std::string::npos) << out;
    // Where the manual is, installed or not (`man earshot` finds nothing in a build tree).
    EXPECT_NE(out.find("`earshot man-page | man -l -`"), std::string::npos) << out;
    EXPECT_EQ(err, "");
}

// The line about starting without a subcommand is the top-level help's, not every command's.
TEST(ParseCli, SubcommandHelpDoesNotRepeatTheTopLevelFooter) {
    for (const char* command : {"inspect", "graph", "transcribe", "live"}) {
        std::string out;
        std::string err;
        parse({command, "--help"}, &out, &err);
        EXPECT_NE(out.find("--"), std::string::npos) << command << ": " << out;
        EXPECT_EQ(out.find("Without a subcommand"), std::string::npos) << command << ": " << out;
    }
}

// Without --model, inspect and graph use the default model as transcribe and live do (the model
// chosen in the app, else the embedded micro model): an empty path. Before, --model was required.
TEST(ParseCli, InspectAndGraphTakeTheDefaultModel) {
    CliRequest request = parse({"inspect"});
    EXPECT_EQ(request.command, CliCommand::inspect);
    EXPECT_EQ(request.inspect.model_path, "");
    request = parse({"graph", "--entry", "step", "--format", "dot"});
    EXPECT_EQ(request.command, CliCommand::graph);
    EXPECT_EQ(request.graph.model_path, "");
    EXPECT_EQ(request.graph.entry, "step");
}

TEST(ParseCli, UsageErrorsAreExitTwo) {
    const std::vector<std::vector<const char*>> cases = {
        {},
        {"frobnicate"},
        {"inspect", "--model"},
        {"graph", "--model", "m", "--format", "svg"},
        {"graph", "--model", "m", "--expand", "-1"},
        {"graph", "--model", "m", "--expand", "two"},
        {"inspect", "--model", "m", "--bogus"},
    };
    for (const auto& args : cases) {
        std::string err;
        const CliRequest request = parse(args, nullptr, &err);
        EXPECT_EQ(request.command, CliCommand::none) << err;
        EXPECT_EQ(request.exit_code, kExitBadInput) << err;
        EXPECT_FALSE(err.empty());
    }
}

TEST(EarshotExecutable, UnknownSubcommandIsExitTwo) {
    const ProcessResult result = run_earshot("frobnicate");
    EXPECT_EQ(result.exit_code, 2);
    EXPECT_NE(result.err.find("frobnicate"), std::string::npos) << result.err;
    EXPECT_EQ(result.out, "");
}

TEST(EarshotExecutable, UnknownOptionIsExitTwo) {
    const ProcessResult result = run_earshot("--bogus");
    EXPECT_EQ(result.exit_code, 2);
    EXPECT_NE(result.err.find("--bogus"), std::string::npos) << result.err;
}

// Without --model, inspect and graph take the default model (ModelsCommand tests that with a
// private configuration); a model that is not there is exit 2, named.
TEST(EarshotExecutable, InspectOfAMissingModelIsExitTwo) {
    const ProcessResult result = run_earshot("inspect --model /nonexistent/model");
    EXPECT_EQ(result.exit_code, 2);
    EXPECT_NE(result.err.find("earshot inspect: model: no such file or directory"),
              std::string::npos)
        << result.err;
    EXPECT_EQ(result.out, "");
}

TEST(EarshotExecutable, GraphOfAMissingModelIsExitTwo) {
    const ProcessResult result = run_earshot("graph --model /nonexistent/model --entry encode");
    EXPECT_EQ(result.exit_code, 2);
    EXPECT_NE(result.err.find("earshot graph: model: no such file or directory"), std::string::npos)
        << result.err;
    EXPECT_EQ(result.out, "");
}

TEST(EarshotExecutable, NoSubcommandIsExitTwo) {
    // `--` is not --model, so this is the command line, with no subcommand.
    const ProcessResult result = run_earshot("--");
    EXPECT_EQ(result.exit_code, 2);
    EXPECT_NE(result.err.find("subcommand is required"), std::string::npos) << result.err;
}

TEST(EarshotExecutable, GraphBadFormatIsExitTwo) {
    const ProcessResult result = run_earshot("graph --model m --format svg");
    EXPECT_EQ(result.exit_code, 2);
    EXPECT_NE(result.err.find("svg"), std::string::npos) << result.err;
}

TEST(EarshotExecutable, ModelFlagWithoutPathIsExitTwo) {
    const ProcessResult result = run_earshot("--model");
    EXPECT_EQ(result.exit_code, 2);
    EXPECT_NE(result.err.find("--model"), std::string::npos) << result.err;
}

TEST(EarshotExecutable, HelpListsSubcommands) {
    const ProcessResult result = run_earshot("--help");
    EXPECT_EQ(result.exit_code, 0);
    EXPECT_NE(result.out.find("inspect"), std::string::npos) << result.out;
    EXPECT_NE(result.out.find("graph"), std::string::npos) << result.out;
}

}  // namespace
}  // namespace earshot::app
