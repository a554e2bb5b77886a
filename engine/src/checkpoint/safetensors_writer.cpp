// write_safetensors: header JSON with data_offsets in name order, space padding to 8 bytes, data.
#include "earshot/engine/checkpoint/safetensors_writer.h"

#include <algorithm>
#include <array>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>

namespace earshot::checkpoint {

void write_safetensors(const std::filesystem::path& path, const std::vector<TensorToWrite>& tensors,
                       const std::map<std::string, std::string>& metadata) {
    std::vector<const TensorToWrite*> sorted;
    sorted.reserve(tensors.size());
    for (const auto& tensor : tensors) sorted.push_back(&tensor);
    std::sort(sorted.begin(), sorted.end(),
              [](const TensorToWrite* a, const TensorToWrite* b) { return a->name < b->name; });

    nlohmann::json header = nlohmann::json::object();
    if (!metadata.empty()) header["__metadata__"] = metadata;
    uint64_t offset = 0;
    for (std::size_t i = 0; i < sorted.size(); ++i) {
        const TensorToWrite& tensor = *sorted[i];
        if (i > 0 && sorted[i - 1]->name == tensor.name) {
            throw std::invalid_argument("write_safetensors: tensor " + tensor.name +
                                        " appears twice");
        }
        uint64_t elements = 1;
        for (const int64_t dim : tensor.shape) {
            if (dim < 0) {
                throw std::invalid_argument("write_safetensors: tensor " + tensor.name +
                                            " has a negative dimension");
            }
            elements *= static_cast<uint64_t>(dim);
        }
        if (elements * dtype_size_bytes(tensor.dtype) != tensor.bytes.size()) {
            throw std::invalid_argument("write_safetensors: tensor " + tensor.name + " has " +
                                        std::to_string(tensor.bytes.size()) +
                                        " bytes; its shape and dtype need " +
                                        std::to_string(elements * dtype_size_bytes(tensor.dtype)));
        }
        const uint64_t end = offset + tensor.bytes.size();
        header[tensor.name] = {{"dtype", std::string(dtype_name(tensor.dtype))},
                               {"shape", tensor.shape},
                               {"data_offsets", {offset, end}}};
        offset = end;
    }
    std::string text = header.dump();
    text.append((8 - text.size() % 8) % 8, ' ');

    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    if (!out) {
        throw std::runtime_error(path.string() + ": cannot open for writing");
    }
    std::array<char, 8> length{};
    for (std::size_t i = 0; i < length.size(); ++i) {
        length[i] = static_cast<char>((static_cast<uint64_t>(text.size()) >> (8 * i)) & 0xff);
    }
    out.write(length.data(), static_cast<std::streamsize>(length.size()));
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    for (const TensorToWrite* tensor : sorted) {
        out.write(reinterpret_cast<const char*>(tensor->bytes.data()),
                  static_cast<std::streamsize>(tensor->bytes.size()));
    }
    out.flush();
    if (!out) {
        throw std::runtime_error(path.string() + ": write failed");
    }
}

}  // namespace earshot::checkpoint
