// Reader for the whisper.cpp legacy ggml container: a bounds-checked walk over the header blocks
// and the tensor directory over a file (seeking over tensor data) or a buffer.
#include "earshot/engine/checkpoint/ggml_file.h"

#include <array>
#include <bit>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <optional>
#include <set>
#include <system_error>
#include <utility>

#include "earshot/engine/checkpoint/errors.h"

namespace earshot::checkpoint {
namespace {

// "GGUF" read as a little-endian u32: the successor format, which this reader does not handle.
constexpr uint32_t gguf_magic = 0x46554747;
constexpr int32_t max_dims = 4;           // GGML_MAX_DIMS
constexpr int32_t max_name_bytes = 1024;  // generous: whisper names are under 64 bytes

// Where the container's bytes come from: a file read piecewise (tensor data is seeked over, never
// loaded) or a buffer already in memory. Callers have checked every range against size_bytes().
class ByteSource {
public:
    virtual ~ByteSource() = default;
    virtual uint64_t size_bytes() const = 0;
    // Copies [offset, offset + bytes) into `out`; false when the underlying read fails.
    virtual bool read_at(uint64_t offset, void* out, uint64_t bytes) = 0;
};

class FileSource final : public ByteSource {
public:
    // Sets `problem` instead of throwing so that the reader reports it with the file's name.
    FileSource(const std::filesystem::path& path, std::string& problem) {
        std::error_code error;
        const auto status = std::filesystem::status(path, error);
        if (!std::filesystem::exists(status)) {
            problem = "no such file";
            return;
        }
        if (!std::filesystem::is_regular_file(status)) {
            problem = "not a regular file";
            return;
        }
        size_bytes_ = std::filesystem::file_size(path, error);
        if (error) {
            problem = "cannot read the file size: " + error.message();
            return;
        }
        in_.rdbuf()->pubsetbuf(buffer_.data(), static_cast<std::streamsize>(buffer_.size()));
        in_.open(path, std::ios::binary);
        if (!in_) {
            problem = "cannot open for reading";
        }
    }

    uint64_t size_bytes() const override { return size_bytes_; }

    bool read_at(uint64_t offset, void* out, uint64_t bytes) override {
        // Reads are mostly sequential; seek only after a skip over tensor data.
        if (offset != position_) {
            in_.seekg(static_cast<std::streamoff>(offset));
            if (!in_) {
                return false;
            }
            position_ = offset;
        }
        in_.read(static_cast<char*>(out), static_cast<std::streamsize>(bytes));
        if (!in_) {
            return false;
        }
        position_ += bytes;
        return true;
    }

private:
    std::array<char, 1 << 16> buffer_{};
    std::ifstream in_;
    uint64_t size_bytes_ = 0;
    uint64_t position_ = 0;
};

class SpanSource final : public ByteSource {
public:
    explicit SpanSource(std::span<const std::byte> bytes) : bytes_(bytes) {}

    uint64_t size_bytes() const override { return bytes_.size(); }

    bool read_at(uint64_t offset, void* out, uint64_t bytes) override {
        if (offset > bytes_.size() || bytes > bytes_.size() - offset) {
            return false;
        }
        if (bytes > 0) {
            std::memcpy(out, bytes_.data() + offset, static_cast<std::size_t>(bytes));
        }
        return true;
    }

private:
    std::span<const std::byte> bytes_;
};

// Sequential reader that knows the source size, so that every count is checked against what is
// left before anything is allocated or read.
class BoundedReader {
public:
    BoundedReader(ByteSource& source, std::filesystem::path name)
        : source_(source), name_(std::move(name)), size_bytes_(source.size_bytes()) {}

    uint64_t offset() const { return offset_; }
    uint64_t remaining() const { return size_bytes_ - offset_; }
    uint64_t size_bytes() const { return size_bytes_; }

    void read(void* out, uint64_t bytes, const std::string& what) {
        require(bytes, what);
        if (!source_.read_at(offset_, out, bytes)) {
            fail("read failed at byte " + std::to_string(offset_) + " in " + what);
        }
        offset_ += bytes;
    }

    uint32_t read_u32(const std::string& what) {
        std::array<unsigned char, 4> bytes{};
        read(bytes.data(), bytes.size(), what);
        return static_cast<uint32_t>(bytes[0]) | static_cast<uint32_t>(bytes[1]) << 8 |
               static_cast<uint32_t>(bytes[2]) << 16 | static_cast<uint32_t>(bytes[3]) << 24;
    }

    int32_t read_i32(const std::string& what) { return std::bit_cast<int32_t>(read_u32(what)); }

    float read_f32(const std::string& what) { return std::bit_cast<float>(read_u32(what)); }

    // Moves past `bytes` without reading them; a file source seeks on its next read.
    void skip(uint64_t bytes, const std::string& what) {
        require(bytes, what);
        offset_ += bytes;
    }

    // Truncation: `what` needs `bytes` more bytes than the source has left.
    void require(uint64_t bytes, const std::string& what) const {
        if (bytes > remaining()) {
            fail("truncated: " + what + " needs " + std::to_string(bytes) + " bytes at offset " +
                 std::to_string(offset_) + ", but the file ends at " + std::to_string(size_bytes_));
        }
    }

    [[noreturn]] void fail(const std::string& problem) const {
        throw CheckpointError(name_, problem);
    }
    [[noreturn]] void fail(const std::string& tensor, const std::string& problem) const {
        throw CheckpointError(name_, tensor, problem);
    }

private:
    ByteSource& source_;
    std::filesystem::path name_;
    uint64_t size_bytes_ = 0;
    uint64_t offset_ = 0;
};

GgmlHparams read_hparams(BoundedReader& reader) {
    GgmlHparams hp;
    // File order (whisper.cpp whisper_model_load).
    const std::array<std::pair<const char*, int32_t*>, 11> fields = {{
        {"n_vocab", &hp.n_vocab},
        {"n_audio_ctx", &hp.n_audio_ctx},
        {"n_audio_state", &hp.n_audio_state},
        {"n_audio_head", &hp.n_audio_head},
        {"n_audio_layer", &hp.n_audio_layer},
        {"n_text_ctx", &hp.n_text_ctx},
        {"n_text_state", &hp.n_text_state},
        {"n_text_head", &hp.n_text_head},
        {"n_text_layer", &hp.n_text_layer},
        {"n_mels", &hp.n_mels},
        {"ftype", &hp.ftype},
    }};
    for (const auto& [name, slot] : fields) {
        *slot = reader.read_i32(std::string("hyper-parameter ") + name);
        if (*slot < 0) {
            reader.fail(std::string("hyper-parameter ") + name + " is negative (" +
                        std::to_string(*slot) + ")");
        }
    }
    return hp;
}

void read_mel_block(BoundedReader& reader, GgmlFile& file) {
    file.mel_count = reader.read_i32("mel filter count");
    file.mel_bins = reader.read_i32("mel filter bin count");
    if (file.mel_count < 0 || file.mel_bins < 0) {
        reader.fail("mel filter block has a negative size (" + std::to_string(file.mel_count) +
                    " x " + std::to_string(file.mel_bins) + ")");
    }
    const uint64_t count =
        static_cast<uint64_t>(file.mel_count) * static_cast<uint64_t>(file.mel_bins);
    const std::string what = "mel filter block of " + std::to_string(file.mel_count) + " x " +
                             std::to_string(file.mel_bins) + " floats";
    reader.require(count * 4, what);
    file.mel_filters.resize(count);
    for (auto& value : file.mel_filters) {
        value = reader.read_f32(what);
    }
}

void read_vocab_block(BoundedReader& reader, GgmlFile& file) {
    const int32_t count = reader.read_i32("vocabulary count");
    if (count < 0) {
        reader.fail("vocabulary count is negative (" + std::to_string(count) + ")");
    }
    // Each token takes at least its 4-byte length.
    reader.require(static_cast<uint64_t>(count) * 4,
                   "vocabulary of " + std::to_string(count) + " tokens");
    file.vocab.reserve(static_cast<std::size_t>(count));
    for (int32_t id = 0; id < count; ++id) {
        const std::string what = "vocabulary token " + std::to_string(id);
        const uint32_t length = reader.read_u32(what);
        std::string token(length <= reader.remaining() ? length : 0, '\0');
        reader.read(token.data(), length, what);
        file.vocab.push_back(std::move(token));
    }
}

GgmlTensorInfo read_tensor(BoundedReader& reader) {
    const std::string where = "tensor header at offset " + std::to_string(reader.offset());
    const int32_t n_dims = reader.read_i32(where);
    const int32_t name_len = reader.read_i32(where);
    const int32_t raw_type = reader.read_i32(where);
    if (n_dims < 1 || n_dims > max_dims) {
        reader.fail(where + ": n_dims " + std::to_string(n_dims) + " is outside 1.." +
                    std::to_string(max_dims));
    }
    if (name_len < 1 || name_len > max_name_bytes) {
        reader.fail(where + ": name length " + std::to_string(name_len) + " is outside 1.." +
                    std::to_string(max_name_bytes));
    }
    GgmlTensorInfo tensor;
    std::vector<int32_t> dims(static_cast<std::size_t>(n_dims));
    for (auto& dim : dims) {
        dim = reader.read_i32(where);
    }
    tensor.name.resize(static_cast<std::size_t>(name_len));
    reader.read(tensor.name.data(), tensor.name.size(), where + " (name)");

    const std::optional<GgmlType> type = ggml_type_from_id(raw_type);
    if (!type) {
        reader.fail(tensor.name, "ggml type " + std::to_string(raw_type) + " (" +
                                     std::string(ggml_type_name_of_id(raw_type)) +
                                     ") is not supported (Earshot reads " +
                                     supported_ggml_type_names() + ")");
    }
    const GgmlBlockLayout layout = ggml_block_layout(*type);
    tensor.ttype = *type;
    uint64_t elements = 1;
    for (std::size_t i = 0; i < dims.size(); ++i) {
        if (dims[i] < 1) {
            reader.fail(tensor.name, "dimension ne[" + std::to_string(i) +
                                         "] = " + std::to_string(dims[i]) + " is not positive");
        }
        tensor.ne.push_back(dims[i]);
        // Four dimensions below 2^31 each cannot overflow until the fourth; checked regardless.
        if (__builtin_mul_overflow(elements, static_cast<uint64_t>(dims[i]), &elements)) {
            reader.fail(tensor.name, "element count overflows 64 bits");
        }
    }
    if (static_cast<uint64_t>(dims[0]) % layout.elements != 0) {
        reader.fail(tensor.name, "row length ne[0] = " + std::to_string(dims[0]) +
                                     " is not a multiple of " + std::to_string(layout.elements) +
                                     ", the values in one " +
                                     std::string(ggml_type_name(tensor.ttype)) + " block");
    }
    if (__builtin_mul_overflow(elements / layout.elements, layout.bytes, &tensor.size_bytes)) {
        reader.fail(tensor.name, "byte size overflows 64 bits");
    }
    tensor.data_offset_bytes = reader.offset();
    if (tensor.size_bytes > reader.remaining()) {
        reader.fail(tensor.name, "data of " + std::to_string(tensor.size_bytes) +
                                     " bytes at offset " +
                                     std::to_string(tensor.data_offset_bytes) +
                                     " runs past the end of the file (" +
                                     std::to_string(reader.size_bytes()) + " bytes)");
    }
    reader.skip(tensor.size_bytes, "tensor data");
    return tensor;
}

GgmlFile read_container(BoundedReader& reader) {
    GgmlFile file;
    file.file_size_bytes = reader.size_bytes();

    const uint32_t magic = reader.read_u32("magic");
    if (magic == gguf_magic) {
        reader.fail("this is a GGUF file; only the legacy ggml container (magic \"ggml\") is read");
    }
    if (magic != ggml_file_magic) {
        char text[64];
        std::snprintf(text, sizeof(text), "bad magic 0x%08x (expected 0x%08x, \"ggml\")",
                      static_cast<unsigned>(magic), static_cast<unsigned>(ggml_file_magic));
        reader.fail(text);
    }
    file.hparams = read_hparams(reader);
    read_mel_block(reader, file);
    read_vocab_block(reader, file);

    std::set<std::string> names;
    while (reader.remaining() > 0) {
        GgmlTensorInfo tensor = read_tensor(reader);
        if (!names.insert(tensor.name).second) {
            reader.fail(tensor.name, "appears twice in the file");
        }
        file.tensors.push_back(std::move(tensor));
    }
    return file;
}

}  // namespace

GgmlFile read_ggml_file(const std::filesystem::path& path) {
    std::string problem;
    FileSource source(path, problem);
    if (!problem.empty()) {
        throw CheckpointError(path, problem);
    }
    BoundedReader reader(source, path);
    return read_container(reader);
}

GgmlFile parse_ggml_file(std::span<const std::byte> bytes, const std::string& name_for_errors) {
    SpanSource source(bytes);
    BoundedReader reader(source, name_for_errors);
    return read_container(reader);
}

bool is_ggml_file(const std::filesystem::path& path) noexcept {
    try {
        std::ifstream in(path, std::ios::binary);
        std::array<unsigned char, 4> bytes{};
        if (!in.read(reinterpret_cast<char*>(bytes.data()), bytes.size())) {
            return false;
        }
        const uint32_t magic =
            static_cast<uint32_t>(bytes[0]) | static_cast<uint32_t>(bytes[1]) << 8 |
            static_cast<uint32_t>(bytes[2]) << 16 | static_cast<uint32_t>(bytes[3]) << 24;
        return magic == ggml_file_magic;
    } catch (...) {
        return false;
    }
}

}  // namespace earshot::checkpoint
