// `earshot inspect` and `earshot graph` through the real executable: the report against the golden
// large-v3 text, the dtype rule for safetensors, the ggml test container, one-line errors with
// exit code 2, and the graph's JSON and dot output for every entry.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "run_process.h"
#include "temp_dir.h"

namespace {

namespace fs = std::filesystem;
using earshot::test::ProcessResult;
using earshot::test::run_earshot;
using earshot::test::run_shell;
using earshot::test::shell_quote;
using earshot::test::TempDir;
using json = nlohmann::json;

// The Hugging Face config.json of openai/whisper-large-v3, trimmed to the fields Earshot reads.
json large_v3_config() {
    return json{{"num_mel_bins", 128},
                {"max_source_positions", 1500},
                {"d_model", 1280},
                {"encoder_attention_heads", 20},
                {"encoder_layers", 32},
                {"encoder_ffn_dim", 5120},
                {"max_target_positions", 448},
                {"decoder_attention_heads", 20},
                {"decoder_layers", 32},
                {"decoder_ffn_dim", 5120},
                {"vocab_size", 51866},
                {"torch_dtype", "float16"}};
}

std::string read_text(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream buffer;
    buffer << in.rdbuf();
    return buffer.str();
}

void write_text(const fs::path& path, const std::string& text) {
    std::ofstream(path, std::ios::binary) << text;
}

// A subdirectory of `temp` holding `config` as config.json.
fs::path hf_dir(const TempDir& temp, const std::string& name, const json& config) {
    const fs::path dir = temp.path() / name;
    fs::create_directories(dir);
    write_text(dir / "config.json", config.dump(2));
    return dir;
}

fs::path ggml_tiny() {
    return fs::path(EARSHOT_SHARED_DIR) / "whisper-assets/for-tests-ggml-tiny.bin";
}

ProcessResult inspect(const fs::path& model) {
    return run_earshot("inspect --model " + shell_quote(model.string()));
}

ProcessResult graph(const fs::path& model, const std::string& options) {
    return run_earshot("graph --model " + shell_quote(model.string()) + " " + options);
}

// The value of a `Name\tvalue` line of the inspect report, or "" when there is none.
std::string report_value(const std::string& report, const std::string& name) {
    std::istringstream lines(report);
    std::string line;
    while (std::getline(lines, line)) {
        if (line.rfind(name + "\t", 0) == 0) return line.substr(name.size() + 1);
    }
    return "";
}

// A safetensors file: 8-byte little-endian header length, the JSON header, then the data.
void write_safetensors(const fs::path& path, const json& header, std::size_t data_bytes) {
    const std::string text = header.dump();
    std::string bytes;
    auto length = static_cast<std::uint64_t>(text.size());
    for (int i = 0; i < 8; ++i) {
        bytes += static_cast<char>(length & 0xffU);
        length >>= 8U;
    }
    bytes += text;
    bytes.append(data_bytes, '\0');
    write_text(path, bytes);
}

// The one-line error contract: exit 2, nothing on stdout, one stderr line `earshot inspect: ...`.
void expect_inspect_error(const ProcessResult& result, const std::string& what) {
    EXPECT_EQ(result.exit_code, 2) << what;
    EXPECT_EQ(result.out, "") << what;
    EXPECT_EQ(result.err.rfind("earshot inspect: ", 0), 0U) << what << ": " << result.err;
    ASSERT_FALSE(result.err.empty()) << what;
    EXPECT_EQ(result.err.back(), '\n') << what;
    EXPECT_EQ(result.err.find('\n'), result.err.size() - 1) << what << ": " << result.err;
}

TEST(InspectCommand, LargeV3DirectoryPrintsTheGoldenReport) {
    const std::string golden =
        read_text(fs::path(EARSHOT_TEST_GOLDEN_DIR) / "inspect_large_v3.txt");
    ASSERT_FALSE(golden.empty());
    TempDir temp;
    const fs::path dir = hf_dir(temp, "large-v3", large_v3_config());
    const ProcessResult result = inspect(dir);
    ASSERT_EQ(result.exit_code, 0) << result.err;
    EXPECT_EQ(result.err, "");
    EXPECT_EQ(
        result.out.rfind("Checkpoint\t" + dir.string() + "\nFormat\thf_directory\nT from\t", 0), 0U)
        << result.out;
    const auto entries = result.out.find("\nEntries\n");
    ASSERT_NE(entries, std::string::npos) << result.out;
    EXPECT_EQ(result.out.substr(entries + 1), golden + "\n");
}

TEST(InspectCommand, SafetensorsHeaderWinsOverConfigDtype) {
    TempDir temp;
    json config = large_v3_config();
    config["torch_dtype"] = "float32";
    const fs::path dir = hf_dir(temp, "st", config);
    const fs::path file = dir / "model.safetensors";
    // One F16 tensor [2, 3]: 12 bytes of data.
    write_safetensors(file,
                      json{{"model.encoder.conv1.bias",
                            {{"dtype", "F16"}, {"shape", {2, 3}}, {"data_offsets", {0, 12}}}}},
                      12);
    for (const fs::path& model : {file, dir}) {
        const ProcessResult result = inspect(model);
        ASSERT_EQ(result.exit_code, 0) << model << ": " << result.err;
        EXPECT_EQ(result.err, "");
        EXPECT_EQ(report_value(result.out, "T"), "f16") << result.out;
        EXPECT_NE(report_value(result.out, "T from").find("safetensors header"), std::string::npos)
            << result.out;
        EXPECT_EQ(report_value(result.out, "D"), "1280");
    }
    EXPECT_EQ(report_value(inspect(file).out, "Format"), "safetensors_file");
}

TEST(InspectCommand, GgmlTinyContainer) {
    if (!fs::exists(ggml_tiny()))
        GTEST_SKIP() << "whisper test containers absent at " << ggml_tiny();
    const ProcessResult result = inspect(ggml_tiny());
    ASSERT_EQ(result.exit_code, 0) << result.err;
    EXPECT_EQ(result.err, "");
    EXPECT_EQ(report_value(result.out, "Format"), "ggml_file");
    EXPECT_NE(result.out.find("\nD\t384\n"), std::string::npos) << result.out;
    EXPECT_NE(result.out.find("\nHeads\t6\n"), std::string::npos) << result.out;
    EXPECT_NE(result.out.find("\nVocab\t51865\n"), std::string::npos) << result.out;
    EXPECT_EQ(report_value(result.out, "T"), "f16");
}

TEST(InspectCommand, MissingPathIsOneLineExitTwo) {
    TempDir temp;
    expect_inspect_error(inspect(temp.path() / "no-such-model"), "missing path");
}

TEST(InspectCommand, DirectoryWithoutConfigIsOneLineExitTwo) {
    TempDir temp;
    const ProcessResult result = inspect(temp.path());
    expect_inspect_error(result, "no config.json");
    EXPECT_NE(result.err.find("config.json"), std::string::npos) << result.err;
}

TEST(InspectCommand, MalformedConfigIsOneLineExitTwo) {
    TempDir temp;
    fs::create_directories(temp.path() / "bad");
    write_text(temp.path() / "bad/config.json", "{\"d_model\": 1280,\n");
    const ProcessResult result = inspect(temp.path() / "bad");
    expect_inspect_error(result, "malformed config.json");
    EXPECT_NE(result.err.find("malformed"), std::string::npos) << result.err;
}

TEST(InspectCommand, ConfigMissingAFieldIsOneLineExitTwo) {
    TempDir temp;
    json config = large_v3_config();
    config.erase("encoder_layers");
    const ProcessResult result = inspect(hf_dir(temp, "missing", config));
    expect_inspect_error(result, "missing field");
    EXPECT_NE(result.err.find("encoder_layers"), std::string::npos) << result.err;
}

TEST(InspectCommand, TextFileNamedBinIsOneLineExitTwo) {
    TempDir temp;
    write_text(temp.path() / "notes.bin", "these are not weights\n");
    expect_inspect_error(inspect(temp.path() / "notes.bin"), "text file named .bin");
}

TEST(InspectCommand, TruncatedGgmlIsOneLineExitTwo) {
    if (!fs::exists(ggml_tiny()))
        GTEST_SKIP() << "whisper test containers absent at " << ggml_tiny();
    const std::string bytes = read_text(ggml_tiny());
    ASSERT_GT(bytes.size(), 1000U);
    TempDir temp;
    // Cut inside the hyper-parameters, the mel filters and the vocabulary.
    for (std::size_t size : {std::size_t{30}, std::size_t{1000}, bytes.size() - 100}) {
        const fs::path cut = temp.path() / ("tiny-" + std::to_string(size) + ".bin");
        write_text(cut, bytes.substr(0, size));
        const ProcessResult result = inspect(cut);
        expect_inspect_error(result, "truncated at " + std::to_string(size));
        EXPECT_NE(result.err.find("truncated"), std::string::npos) << result.err;
    }
}

TEST(InspectCommand, HeadsThatDoNotDivideTheWidthNameTheConstraint) {
    TempDir temp;
    json config = large_v3_config();
    config["d_model"] = 1000;
    config["encoder_attention_heads"] = 3;
    config["decoder_attention_heads"] = 3;
    const ProcessResult result = inspect(hf_dir(temp, "d1000", config));
    expect_inspect_error(result, "D = 1000, Heads = 3");
    EXPECT_NE(result.err.find("D % Heads == 0"), std::string::npos) << result.err;
    EXPECT_NE(result.err.find("D = 1000, Heads = 3"), std::string::npos) << result.err;
}

TEST(InspectCommand, ZeroHeadsIsOneLineExitTwo) {
    TempDir temp;
    json config = large_v3_config();
    config["encoder_attention_heads"] = 0;
    config["decoder_attention_heads"] = 0;
    const ProcessResult result = inspect(hf_dir(temp, "heads0", config));
    expect_inspect_error(result, "zero heads");
    EXPECT_NE(result.err.find("Heads"), std::string::npos) << result.err;
}

// The parsed JSON of `earshot graph`, or a failure when it exits non-zero or is not JSON.
json graph_json(const fs::path& model, const std::string& options) {
    const ProcessResult result = graph(model, options);
    EXPECT_EQ(result.exit_code, 0) << options << ": " << result.err;
    EXPECT_EQ(result.err, "") << options;
    return json::parse(result.out, nullptr, /*allow_exceptions=*/false);
}

bool has_node(const json& view, const std::string& label, const std::string& sublabel) {
    for (const auto& node : view.at("nodes")) {
        if (node.at("label") == label && node.at("sublabel") == sublabel) return true;
    }
    return false;
}

bool has_edge(const json& view, const std::string& label) {
    for (const auto& edge : view.at("edges")) {
        if (edge.at("label") == label) return true;
    }
    return false;
}

TEST(GraphCommand, EncodeJsonAtDepthOne) {
    TempDir temp;
    const json view =
        graph_json(hf_dir(temp, "large-v3", large_v3_config()), "--entry encode --expand 1");
    ASSERT_TRUE(view.is_object());
    EXPECT_EQ(view.at("name"), "encode");
    EXPECT_EQ(view.at("nodes").size(), 16U);
    EXPECT_TRUE(has_node(view, "self_attn.forward", "Attention<D, Heads, T>"));
    EXPECT_TRUE(has_edge(view, "Tensor[1 + (-1 + Frames) / 2, 1 + (-1 + Frames) / 2; bool]?"));
    EXPECT_TRUE(has_edge(view, "T[B, Mels, Frames]"));
    EXPECT_FALSE(view.contains("binding"));
    // Every edge joins two listed nodes.
    std::vector<std::string> ids;
    for (const auto& node : view.at("nodes")) ids.push_back(node.at("id"));
    for (const auto& edge : view.at("edges")) {
        EXPECT_NE(std::find(ids.begin(), ids.end(), edge.at("from")), ids.end()) << edge;
        EXPECT_NE(std::find(ids.begin(), ids.end(), edge.at("to")), ids.end()) << edge;
    }
}

TEST(GraphCommand, BindShowsConcreteShapesAndTheBinding) {
    TempDir temp;
    const json view = graph_json(hf_dir(temp, "large-v3", large_v3_config()),
                                 "--entry encode --expand 1 --format json --bind");
    ASSERT_TRUE(view.is_object());
    EXPECT_TRUE(has_edge(view, "f16[1, 128, 3000]"));
    EXPECT_TRUE(has_edge(view, "f16[1, 1500, 1280]"));
    ASSERT_TRUE(view.contains("binding"));
    const json& binding = view.at("binding");
    EXPECT_EQ(binding.at("D"), "1280");
    EXPECT_EQ(binding.at("Heads"), "20");
    EXPECT_EQ(binding.at("T"), "f16");
    EXPECT_EQ(binding.at("A"), "1500");
}

TEST(GraphCommand, ParamsAddParameterNodes) {
    TempDir temp;
    const fs::path dir = hf_dir(temp, "large-v3", large_v3_config());
    const json plain = graph_json(dir, "--entry step --expand 0");
    const json with_params = graph_json(dir, "--entry step --expand 0 --params");
    ASSERT_TRUE(with_params.is_object());
    EXPECT_TRUE(has_node(with_params, "token_embedding", "T[Vocab, D]"));
    EXPECT_FALSE(has_node(plain, "token_embedding", "T[Vocab, D]"));
}

TEST(GraphCommand, DotHasClusters) {
    TempDir temp;
    const ProcessResult result = graph(hf_dir(temp, "large-v3", large_v3_config()),
                                       "--entry encode --expand 1 --format dot");
    ASSERT_EQ(result.exit_code, 0) << result.err;
    EXPECT_EQ(result.err, "");
    EXPECT_EQ(result.out.rfind("digraph", 0), 0U) << result.out;
    EXPECT_NE(result.out.find("subgraph cluster_"), std::string::npos) << result.out;
}

TEST(GraphCommand, EveryEntryAtEveryDepthExitsZero) {
    TempDir temp;
    const fs::path dir = hf_dir(temp, "large-v3", large_v3_config());
    for (const char* entry : {"encode", "decode", "listen", "prefill", "step"}) {
        std::size_t previous_nodes = 0;
        for (int depth = 0; depth <= 3; ++depth) {
            const std::string options =
                std::string("--entry ") + entry + " --expand " + std::to_string(depth);
            const json view = graph_json(dir, options);
            ASSERT_TRUE(view.is_object()) << options;
            EXPECT_EQ(view.at("name"), entry);
            // Expanding a level replaces calls by their bodies: never fewer nodes.
            EXPECT_GE(view.at("nodes").size(), previous_nodes) << options;
            previous_nodes = view.at("nodes").size();
            const ProcessResult dot = graph(dir, options + " --format dot --bind --params");
            EXPECT_EQ(dot.exit_code, 0) << options << ": " << dot.err;
        }
    }
}

TEST(GraphCommand, DotRendersWithGraphviz) {
    if (run_shell("command -v dot").exit_code != 0) GTEST_SKIP() << "Graphviz dot not installed";
    TempDir temp;
    const fs::path dir = hf_dir(temp, "large-v3", large_v3_config());
    for (const char* entry : {"encode", "step"}) {
        const ProcessResult result =
            run_shell(shell_quote(EARSHOT_EXE) + " graph --model " + shell_quote(dir.string()) +
                      " --entry " + entry + " --expand 2 --bind --params --format dot | dot -Tsvg");
        EXPECT_EQ(result.exit_code, 0) << entry << ": " << result.err;
        EXPECT_EQ(result.err, "") << entry;
        EXPECT_NE(result.out.find("<svg"), std::string::npos) << entry;
        EXPECT_NE(result.out.find("f16[1, "), std::string::npos) << entry;
    }
}

TEST(GraphCommand, UnknownEntryListsTheEntries) {
    TempDir temp;
    const ProcessResult result = graph(hf_dir(temp, "large-v3", large_v3_config()), "--entry nope");
    EXPECT_EQ(result.exit_code, 2);
    EXPECT_EQ(result.out, "");
    EXPECT_EQ(result.err.rfind("earshot graph: ", 0), 0U) << result.err;
    EXPECT_NE(result.err.find("nope"), std::string::npos) << result.err;
    EXPECT_NE(result.err.find("encode, decode, listen, prefill, step"), std::string::npos)
        << result.err;
}

TEST(GraphCommand, BadModelIsOneLineExitTwo) {
    TempDir temp;
    const ProcessResult result = graph(temp.path() / "absent", "--entry encode");
    EXPECT_EQ(result.exit_code, 2);
    EXPECT_EQ(result.out, "");
    EXPECT_EQ(result.err.rfind("earshot graph: ", 0), 0U) << result.err;
    EXPECT_EQ(result.err.find('\n'), result.err.size() - 1) << result.err;
}

}  // namespace
