// Fuzz target for the block declaration syntax (parse_dim, parse_type, parse_block). The input is
// text: every line is tried as a dim and as a type, and the first line is a block header for each
// later line. Whatever parses must print as text that parses back to the same thing.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "earshot/engine/program/dim.h"
#include "earshot/engine/program/syntax.h"
#include "earshot/engine/program/types.h"

namespace {

namespace program = earshot::program;

constexpr std::size_t max_lines = 32;

// A broken round trip is a printer or parser bug: report both texts and stop.
[[noreturn]] void round_trip_failed(const char* what, const std::string& printed,
                                    const std::string& detail) {
    std::fprintf(stderr, "%s does not round-trip\n  printed: %s\n  %s\n", what, printed.c_str(),
                 detail.c_str());
    std::abort();
}

// Runs `parse`, swallowing the errors a parser may raise on bad or unrepresentable input.
template <typename Parse>
bool try_parse(Parse&& parse) {
    try {
        parse();
        return true;
    } catch (const program::SyntaxError&) {
    } catch (const program::DimError&) {
    } catch (const program::TypeError&) {
    }
    return false;
}

// Re-parses printed text that came out of a successful parse; any error there is a finding.
template <typename T, typename Parse>
T reparse(const char* what, const std::string& printed, Parse&& parse) {
    try {
        return parse(printed);
    } catch (const std::exception& error) {
        round_trip_failed(what, printed, std::string("re-parse threw: ") + error.what());
    }
}

void check_dim(std::string_view line) {
    program::Dim dim;
    if (!try_parse([&] { dim = program::parse_dim(line); })) return;
    const std::string printed = dim.str();
    const auto again = reparse<program::Dim>(
        "dim", printed, [](const std::string& text) { return program::parse_dim(text); });
    if (!(again == dim)) round_trip_failed("dim", printed, "re-parsed: " + again.str());
}

void check_type(std::string_view line) {
    program::Type type;
    if (!try_parse([&] { type = program::parse_type(line); })) return;
    const std::string printed = type.str();
    const auto again = reparse<program::Type>(
        "type", printed, [](const std::string& text) { return program::parse_type(text); });
    if (again.str() != printed) round_trip_failed("type", printed, "re-printed: " + again.str());
}

// The one declaration line a single-line block holds, printed as it would be written.
std::string declaration_line(const program::BlockDecl& block) {
    if (!block.members.empty()) return block.members.front().str();
    if (!block.functions.empty()) return block.functions.front().str();
    if (!block.constraints.empty()) return "where " + block.constraints.front().str();
    return {};
}

void check_block(std::string_view header, std::string_view line) {
    program::BlockDecl block;
    if (!try_parse([&] { block = program::parse_block(header, {line}); })) return;
    const std::string printed_header = block.header();
    const std::string printed_line = declaration_line(block);
    const std::string printed = block.str();
    const auto again = reparse<program::BlockDecl>(
        "block", printed_header + "\n" + printed_line,
        [&](const std::string&) { return program::parse_block(printed_header, {printed_line}); });
    if (again.str() != printed) round_trip_failed("block", printed, "re-printed: " + again.str());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    std::vector<std::string_view> lines;
    for (std::size_t start = 0; start <= text.size() && lines.size() < max_lines;) {
        const std::size_t end = std::min(text.find('\n', start), text.size());
        lines.push_back(text.substr(start, end - start));
        start = end + 1;
    }
    for (const auto line : lines) {
        check_dim(line);
        check_type(line);
    }
    if (!lines.empty()) {
        // A header without lines still has to parse and print consistently.
        check_block(lines.front(), "where 1 == 1");
        for (std::size_t i = 1; i < lines.size(); ++i) {
            check_block(lines.front(), lines[i]);
        }
    }
    return 0;
}
