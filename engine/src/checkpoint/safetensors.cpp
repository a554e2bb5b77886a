// Parsing and validation of a safetensors header: the 8-byte length, the JSON tensor directory and
// the layout rules the tensors' byte ranges must follow.
#include "earshot/engine/checkpoint/safetensors.h"

#include <algorithm>
#include <array>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>
#include <system_error>
#include <tuple>
#include <utility>

#include "earshot/engine/checkpoint/errors.h"

namespace earshot::checkpoint {
namespace {

using nlohmann::json;

struct DTypeInfo {
    SafetensorsDType dtype;
    std::string_view name;
    uint64_t size_bytes;
    bool floating;
};

// Names and sizes from the safetensors format description (README, `Dtype` in the crate).
constexpr std::array<DTypeInfo, 15> dtype_table = {{
    {SafetensorsDType::boolean, "BOOL", 1, false},
    {SafetensorsDType::u8, "U8", 1, false},
    {SafetensorsDType::i8, "I8", 1, false},
    {SafetensorsDType::f8_e5m2, "F8_E5M2", 1, true},
    {SafetensorsDType::f8_e4m3, "F8_E4M3", 1, true},
    {SafetensorsDType::i16, "I16", 2, false},
    {SafetensorsDType::u16, "U16", 2, false},
    {SafetensorsDType::f16, "F16", 2, true},
    {SafetensorsDType::bf16, "BF16", 2, true},
    {SafetensorsDType::i32, "I32", 4, false},
    {SafetensorsDType::u32, "U32", 4, false},
    {SafetensorsDType::f32, "F32", 4, true},
    {SafetensorsDType::f64, "F64", 8, true},
    {SafetensorsDType::i64, "I64", 8, false},
    {SafetensorsDType::u64, "U64", 8, false},
}};

const DTypeInfo& info(SafetensorsDType dtype) {
    for (const auto& entry : dtype_table) {
        if (entry.dtype == dtype) {
            return entry;
        }
    }
    return dtype_table[0];  // unreachable: every enumerator is in the table
}

[[noreturn]] void fail_file(const std::string& file, const std::string& problem) {
    throw CheckpointError(file, problem);
}

uint64_t read_u64_le(std::span<const std::byte> bytes) {
    uint64_t value = 0;
    for (std::size_t i = 0; i < 8; ++i) {
        value |= static_cast<uint64_t>(std::to_integer<uint8_t>(bytes[i])) << (8 * i);
    }
    return value;
}

std::string shape_text(const std::vector<int64_t>& shape) {
    std::string text = "[";
    for (std::size_t i = 0; i < shape.size(); ++i) {
        text += (i == 0 ? "" : ", ") + std::to_string(shape[i]);
    }
    return text + "]";
}

// A JSON value that must be a non-negative integer (shape entries, offsets). Floats, negatives,
// strings and integers past uint64 (which nlohmann reads as floats) are refused.
std::optional<uint64_t> as_unsigned(const json& value) {
    if (value.is_number_unsigned()) {
        return value.get<uint64_t>();
    }
    if (value.is_number_integer() && value.get<int64_t>() >= 0) {
        return static_cast<uint64_t>(value.get<int64_t>());
    }
    return std::nullopt;
}

class HeaderParser {
public:
    HeaderParser(const std::string& file, uint64_t buffer_size_bytes)
        : file_(file), buffer_size_bytes_(buffer_size_bytes) {}

    SafetensorsTensor parse_tensor(const std::string& name, const json& entry) const {
        if (!entry.is_object()) {
            fail(name, "entry is a JSON " + std::string(entry.type_name()) + ", not an object");
        }
        SafetensorsTensor tensor;
        tensor.name = name;

        const auto dtype_it = entry.find("dtype");
        if (dtype_it == entry.end()) {
            fail(name, "missing \"dtype\"");
        }
        if (!dtype_it->is_string()) {
            fail(name, "\"dtype\" is not a string");
        }
        const auto& dtype_text = dtype_it->get_ref<const std::string&>();
        const auto dtype = dtype_from_name(dtype_text);
        if (!dtype) {
            fail(name, "unknown dtype " + quote_for_message(dtype_text));
        }
        tensor.dtype = *dtype;

        const auto shape_it = entry.find("shape");
        if (shape_it == entry.end()) {
            fail(name, "missing \"shape\"");
        }
        if (!shape_it->is_array()) {
            fail(name, "\"shape\" is not an array");
        }
        uint64_t numel = 1;
        bool numel_overflow = false;
        for (std::size_t i = 0; i < shape_it->size(); ++i) {
            const auto dim = as_unsigned((*shape_it)[i]);
            if (!dim || *dim > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
                fail(name, "shape[" + std::to_string(i) + "] = " + (*shape_it)[i].dump() +
                               " is not a non-negative integer");
            }
            tensor.shape.push_back(static_cast<int64_t>(*dim));
            numel_overflow = numel_overflow || __builtin_mul_overflow(numel, *dim, &numel);
        }

        const auto offsets_it = entry.find("data_offsets");
        if (offsets_it == entry.end()) {
            fail(name, "missing \"data_offsets\"");
        }
        if (!offsets_it->is_array() || offsets_it->size() != 2) {
            fail(name, "\"data_offsets\" is not an array [begin, end]");
        }
        const auto begin = as_unsigned((*offsets_it)[0]);
        const auto end = as_unsigned((*offsets_it)[1]);
        if (!begin || !end) {
            fail(name, "\"data_offsets\" " + offsets_it->dump() + " are not non-negative integers");
        }
        if (*end < *begin) {
            fail(name, "data_offsets end " + std::to_string(*end) + " is before begin " +
                           std::to_string(*begin));
        }
        tensor.begin_bytes = *begin;
        tensor.end_bytes = *end;

        uint64_t expected_bytes = 0;
        if (numel_overflow ||
            __builtin_mul_overflow(numel, dtype_size_bytes(tensor.dtype), &expected_bytes)) {
            fail(name, "shape " + shape_text(tensor.shape) + " of " + dtype_text +
                           " overflows a 64-bit byte count");
        }
        if (*end - *begin != expected_bytes) {
            fail(name, "data_offsets [" + std::to_string(*begin) + ", " + std::to_string(*end) +
                           "] hold " + std::to_string(*end - *begin) + " bytes, but shape " +
                           shape_text(tensor.shape) + " of " + dtype_text + " needs " +
                           std::to_string(expected_bytes));
        }
        if (*end > buffer_size_bytes_) {
            fail(name, "data_offsets end " + std::to_string(*end) +
                           " is past the end of the data buffer (" +
                           std::to_string(buffer_size_bytes_) + " bytes)");
        }
        return tensor;
    }

    std::map<std::string, std::string> parse_metadata(const json& value) const {
        std::map<std::string, std::string> metadata;
        if (value.is_null()) {
            return metadata;
        }
        if (!value.is_object()) {
            fail("\"__metadata__\" is a JSON " + std::string(value.type_name()) +
                 ", not an object of strings");
        }
        for (const auto& [key, item] : value.items()) {
            if (!item.is_string()) {
                fail("\"__metadata__\" value for " + quote_for_message(key) + " is not a string");
            }
            metadata.emplace(key, item.get<std::string>());
        }
        return metadata;
    }

    // Sorted by begin, the byte ranges must tile [0, buffer size) exactly.
    void check_layout(const std::vector<SafetensorsTensor>& sorted) const {
        uint64_t expected_begin = 0;
        const SafetensorsTensor* previous = nullptr;
        for (const auto& tensor : sorted) {
            if (tensor.begin_bytes < expected_begin) {
                fail(tensor.name, "data_offsets [" + std::to_string(tensor.begin_bytes) + ", " +
                                      std::to_string(tensor.end_bytes) + "] overlap tensor " +
                                      quote_for_message(previous->name) + " which ends at " +
                                      std::to_string(expected_begin));
            }
            if (tensor.begin_bytes > expected_begin) {
                const std::string after =
                    previous ? "after tensor " + quote_for_message(previous->name) + " ends at " +
                                   std::to_string(expected_begin)
                             : "at the start of the data buffer";
                fail(tensor.name, "gap of " + std::to_string(tensor.begin_bytes - expected_begin) +
                                      " bytes before its data (begins at " +
                                      std::to_string(tensor.begin_bytes) + ", " + after + ")");
            }
            expected_begin = tensor.end_bytes;
            previous = &tensor;
        }
        if (expected_begin != buffer_size_bytes_) {
            const std::string last =
                previous ? "after the last tensor " + quote_for_message(previous->name)
                         : "with no tensors in the header";
            fail(std::to_string(buffer_size_bytes_ - expected_begin) +
                 " trailing bytes in the data buffer " + last + " (buffer is " +
                 std::to_string(buffer_size_bytes_) + " bytes, tensors end at " +
                 std::to_string(expected_begin) + ")");
        }
    }

    [[noreturn]] void fail(const std::string& problem) const {
        throw CheckpointError(file_, problem);
    }
    [[noreturn]] void fail(const std::string& tensor, const std::string& problem) const {
        throw CheckpointError(file_, tensor, problem);
    }

private:
    std::string file_;
    uint64_t buffer_size_bytes_;
};

}  // namespace

std::string_view dtype_name(SafetensorsDType dtype) { return info(dtype).name; }

uint64_t dtype_size_bytes(SafetensorsDType dtype) { return info(dtype).size_bytes; }

std::optional<SafetensorsDType> dtype_from_name(std::string_view name) {
    for (const auto& entry : dtype_table) {
        if (entry.name == name) {
            return entry.dtype;
        }
    }
    return std::nullopt;
}

bool is_floating(SafetensorsDType dtype) { return info(dtype).floating; }

uint64_t element_count(const SafetensorsTensor& tensor) {
    uint64_t count = 1;
    for (const int64_t dim : tensor.shape) {
        count *= static_cast<uint64_t>(dim);
    }
    return count;
}

const SafetensorsTensor* find_tensor(const SafetensorsHeader& header, std::string_view name) {
    for (const auto& tensor : header.tensors) {
        if (tensor.name == name) {
            return &tensor;
        }
    }
    return nullptr;
}

SafetensorsHeader parse_safetensors_header(std::span<const std::byte> file_prefix_or_whole,
                                           uint64_t file_size_bytes,
                                           const std::string& name_for_errors) {
    const auto fail = [&](const std::string& problem) { fail_file(name_for_errors, problem); };
    if (file_size_bytes < 8) {
        fail("file is " + std::to_string(file_size_bytes) +
             " bytes, too short for the 8-byte header length");
    }
    if (file_prefix_or_whole.size() < 8) {
        fail("buffer holds " + std::to_string(file_prefix_or_whole.size()) +
             " bytes, too few for the 8-byte header length");
    }
    const uint64_t header_bytes = read_u64_le(file_prefix_or_whole);
    if (header_bytes > safetensors_max_header_bytes) {
        fail("header length " + std::to_string(header_bytes) + " exceeds the limit of " +
             std::to_string(safetensors_max_header_bytes) + " bytes");
    }
    if (header_bytes > file_size_bytes - 8) {
        fail("header length " + std::to_string(header_bytes) + " runs past the end of the file (" +
             std::to_string(file_size_bytes) + " bytes)");
    }
    if (file_prefix_or_whole.size() - 8 < header_bytes) {
        fail("buffer holds " + std::to_string(file_prefix_or_whole.size()) +
             " bytes, fewer than the " + std::to_string(8 + header_bytes) + " the header needs");
    }

    const auto* text = reinterpret_cast<const char*>(file_prefix_or_whole.data() + 8);
    // Duplicate keys would silently keep only the last entry, so the parser callback records them.
    std::set<std::string> keys;
    std::string duplicate;
    const json::parser_callback_t watch_keys = [&](int depth, json::parse_event_t event,
                                                   json& parsed) {
        if (event == json::parse_event_t::key && depth == 1 && duplicate.empty() &&
            parsed.is_string() && !keys.insert(parsed.get<std::string>()).second) {
            duplicate = parsed.get<std::string>();
        }
        return true;
    };
    json root;
    try {
        root = json::parse(text, text + header_bytes, watch_keys);
    } catch (const json::exception& error) {
        fail("header is not valid JSON: " + std::string(error.what()));
    }
    if (!root.is_object()) {
        fail("header is a JSON " + std::string(root.type_name()) + ", not an object");
    }
    if (!duplicate.empty()) {
        throw CheckpointError(name_for_errors, duplicate, "appears twice in the header");
    }

    SafetensorsHeader header;
    header.data_offset_bytes = 8 + header_bytes;
    header.file_size_bytes = file_size_bytes;
    const HeaderParser parser(name_for_errors, file_size_bytes - header.data_offset_bytes);
    for (const auto& [key, value] : root.items()) {
        if (key == "__metadata__") {
            header.metadata = parser.parse_metadata(value);
        } else {
            header.tensors.push_back(parser.parse_tensor(key, value));
        }
    }
    std::sort(header.tensors.begin(), header.tensors.end(),
              [](const SafetensorsTensor& a, const SafetensorsTensor& b) {
                  return std::tie(a.begin_bytes, a.end_bytes, a.name) <
                         std::tie(b.begin_bytes, b.end_bytes, b.name);
              });
    parser.check_layout(header.tensors);
    return header;
}

SafetensorsHeader read_safetensors_header(const std::filesystem::path& path) {
    std::error_code error;
    const auto status = std::filesystem::status(path, error);
    if (!std::filesystem::exists(status)) {
        throw CheckpointError(path, "no such file");
    }
    if (!std::filesystem::is_regular_file(status)) {
        throw CheckpointError(path, "not a regular file");
    }
    const uint64_t file_size = std::filesystem::file_size(path, error);
    if (error) {
        throw CheckpointError(path, "cannot read the file size: " + error.message());
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        throw CheckpointError(path, "cannot open for reading");
    }
    std::vector<std::byte> prefix(std::min<uint64_t>(file_size, 8));
    in.read(reinterpret_cast<char*>(prefix.data()), static_cast<std::streamsize>(prefix.size()));
    if (!in) {
        throw CheckpointError(path, "read failed in the 8-byte header length");
    }
    if (file_size >= 8) {
        // Bounds are checked before allocating: a corrupt length must not allocate gigabytes.
        const uint64_t header_bytes = read_u64_le(prefix);
        if (header_bytes <= safetensors_max_header_bytes && header_bytes <= file_size - 8) {
            prefix.resize(8 + header_bytes);
            in.read(reinterpret_cast<char*>(prefix.data() + 8),
                    static_cast<std::streamsize>(header_bytes));
            if (!in) {
                throw CheckpointError(
                    path, "read failed in the " + std::to_string(header_bytes) + "-byte header");
            }
        }
    }
    return parse_safetensors_header(prefix, file_size, path.string());
}

}  // namespace earshot::checkpoint
