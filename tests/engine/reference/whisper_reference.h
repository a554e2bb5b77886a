// WhisperReference: a plain double-precision Whisper (conv stem, pre-LN encoder, causal decoder
// with cross-attention and tied head) written from the inference notes alone, to check backends.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace earshot::test::reference {

// The model's sizes, named as the program's generics.
struct Dims {
    int64_t mels = 0;
    int64_t d = 0;
    int64_t heads = 0;
    int64_t inner = 0;
    int64_t encoder_layers = 0;
    int64_t decoder_layers = 0;
    int64_t vocab = 0;
    int64_t frames = 0;
    int64_t max_tokens = 0;

    // Encoder positions after the stride-2 conv: 1 + (Frames - 1) / 2.
    int64_t audio_positions() const { return 1 + (frames - 1) / 2; }
};

// Every parameter by path (`encoder_layers.0.self_attn.q_proj.weight`), row-major, PyTorch shapes.
using Weights = std::map<std::string, std::vector<double>>;

struct Parameter {
    std::string path;
    std::vector<int64_t> shape;
};

// Every parameter the model reads, with its shape; k_proj has no bias.
std::vector<Parameter> parameter_list(const Dims& dims);

// Normal(0, std) values for every parameter of `parameter_list` (LayerNorm weights 1 + noise).
Weights random_weights(const Dims& dims, uint32_t seed, double std);

// A row-major matrix [rows, cols].
struct Matrix {
    int64_t rows = 0;
    int64_t cols = 0;
    std::vector<double> values;

    Matrix() = default;
    Matrix(int64_t row_count, int64_t col_count)
        : rows(row_count), cols(col_count), values(static_cast<size_t>(row_count * col_count)) {}
    double& at(int64_t r, int64_t c) { return values[static_cast<size_t>(r * cols + c)]; }
    double at(int64_t r, int64_t c) const { return values[static_cast<size_t>(r * cols + c)]; }
};

// A row-major array [n0, n1, n2]: mel [B, Mels, Frames], audio [B, A, D], logits [B, S, Vocab].
struct Array3 {
    int64_t n0 = 0;
    int64_t n1 = 0;
    int64_t n2 = 0;
    std::vector<double> values;

    Array3() = default;
    Array3(int64_t size0, int64_t size1, int64_t size2)
        : n0(size0), n1(size1), n2(size2), values(static_cast<size_t>(size0 * size1 * size2)) {}
    double& at(int64_t i, int64_t j, int64_t k) {
        return values[static_cast<size_t>((i * n1 + j) * n2 + k)];
    }
    double at(int64_t i, int64_t j, int64_t k) const {
        return values[static_cast<size_t>((i * n1 + j) * n2 + k)];
    }
    Matrix slice(int64_t i) const;  // [n1, n2]
};

// ---- The pieces, exposed so they can be checked against hand-computed values. ----

// 0.5 x (1 + erf(x / sqrt 2)) (notes §2.2).
double gelu_erf(double x);

// Sinusoid table [length, d]: sines in channels 0 .. d/2 - 1, cosines after, with the
// frequency step ln(10000) / (d/2 - 1) (notes §2.3).
Matrix sinusoids(int64_t length, int64_t d);

// Cross-correlation with kernel 3, padding 1 (zeros), stride 1 or 2 (notes §2.1).
// x [In, T], weight [Out, In, 3], bias [Out] -> [Out, 1 + (T - 1) / stride].
Matrix conv1d(const Matrix& x, const std::vector<double>& weight, const std::vector<double>& bias,
              int64_t stride);

// Over the last dim, biased variance, eps 1e-5 (notes §2.4). x [N, D] -> [N, D].
Matrix layer_norm(const Matrix& x, const std::vector<double>& weight,
                  const std::vector<double>& bias);

// x [N, In], weight [Out, In], bias [Out] or empty for none -> x W^T + b [N, Out].
Matrix linear(const Matrix& x, const std::vector<double>& weight, const std::vector<double>& bias);

enum class Mask { none, causal };

// One head: softmax(q k^T / sqrt(Dh)) v; q [N, Dh], k [M, Dh], v [M, Dh] -> [N, Dh]. Causal:
// query i sees keys 0 .. i.
Matrix attention_head(const Matrix& q, const Matrix& k, const Matrix& v, Mask mask);
// One head's probabilities without a mask: softmax(q k^T / sqrt(Dh)) [N, M].
Matrix attention_weights(const Matrix& q, const Matrix& k);

// ---- The model. ----

class WhisperReference {
public:
    // Throws std::invalid_argument naming the first missing or mis-sized parameter.
    WhisperReference(Dims dims, Weights weights);

    const Dims& dims() const { return dims_; }

    // mel [B, Mels, Frames] -> audio states [B, A, D], A = 1 + (Frames - 1) / 2.
    Array3 encode(const Array3& mel) const;
    // tokens [B][S] at positions 0 .. S - 1, audio [B, A, D] -> logits [B, S, Vocab]. With
    // `cross_weights`, it gets the cross-attention probabilities of every row and decoder layer:
    // entry b * DecoderLayers + layer is [Heads, S, A].
    Array3 decode(const std::vector<std::vector<int32_t>>& tokens, const Array3& audio,
                  std::vector<Array3>* cross_weights = nullptr) const;

private:
    const std::vector<double>& param(const std::string& path) const;
    // prefix names an Attention block: x [N, D], source [M, D] -> [N, D].
    Matrix attention(const std::string& prefix, const Matrix& x, const Matrix& source, Mask mask,
                     Array3* weights = nullptr) const;
    Matrix mlp(const std::string& prefix, const Matrix& x) const;
    Matrix norm(const std::string& prefix, const Matrix& x) const;

    Dims dims_;
    Weights weights_;
};

}  // namespace earshot::test::reference
