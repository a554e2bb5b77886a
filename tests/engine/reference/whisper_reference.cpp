// WhisperReference: straight double-precision loops over the Whisper encoder and decoder, one
// function per piece of the inference notes §2–§3; clarity over speed.
#include "whisper_reference.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <stdexcept>
#include <utility>

namespace earshot::test::reference {

namespace {

// PyTorch's LayerNorm default; Whisper never overrides it (notes §2.4).
constexpr double kLayerNormEps = 1e-5;
// The sinusoid timescale (notes §2.3).
constexpr double kMaxTimescale = 10000.0;

int64_t numel(const std::vector<int64_t>& shape) {
    int64_t n = 1;
    for (int64_t s : shape) n *= s;
    return n;
}

void add_in_place(Matrix& x, const Matrix& y) {
    for (size_t i = 0; i < x.values.size(); ++i) x.values[i] += y.values[i];
}

// x [N, Heads * Dh] -> head h as [N, Dh].
Matrix head_of(const Matrix& x, int64_t head, int64_t head_dim) {
    Matrix out(x.rows, head_dim);
    for (int64_t r = 0; r < x.rows; ++r) {
        for (int64_t c = 0; c < head_dim; ++c) out.at(r, c) = x.at(r, head * head_dim + c);
    }
    return out;
}

void append_layer_norm(std::vector<Parameter>& list, const std::string& prefix, int64_t d) {
    list.push_back({prefix + ".weight", {d}});
    list.push_back({prefix + ".bias", {d}});
}

void append_attention(std::vector<Parameter>& list, const std::string& prefix, int64_t d) {
    list.push_back({prefix + ".q_proj.weight", {d, d}});
    list.push_back({prefix + ".q_proj.bias", {d}});
    list.push_back({prefix + ".k_proj.weight", {d, d}});
    list.push_back({prefix + ".v_proj.weight", {d, d}});
    list.push_back({prefix + ".v_proj.bias", {d}});
    list.push_back({prefix + ".out_proj.weight", {d, d}});
    list.push_back({prefix + ".out_proj.bias", {d}});
}

void append_mlp(std::vector<Parameter>& list, const std::string& prefix, int64_t d, int64_t inner) {
    list.push_back({prefix + ".fc1.weight", {inner, d}});
    list.push_back({prefix + ".fc1.bias", {inner}});
    list.push_back({prefix + ".fc2.weight", {d, inner}});
    list.push_back({prefix + ".fc2.bias", {d}});
}

bool is_layer_norm_weight(const std::string& path) {
    const std::string suffix = "norm.weight";
    return path.size() >= suffix.size() &&
           path.compare(path.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

Matrix Array3::slice(int64_t i) const {
    Matrix out(n1, n2);
    std::copy_n(values.begin() + i * n1 * n2, n1 * n2, out.values.begin());
    return out;
}

std::vector<Parameter> parameter_list(const Dims& dims) {
    const int64_t d = dims.d;
    std::vector<Parameter> list;
    list.push_back({"conv1_weight", {d, dims.mels, 3}});
    list.push_back({"conv1_bias", {d}});
    list.push_back({"conv2_weight", {d, d, 3}});
    list.push_back({"conv2_bias", {d}});
    list.push_back({"encoder_positions", {dims.audio_positions(), d}});
    for (int64_t l = 0; l < dims.encoder_layers; ++l) {
        const std::string p = "encoder_layers." + std::to_string(l);
        append_layer_norm(list, p + ".self_attn_layer_norm", d);
        append_attention(list, p + ".self_attn", d);
        append_layer_norm(list, p + ".final_layer_norm", d);
        append_mlp(list, p + ".mlp", d, dims.inner);
    }
    append_layer_norm(list, "encoder_norm", d);
    list.push_back({"token_embedding", {dims.vocab, d}});
    list.push_back({"decoder_positions", {dims.max_tokens, d}});
    for (int64_t l = 0; l < dims.decoder_layers; ++l) {
        const std::string p = "decoder_layers." + std::to_string(l);
        append_layer_norm(list, p + ".self_attn_layer_norm", d);
        append_attention(list, p + ".self_attn", d);
        append_layer_norm(list, p + ".encoder_attn_layer_norm", d);
        append_attention(list, p + ".encoder_attn", d);
        append_layer_norm(list, p + ".final_layer_norm", d);
        append_mlp(list, p + ".mlp", d, dims.inner);
    }
    append_layer_norm(list, "decoder_norm", d);
    return list;
}

Weights random_weights(const Dims& dims, uint32_t seed, double std) {
    std::mt19937 rng(seed);
    std::normal_distribution<double> normal(0.0, std);
    Weights weights;
    for (const Parameter& p : parameter_list(dims)) {
        std::vector<double> values(static_cast<size_t>(numel(p.shape)));
        const double offset = is_layer_norm_weight(p.path) ? 1.0 : 0.0;
        for (double& v : values) v = offset + normal(rng);
        weights[p.path] = std::move(values);
    }
    weights["encoder_positions"] = sinusoids(dims.audio_positions(), dims.d).values;
    return weights;
}

double gelu_erf(double x) { return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0))); }

Matrix sinusoids(int64_t length, int64_t d) {
    const int64_t half = d / 2;
    const double increment = std::log(kMaxTimescale) / static_cast<double>(half - 1);
    Matrix pe(length, d);  // [length, d]
    for (int64_t t = 0; t < length; ++t) {
        for (int64_t i = 0; i < half; ++i) {
            const double angle =
                static_cast<double>(t) * std::exp(-increment * static_cast<double>(i));
            pe.at(t, i) = std::sin(angle);
            pe.at(t, half + i) = std::cos(angle);
        }
    }
    return pe;
}

Matrix conv1d(const Matrix& x, const std::vector<double>& weight, const std::vector<double>& bias,
              int64_t stride) {
    constexpr int64_t kKernel = 3;
    constexpr int64_t kPadding = 1;
    const int64_t in = x.rows;
    const int64_t length = x.cols;
    const int64_t out_channels = static_cast<int64_t>(bias.size());
    const int64_t out_length = 1 + (length + 2 * kPadding - kKernel) / stride;
    Matrix y(out_channels, out_length);  // [Out, T_out]
    for (int64_t o = 0; o < out_channels; ++o) {
        for (int64_t t = 0; t < out_length; ++t) {
            double sum = bias[static_cast<size_t>(o)];
            for (int64_t i = 0; i < in; ++i) {
                for (int64_t j = 0; j < kKernel; ++j) {
                    const int64_t source = stride * t + j - kPadding;
                    if (source < 0 || source >= length) continue;  // zero padding
                    sum +=
                        weight[static_cast<size_t>((o * in + i) * kKernel + j)] * x.at(i, source);
                }
            }
            y.at(o, t) = sum;
        }
    }
    return y;
}

Matrix layer_norm(const Matrix& x, const std::vector<double>& weight,
                  const std::vector<double>& bias) {
    Matrix y(x.rows, x.cols);
    const double n = static_cast<double>(x.cols);
    for (int64_t r = 0; r < x.rows; ++r) {
        double mean = 0.0;
        for (int64_t c = 0; c < x.cols; ++c) mean += x.at(r, c);
        mean /= n;
        double variance = 0.0;  // biased: divided by n
        for (int64_t c = 0; c < x.cols; ++c) variance += (x.at(r, c) - mean) * (x.at(r, c) - mean);
        variance /= n;
        const double inv_std = 1.0 / std::sqrt(variance + kLayerNormEps);
        for (int64_t c = 0; c < x.cols; ++c) {
            const auto k = static_cast<size_t>(c);
            y.at(r, c) = (x.at(r, c) - mean) * inv_std * weight[k] + bias[k];
        }
    }
    return y;
}

Matrix linear(const Matrix& x, const std::vector<double>& weight, const std::vector<double>& bias) {
    const int64_t in = x.cols;
    const int64_t out = static_cast<int64_t>(weight.size()) / in;
    Matrix y(x.rows, out);  // [N, Out]
    for (int64_t r = 0; r < x.rows; ++r) {
        for (int64_t o = 0; o < out; ++o) {
            double sum = bias.empty() ? 0.0 : bias[static_cast<size_t>(o)];
            const double* w = weight.data() + o * in;
            for (int64_t i = 0; i < in; ++i) sum += x.at(r, i) * w[i];
            y.at(r, o) = sum;
        }
    }
    return y;
}

Matrix attention_head(const Matrix& q, const Matrix& k, const Matrix& v, Mask mask) {
    const double scale = 1.0 / std::sqrt(static_cast<double>(q.cols));
    Matrix out(q.rows, v.cols);  // [N, Dh]
    std::vector<double> scores(static_cast<size_t>(k.rows));
    for (int64_t i = 0; i < q.rows; ++i) {
        const int64_t visible = mask == Mask::causal ? std::min(i + 1, k.rows) : k.rows;
        double max_score = -std::numeric_limits<double>::infinity();
        for (int64_t j = 0; j < visible; ++j) {
            double dot = 0.0;
            for (int64_t c = 0; c < q.cols; ++c) dot += q.at(i, c) * k.at(j, c);
            scores[static_cast<size_t>(j)] = dot * scale;
            max_score = std::max(max_score, dot * scale);
        }
        double total = 0.0;
        for (int64_t j = 0; j < visible; ++j) {
            auto& s = scores[static_cast<size_t>(j)];
            s = std::exp(s - max_score);
            total += s;
        }
        for (int64_t j = 0; j < visible; ++j) {
            const double p = scores[static_cast<size_t>(j)] / total;
            for (int64_t c = 0; c < v.cols; ++c) out.at(i, c) += p * v.at(j, c);
        }
    }
    return out;
}

Matrix attention_weights(const Matrix& q, const Matrix& k) {
    const double scale = 1.0 / std::sqrt(static_cast<double>(q.cols));
    Matrix p(q.rows, k.rows);  // [N, M]
    for (int64_t i = 0; i < q.rows; ++i) {
        double max_score = -std::numeric_limits<double>::infinity();
        for (int64_t j = 0; j < k.rows; ++j) {
            double dot = 0.0;
            for (int64_t c = 0; c < q.cols; ++c) dot += q.at(i, c) * k.at(j, c);
            p.at(i, j) = dot * scale;
            max_score = std::max(max_score, dot * scale);
        }
        double total = 0.0;
        for (int64_t j = 0; j < k.rows; ++j) {
            p.at(i, j) = std::exp(p.at(i, j) - max_score);
            total += p.at(i, j);
        }
        for (int64_t j = 0; j < k.rows; ++j) p.at(i, j) /= total;
    }
    return p;
}

WhisperReference::WhisperReference(Dims dims, Weights weights)
    : dims_(dims), weights_(std::move(weights)) {
    if (dims_.heads <= 0 || dims_.d % dims_.heads != 0 || dims_.d / dims_.heads < 1) {
        throw std::invalid_argument("reference: D " + std::to_string(dims_.d) +
                                    " is not a multiple of Heads " + std::to_string(dims_.heads));
    }
    for (const Parameter& p : parameter_list(dims_)) {
        auto it = weights_.find(p.path);
        if (it == weights_.end()) {
            throw std::invalid_argument("reference: missing parameter " + p.path);
        }
        if (static_cast<int64_t>(it->second.size()) != numel(p.shape)) {
            throw std::invalid_argument("reference: parameter " + p.path + " has " +
                                        std::to_string(it->second.size()) + " values, expected " +
                                        std::to_string(numel(p.shape)));
        }
    }
}

const std::vector<double>& WhisperReference::param(const std::string& path) const {
    return weights_.at(path);
}

Matrix WhisperReference::norm(const std::string& prefix, const Matrix& x) const {
    return layer_norm(x, param(prefix + ".weight"), param(prefix + ".bias"));
}

Matrix WhisperReference::attention(const std::string& prefix, const Matrix& x, const Matrix& source,
                                   Mask mask, Array3* weights) const {
    const Matrix q = linear(x, param(prefix + ".q_proj.weight"), param(prefix + ".q_proj.bias"));
    const Matrix k = linear(source, param(prefix + ".k_proj.weight"), {});  // no k bias
    const Matrix v =
        linear(source, param(prefix + ".v_proj.weight"), param(prefix + ".v_proj.bias"));
    const int64_t head_dim = dims_.d / dims_.heads;
    Matrix merged(x.rows, dims_.d);  // [N, Heads * Dh]
    for (int64_t h = 0; h < dims_.heads; ++h) {
        const Matrix o = attention_head(head_of(q, h, head_dim), head_of(k, h, head_dim),
                                        head_of(v, h, head_dim), mask);  // [N, Dh]
        if (weights != nullptr) {
            if (h == 0) *weights = Array3(dims_.heads, x.rows, source.rows);
            const Matrix p = attention_weights(head_of(q, h, head_dim), head_of(k, h, head_dim));
            std::copy(p.values.begin(), p.values.end(),
                      weights->values.begin() + h * x.rows * source.rows);
        }
        for (int64_t r = 0; r < x.rows; ++r) {
            for (int64_t c = 0; c < head_dim; ++c) merged.at(r, h * head_dim + c) = o.at(r, c);
        }
    }
    return linear(merged, param(prefix + ".out_proj.weight"), param(prefix + ".out_proj.bias"));
}

Matrix WhisperReference::mlp(const std::string& prefix, const Matrix& x) const {
    Matrix hidden = linear(x, param(prefix + ".fc1.weight"), param(prefix + ".fc1.bias"));
    for (double& h : hidden.values) h = gelu_erf(h);
    return linear(hidden, param(prefix + ".fc2.weight"), param(prefix + ".fc2.bias"));
}

Array3 WhisperReference::encode(const Array3& mel) const {
    if (mel.n1 != dims_.mels || mel.n2 != dims_.frames) {
        throw std::invalid_argument("reference: mel must be [B, Mels, Frames]");
    }
    const int64_t a = dims_.audio_positions();
    Array3 audio(mel.n0, a, dims_.d);  // [B, A, D]
    for (int64_t b = 0; b < mel.n0; ++b) {
        Matrix h = conv1d(mel.slice(b), param("conv1_weight"), param("conv1_bias"), 1);
        for (double& v : h.values) v = gelu_erf(v);  // [D, Frames]
        h = conv1d(h, param("conv2_weight"), param("conv2_bias"), 2);
        for (double& v : h.values) v = gelu_erf(v);                         // [D, A]
        const std::vector<double>& positions = param("encoder_positions");  // [A, D]
        Matrix x(a, dims_.d);                                               // [A, D]
        for (int64_t t = 0; t < a; ++t) {
            for (int64_t c = 0; c < dims_.d; ++c) {
                x.at(t, c) = h.at(c, t) + positions[static_cast<size_t>(t * dims_.d + c)];
            }
        }
        for (int64_t l = 0; l < dims_.encoder_layers; ++l) {
            const std::string p = "encoder_layers." + std::to_string(l);
            const Matrix normed = norm(p + ".self_attn_layer_norm", x);
            add_in_place(x, attention(p + ".self_attn", normed, normed, Mask::none));
            add_in_place(x, mlp(p + ".mlp", norm(p + ".final_layer_norm", x)));
        }
        x = norm("encoder_norm", x);
        std::copy(x.values.begin(), x.values.end(), audio.values.begin() + b * a * dims_.d);
    }
    return audio;
}

Array3 WhisperReference::decode(const std::vector<std::vector<int32_t>>& tokens,
                                const Array3& audio, std::vector<Array3>* cross_weights) const {
    const auto batch = static_cast<int64_t>(tokens.size());
    if (batch == 0 || audio.n0 != batch || audio.n2 != dims_.d) {
        throw std::invalid_argument("reference: tokens [B][S] and audio [B, A, D] disagree");
    }
    const auto s_len = static_cast<int64_t>(tokens.front().size());
    if (s_len == 0 || s_len > dims_.max_tokens) {
        throw std::invalid_argument("reference: S must be in 1 .. MaxTokens");
    }
    const std::vector<double>& embedding = param("token_embedding");    // [Vocab, D]
    const std::vector<double>& positions = param("decoder_positions");  // [MaxTokens, D]
    Array3 logits(batch, s_len, dims_.vocab);                           // [B, S, Vocab]
    if (cross_weights != nullptr) {
        cross_weights->assign(static_cast<size_t>(batch * dims_.decoder_layers), Array3());
    }
    for (int64_t b = 0; b < batch; ++b) {
        const std::vector<int32_t>& row = tokens[static_cast<size_t>(b)];
        if (static_cast<int64_t>(row.size()) != s_len) {
            throw std::invalid_argument("reference: token rows differ in length");
        }
        Matrix x(s_len, dims_.d);  // [S, D]
        for (int64_t s = 0; s < s_len; ++s) {
            const int32_t token = row[static_cast<size_t>(s)];
            if (token < 0 || token >= dims_.vocab) {
                throw std::invalid_argument("reference: token " + std::to_string(token) +
                                            " outside the vocabulary");
            }
            for (int64_t c = 0; c < dims_.d; ++c) {
                x.at(s, c) = embedding[static_cast<size_t>(token * dims_.d + c)] +
                             positions[static_cast<size_t>(s * dims_.d + c)];
            }
        }
        const Matrix source = audio.slice(b);  // [A, D]
        for (int64_t l = 0; l < dims_.decoder_layers; ++l) {
            const std::string p = "decoder_layers." + std::to_string(l);
            const Matrix normed = norm(p + ".self_attn_layer_norm", x);
            add_in_place(x, attention(p + ".self_attn", normed, normed, Mask::causal));
            Array3* weights =
                cross_weights == nullptr
                    ? nullptr
                    : &(*cross_weights)[static_cast<size_t>(b * dims_.decoder_layers + l)];
            add_in_place(x, attention(p + ".encoder_attn", norm(p + ".encoder_attn_layer_norm", x),
                                      source, Mask::none, weights));
            add_in_place(x, mlp(p + ".mlp", norm(p + ".final_layer_norm", x)));
        }
        const Matrix head = linear(norm("decoder_norm", x), embedding, {});  // tied, [S, Vocab]
        std::copy(head.values.begin(), head.values.end(),
                  logits.values.begin() + b * s_len * dims_.vocab);
    }
    return logits;
}

}  // namespace earshot::test::reference
