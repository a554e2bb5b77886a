// The .npy format (NumPy's format.py, versions 1.0 and 2.0): header writer, header dict parser,
// and float32 / int32 payloads.
#include "cli/debug/npy_file.h"

#include <bit>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>

namespace earshot::app {

namespace {

static_assert(std::endian::native == std::endian::little,
              "npy payloads are copied as is: this code assumes a little-endian host");

constexpr std::string_view kMagic = "\x93NUMPY";
constexpr std::size_t kAlign = 64;  // numpy ARRAY_ALIGN: data starts on a 64-byte boundary

std::string py_quoted(std::string_view name) { return "'" + std::string(name) + "'"; }

std::string_view descr_of(NpyDtype dtype) { return dtype == NpyDtype::f32 ? "<f4" : "<i4"; }

// Python's repr of the shape tuple: (), (5,), (2, 3).
std::string shape_repr(std::span<const std::int64_t> shape) {
    std::string text = "(";
    for (std::size_t i = 0; i < shape.size(); ++i) {
        if (i > 0) text += ", ";
        text += std::to_string(shape[i]);
    }
    if (shape.size() == 1) text += ",";
    return text + ")";
}

// Product of the dims, checked for negative dims and overflow; -1 when invalid.
std::int64_t checked_count(std::span<const std::int64_t> shape) {
    constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max() / 8;
    std::int64_t count = 1;
    for (std::int64_t d : shape) {
        if (d < 0 || (d > 0 && count > kMax / d)) return -1;
        count *= d;
    }
    return count;
}

// A cursor over the header dict text, with errors that name the file.
class HeaderParser {
public:
    HeaderParser(std::string_view text, std::string_view name) : text_(text), name_(name) {}

    [[noreturn]] void fail(const std::string& what) const {
        throw NpyError(std::string(name_) + ": bad .npy header (" + what +
                       "): " + std::string(text_));
    }
    void skip_space() {
        while (at_ < text_.size() && (text_[at_] == ' ' || text_[at_] == '\t')) ++at_;
    }
    bool take(char c) {
        skip_space();
        if (at_ < text_.size() && text_[at_] == c) {
            ++at_;
            return true;
        }
        return false;
    }
    void expect(char c) {
        if (!take(c)) fail(std::string("expected '") + c + "'");
    }
    std::string string_literal() {
        skip_space();
        if (at_ >= text_.size() || (text_[at_] != '\'' && text_[at_] != '"'))
            fail("expected a string");
        const char quote = text_[at_++];
        const std::size_t end = text_.find(quote, at_);
        if (end == std::string_view::npos) fail("unterminated string");
        std::string value(text_.substr(at_, end - at_));
        at_ = end + 1;
        return value;
    }
    bool boolean() {
        skip_space();
        for (auto [word, value] : {std::pair{std::string_view("True"), true}, {"False", false}}) {
            if (text_.substr(at_, word.size()) == word) {
                at_ += word.size();
                return value;
            }
        }
        fail("expected True or False");
    }
    std::vector<std::int64_t> tuple() {
        expect('(');
        std::vector<std::int64_t> dims;
        while (!take(')')) {
            skip_space();
            std::int64_t value = 0;
            std::size_t digits = 0;
            while (at_ < text_.size() && text_[at_] >= '0' && text_[at_] <= '9') {
                if (value > (std::numeric_limits<std::int64_t>::max() - 9) / 10)
                    fail("dim too large");
                value = value * 10 + (text_[at_++] - '0');
                ++digits;
            }
            if (digits == 0) fail("expected a dimension");
            if (at_ < text_.size() && text_[at_] == 'L') ++at_;  // Python 2 long
            dims.push_back(value);
            if (!take(',')) {
                expect(')');
                break;
            }
        }
        return dims;
    }
    bool at_end_of_dict() {
        // After the closing brace only the padding: spaces and the final newline.
        for (; at_ < text_.size(); ++at_) {
            if (text_[at_] != ' ' && text_[at_] != '\n' && text_[at_] != '\r') return false;
        }
        return true;
    }

private:
    std::string_view text_;
    std::string_view name_;
    std::size_t at_ = 0;
};

struct Header {
    NpyDtype dtype = NpyDtype::f32;
    std::vector<std::int64_t> shape;
};

Header parse_header(std::string_view text, std::string_view name) {
    HeaderParser p(text, name);
    p.expect('{');
    std::string descr;
    bool have_descr = false;
    bool have_order = false;
    bool have_shape = false;
    bool fortran = false;
    Header header;
    while (!p.take('}')) {
        const std::string key = p.string_literal();
        p.expect(':');
        if (key == "descr") {
            descr = p.string_literal();
            have_descr = true;
        } else if (key == "fortran_order") {
            fortran = p.boolean();
            have_order = true;
        } else if (key == "shape") {
            header.shape = p.tuple();
            have_shape = true;
        } else {
            p.fail("unexpected key " + py_quoted(key));
        }
        if (!p.take(',')) {
            p.expect('}');
            break;
        }
    }
    if (!p.at_end_of_dict()) p.fail("text after the dict");
    if (!have_descr || !have_order || !have_shape) {
        p.fail("needs the keys 'descr', 'fortran_order' and 'shape'");
    }
    if (descr == "<f4") {
        header.dtype = NpyDtype::f32;
    } else if (descr == "<i4") {
        header.dtype = NpyDtype::i32;
    } else if (descr == ">f4" || descr == ">i4") {
        throw NpyError(std::string(name) + ": big-endian dtype " + py_quoted(descr) +
                       " is not supported (only little-endian '<f4' and '<i4')");
    } else {
        throw NpyError(std::string(name) + ": dtype " + py_quoted(descr) +
                       " is not supported (only '<f4' float32 and '<i4' int32)");
    }
    if (fortran) {
        throw NpyError(std::string(name) +
                       ": Fortran-order arrays are not supported (only C order)");
    }
    return header;
}

template <typename T>
void write_array(const std::filesystem::path& path, NpyDtype dtype, std::span<const T> values,
                 std::span<const std::int64_t> shape) {
    const std::int64_t count = checked_count(shape);
    if (count < 0 || static_cast<std::size_t>(count) != values.size()) {
        throw NpyError(path.string() + ": shape " + shape_repr(shape) + " does not hold " +
                       std::to_string(values.size()) + " values");
    }
    const std::string header = npy_header(dtype, shape);
    const std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "wb"),
                                                               &std::fclose);
    if (!file) throw NpyError(path.string() + ": cannot open for writing");
    bool ok = std::fwrite(header.data(), 1, header.size(), file.get()) == header.size();
    if (!values.empty()) {
        ok =
            ok && std::fwrite(values.data(), sizeof(T), values.size(), file.get()) == values.size();
    }
    ok = ok && std::fflush(file.get()) == 0;
    if (!ok) throw NpyError(path.string() + ": write failed");
}

}  // namespace

std::int64_t NpyArray::element_count() const { return checked_count(shape); }

std::string npy_header(NpyDtype dtype, std::span<const std::int64_t> shape) {
    std::string dict = "{'descr': " + py_quoted(descr_of(dtype)) +
                       ", 'fortran_order': False, 'shape': " + shape_repr(shape) + ", }";
    // numpy _wrap_header: pad with spaces so that magic + version + length + dict + '\n' is a
    // multiple of 64 (a whole 64 more when it already is).
    const std::size_t prefix = kMagic.size() + 2 + 2;
    const std::size_t pad = kAlign - (prefix + dict.size() + 1) % kAlign;
    const std::size_t header_len = dict.size() + pad + 1;
    if (header_len > std::numeric_limits<std::uint16_t>::max()) {
        throw NpyError("npy header for shape " + shape_repr(shape) + " is too long for 1.0");
    }
    std::string out(kMagic);
    out += '\x01';
    out += '\x00';
    out += static_cast<char>(header_len & 0xFFu);
    out += static_cast<char>((header_len >> 8) & 0xFFu);
    out += dict;
    out.append(pad, ' ');
    out += '\n';
    return out;
}

void write_npy(const std::filesystem::path& path, std::span<const float> values,
               std::span<const std::int64_t> shape) {
    write_array(path, NpyDtype::f32, values, shape);
}

void write_npy(const std::filesystem::path& path, std::span<const std::int32_t> values,
               std::span<const std::int64_t> shape) {
    write_array(path, NpyDtype::i32, values, shape);
}

NpyArray parse_npy(std::string_view bytes, std::string_view name) {
    const std::string file(name);
    if (bytes.size() < 10 || bytes.substr(0, kMagic.size()) != kMagic) {
        throw NpyError(file + ": not a .npy file (no \\x93NUMPY magic)");
    }
    const auto major = static_cast<unsigned char>(bytes[6]);
    const auto minor = static_cast<unsigned char>(bytes[7]);
    if ((major != 1 && major != 2) || minor != 0) {
        throw NpyError(file + ": .npy format version " + std::to_string(major) + "." +
                       std::to_string(minor) + " is not supported (only 1.0 and 2.0)");
    }
    const std::size_t length_bytes = major == 1 ? 2 : 4;
    if (bytes.size() < 8 + length_bytes) throw NpyError(file + ": truncated .npy header");
    std::size_t header_len = 0;
    for (std::size_t i = length_bytes; i-- > 0;) {
        header_len = (header_len << 8) | static_cast<unsigned char>(bytes[8 + i]);
    }
    const std::size_t data_at = 8 + length_bytes + header_len;
    if (data_at > bytes.size()) throw NpyError(file + ": truncated .npy header");
    const Header header = parse_header(bytes.substr(8 + length_bytes, header_len), file);

    NpyArray array;
    array.dtype = header.dtype;
    array.shape = header.shape;
    const std::int64_t count = checked_count(array.shape);
    const std::size_t payload = bytes.size() - data_at;
    if (count < 0 || payload != static_cast<std::size_t>(count) * 4) {
        throw NpyError(file + ": " + std::to_string(payload) + " data bytes, but shape " +
                       shape_repr(array.shape) + " of 4-byte values needs " +
                       (count < 0 ? std::string("too many") : std::to_string(count * 4)));
    }
    const char* data = bytes.data() + data_at;
    // An empty array (a 0 in the shape) copies nothing: memcpy must not see the empty vector's
    // null data() even for 0 bytes.
    if (array.dtype == NpyDtype::f32) {
        array.f32.resize(static_cast<std::size_t>(count));
        if (payload > 0) std::memcpy(array.f32.data(), data, payload);
    } else {
        array.i32.resize(static_cast<std::size_t>(count));
        if (payload > 0) std::memcpy(array.i32.data(), data, payload);
    }
    return array;
}

NpyArray read_npy(const std::filesystem::path& path) {
    const std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "rb"),
                                                               &std::fclose);
    if (!file) throw NpyError(path.string() + ": cannot open for reading");
    std::string bytes;
    char buffer[1 << 16];
    std::size_t n = 0;
    while ((n = std::fread(buffer, 1, sizeof buffer, file.get())) > 0) bytes.append(buffer, n);
    if (std::ferror(file.get()) != 0) throw NpyError(path.string() + ": read error");
    return parse_npy(bytes, path.string());
}

}  // namespace earshot::app
